"""Every page type is valid HTML by the Nu HTML Checker (vnu), with no errors (issue 16).

vnu is a Java program (Java 11+) shipped in the npm package `vnu-jar`; it is not vendored (about
30 MB). The test runs it from a cache directory ($RLSCALING_TOOL_CACHE, default
~/.cache/rlscaling), fetching it there with `npm pack` the first time if the network allows,
and skips with the reason when Java, npm or the network is missing. `.ci/run` installs Java
(Debian's default-jre-headless) and fetches the jar before its slow step."""

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from django.test import Client

from tests.browser.test_accessibility import page_types

# slow (`make test-all`, CI's slow step): the Nu HTML Checker in Java.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]

VNU_VERSION = "26.9.27"
CACHE = Path(os.environ.get("RLSCALING_TOOL_CACHE") or Path.home() / ".cache" / "rlscaling")


def vnu_jar():
    """The path of vnu.jar, fetched into the cache if need be; pytest.skip() if it cannot be."""
    if not shutil.which("java"):
        pytest.skip("vnu needs Java 11+ (java not found): apt-get install default-jre-headless")
    jar = CACHE / f"vnu-jar-{VNU_VERSION}" / "vnu.jar"
    if jar.exists():
        return jar
    if not shutil.which("npm"):
        pytest.skip(
            f"vnu.jar is not in {jar.parent} and npm (to fetch vnu-jar) is missing: "
            "apt-get install npm, or run .ci/run, which fetches it"
        )
    jar.parent.mkdir(parents=True, exist_ok=True)
    try:
        packed = subprocess.run(
            ["npm", "pack", f"vnu-jar@{VNU_VERSION}", "--pack-destination", str(jar.parent)],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    except (subprocess.SubprocessError, OSError) as error:
        pytest.skip(f"could not fetch vnu-jar {VNU_VERSION} with npm (offline?): {error}")
    archive = jar.parent / packed.stdout.strip().splitlines()[-1]
    with tarfile.open(archive) as tar:
        member = tar.getmember("package/build/dist/vnu.jar")
        with tar.extractfile(member) as source, open(jar, "wb") as target:
            shutil.copyfileobj(source, target)
    archive.unlink()
    return jar


def test_every_page_type_is_valid_html(demo, tmp_path):
    jar = vnu_jar()
    client = Client()
    files = {}
    for name, path in page_types().items():
        response = client.get(path)
        assert response["Content-Type"].startswith("text/html"), name
        file = tmp_path / f"{name.replace(' ', '-')}.html"
        file.write_bytes(response.content)
        files[file.name] = name
    result = subprocess.run(
        ["java", "-jar", str(jar), "--format", "json", "--exit-zero-always"]
        + [str(tmp_path / file) for file in files],
        capture_output=True,
        text=True,
        timeout=300,
    )
    messages = json.loads(result.stderr or "{}").get("messages", [])
    errors = [
        (files.get(Path(message.get("url", "")).name), message.get("message"))
        for message in messages
        if message.get("type") == "error"
    ]
    assert errors == [], "\n".join(map(str, errors))
