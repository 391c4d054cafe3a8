"""The lock files (requirements/*.txt, written by `make lock`) cover pyproject.toml: every
dependency pinned to one version with hashes, the site's pins the same in both files, and each
pin within the range pyproject allows. A dependency added without `make lock` fails here."""

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# slow (`make test-all`, CI's slow step): the tooling's own check (the lock files), not the site.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def pins(name):
    text = (ROOT / "requirements" / name).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    found = {}
    for entry in entries:
        match = PIN.match(entry)
        if match:
            assert "--hash=sha256:" in entry, f"{name}: {match[1]} has no hash"
            found[canonicalize_name(match[1])] = match[2]
    return found


@pytest.mark.parametrize(
    ("lock", "requirements"),
    [
        ("app.txt", PYPROJECT["dependencies"]),
        ("test.txt", PYPROJECT["dependencies"] + PYPROJECT["optional-dependencies"]["test"]),
    ],
)
def test_every_dependency_is_pinned_within_its_range(lock, requirements):
    pinned = pins(lock)
    for line in requirements:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in requirements/{lock}: run `make lock`"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{name}=={pinned[name]} in requirements/{lock} is outside {requirement.specifier}: "
            "run `make lock`"
        )


def test_the_site_and_test_locks_agree():
    site, test = pins("app.txt"), pins("test.txt")
    assert {name: test.get(name) for name in site} == site


def test_make_run_installs_no_test_tools():
    site = pins("app.txt")
    for tool in ("playwright", "schemathesis", "hypothesis", "pytest", "ruff", "factory-boy"):
        assert tool not in site, f"{tool} is in requirements/app.txt, which `make run` installs"
