"""`.ci/run --check`: each dependency is checked and a missing one named with how to get it;
optional ones (Redis, redis-cli, Debian's pg_ctlcluster) never abort the run."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

# slow (`make test-all`, CI's slow step): the tooling's own check (.ci/run), not the site.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# The few tools the check itself needs; no redis-cli, redis-server, pg_ctlcluster or psql.
TOOLS = ["bash", "make", "dirname", "id", "awk", "ls", "date", "env", "cat"]


@pytest.fixture
def bare_path(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check(path, **env):
    return subprocess.run(
        ["bash", ".ci/run", "--check"],
        cwd=ROOT,
        env={"HOME": os.environ.get("HOME", "/tmp"), "PATH": path, "PYTHON": sys.executable} | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_missing_database_server_is_named_with_how_to_get_it(bare_path):
    port = closed_port()
    result = check(
        bare_path,
        DATABASE_URL=f"postgres://ci@127.0.0.1:{port}/ci",
        REDIS_URL=f"redis://127.0.0.1:{closed_port()}",
        SKIP_BROWSER="1",
    )
    assert result.returncode == 1
    assert f"MISSING: PostgreSQL on 127.0.0.1:{port} (from DATABASE_URL): start it" in result.stderr
    assert "Redis: not running and no redis-server (optional" in result.stdout
    assert "command not found" not in result.stderr


def test_without_redis_tools_or_pg_ctlcluster_the_check_passes(bare_path):
    with socket.socket() as server:  # stands in for PostgreSQL: the check only needs it to answer
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        result = check(
            bare_path,
            DATABASE_URL=f"postgres://ci@127.0.0.1:{port}/ci",
            REDIS_URL=f"redis://127.0.0.1:{closed_port()}",
            SKIP_BROWSER="1",
        )
    assert result.returncode == 0, result.stderr
    assert f"PostgreSQL: answering on 127.0.0.1:{port}" in result.stdout
    assert "Everything CI needs is here." in result.stdout


def test_an_old_python_is_refused_with_what_to_do(bare_path, tmp_path):
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'Python 3.9.2' && exit 0\nexit 1\n")
    old.chmod(0o755)
    result = check(bare_path, PYTHON=str(old))
    assert result.returncode == 1
    assert "MISSING: Python 3.11 or newer" in result.stderr
    assert "Python 3.9.2" in result.stderr
