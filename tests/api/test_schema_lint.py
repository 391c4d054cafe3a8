"""Redocly CLI lints the OpenAPI schema with its recommended rules, each rule turned off saying
why in .ci/redocly.yaml: no error and no warning.

Redocly CLI is a Node.js program from npm; it is not vendored. The test installs a fixed
version into a cache directory ($RLSCALING_TOOL_CACHE, default ~/.cache/rlscaling) the first
time, and skips with the reason when npm or the network is missing."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

# slow (`make test-all`, CI's slow step): a Node.js tool, installed from npm the first time.
pytestmark = pytest.mark.slow

REDOCLY_VERSION = "2.77.0"
CACHE = Path(os.environ.get("RLSCALING_TOOL_CACHE") or Path.home() / ".cache" / "rlscaling")
CONFIG = Path(__file__).resolve().parents[2] / ".ci" / "redocly.yaml"
QUIET = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}


def redocly():
    """The redocly command, installed into the cache if need be; pytest.skip() if it cannot be."""
    prefix = CACHE / f"redocly-cli-{REDOCLY_VERSION}"
    command = prefix / "node_modules" / ".bin" / "redocly"
    if command.exists():
        return command
    if not shutil.which("npm"):
        pytest.skip(f"Redocly CLI is not in {prefix} and npm is missing: apt-get install npm")
    try:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
             f"@redocly/cli@{REDOCLY_VERSION}"],
            capture_output=True, text=True, timeout=300, check=True,
        )  # fmt: skip
    except (subprocess.SubprocessError, OSError) as error:
        pytest.skip(
            f"could not install @redocly/cli {REDOCLY_VERSION} with npm (offline?): {error}"
        )
    return command


@pytest.mark.django_db
def test_the_schema_passes_redocly_lint(tmp_path):
    command = redocly()
    schema = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema), "--validate", "--fail-on-warn")

    done = subprocess.run(
        [str(command), "lint", str(schema), "--config", str(CONFIG), "--format", "summary"],
        capture_output=True, text=True, timeout=300, env={**os.environ, **QUIET},
    )  # fmt: skip

    problems = re.findall(r"^(error|warning)\s+(\S+): (\d+)$", done.stdout, re.MULTILINE)
    assert done.returncode == 0 and not problems, done.stdout + done.stderr
