"""Development across processes: a change made by another process (a shell, a management
command, a task worker) shows at once in a running server with the local-memory page cache;
SITE_URL follows HOST/PORT; each log line is printed once."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ART_OF_SCALING

# slow (`make test-all`, CI's slow step): `make run`'s processes, started and killed.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "SITE_URL", "PORT"}}
    env.update(DJANGO_SETTINGS_MODULE="rlscaling.settings", DJANGO_ENV="development", **extra)
    return env


def manage(env, *args):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=True,
    )  # fmt: skip


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.headers.get("X-Page-Cache"), response.read().decode()


def wait_until_up(url, process, seconds=120):
    deadline = time.monotonic() + seconds
    while True:
        try:
            return fetch(url)
        except OSError:
            assert process.poll() is None, "the server stopped"
            assert time.monotonic() < deadline, f"{url} did not answer within {seconds} s"
            time.sleep(0.2)


@pytest.fixture
def served_site(tmp_path):
    """runserver over a file SQLite database with the demo content, local-memory cache."""
    port = free_port()
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", PORT=str(port))
    manage(env, "migrate", "--noinput")
    manage(env, "load_demo")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{base}/healthz", server)
        yield base, env
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_another_process_s_change_shows_at_once_in_the_running_server(served_site):
    base, env = served_site
    fetch(f"{base}/research/")
    assert fetch(f"{base}/research/")[0] == "hit"

    # An update() announces nothing to the page cache; the shell's exit does.
    manage(
        env, "shell", "-c",
        "from citations.models import Paper; "
        f"Paper.objects.filter(slug='{ART_OF_SCALING}').update(title='Retitled elsewhere')",
    )  # fmt: skip
    header, page = fetch(f"{base}/research/")
    assert header is None
    assert "Retitled elsewhere" in page

    assert fetch(f"{base}/research/")[0] == "hit"
    manage(env, "load_demo", "--reset", "--noinput")
    header, page = fetch(f"{base}/research/")
    assert header is None
    assert "Retitled elsewhere" not in page


def settings_value(name, **env):
    result = subprocess.run(
        [sys.executable, "-c", f"from rlscaling import settings; print(settings.{name})"],
        cwd=ROOT, env=clean_env(**env), capture_output=True, text=True, check=True,
    )  # fmt: skip
    return result.stdout.strip()


def test_site_url_follows_the_port_in_development_unless_set():
    assert settings_value("SITE_URL") == "http://127.0.0.1:8000"
    assert settings_value("SITE_URL", PORT="8123") == "http://127.0.0.1:8123"
    assert settings_value("SITE_URL", HOST="0.0.0.0", PORT="9000") == "http://127.0.0.1:9000"
    assert settings_value("SITE_URL", PORT="8123", SITE_URL="https://x.example/") == (
        "https://x.example"
    )


def test_each_log_line_is_printed_once():
    code = (
        "import django, logging; django.setup(); "
        "logging.getLogger('django.request').warning('request-marker'); "
        "logging.getLogger('django.utils.autoreload').info('info-marker'); "
        "logging.getLogger('pagecache.caching').warning('app-marker'); "
        "logging.getLogger('django.server').info('server-marker')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        # INFO, so the reloader's line shows at all (tests/ops/test_logging.py: not by default).
        cwd=ROOT, env=clean_env(DEBUG="1", LOG_LEVEL="INFO"), capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    for marker in ("request-marker", "info-marker", "app-marker", "server-marker"):
        assert result.stderr.count(marker) == 1, result.stderr


def children_of(pid):
    """Every process below pid (from /proc), with its command line."""
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == parent:
                child = int(stat.parent.name)
                found[child] = cmdline
                frontier.append(child)
    return found


def test_make_run_serves_beside_a_worker_and_a_kill_stops_them_all(tmp_path):
    """`manage.py devserver` (what `make run` runs): the site answers on the port, with
    `db_worker` beside runserver when the project has a task queue; SIGTERM stops every child."""
    from django.core.management import get_commands

    port = free_port()
    env = clean_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", DUMP_DIR=str(tmp_path / "dumps")
    )
    devserver = subprocess.Popen(
        [sys.executable, "manage.py", "devserver", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        header, page = wait_until_up(f"http://127.0.0.1:{port}/research/", devserver, 300)
        assert "The Art of Scaling" in page
        children = children_of(devserver.pid)
        assert any("runserver" in command for command in children.values())
        has_worker = any("db_worker" in command for command in children.values())
        assert has_worker == ("db_worker" in get_commands())
    finally:
        devserver.terminate()
        devserver.wait(timeout=30)
    time.sleep(0.5)
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()]
