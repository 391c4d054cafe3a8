"""The server harness the benchmark, the soak, `make fuzz` and the outage test share
(bench/harness.py): production settings, a free loopback port, and a stop that leaves no
process behind."""

import os
import re

import pytest

from bench.harness import Server, answers

# slow (`make test-all`, CI's slow step): gunicorn with production settings in subprocesses.
pytestmark = pytest.mark.slow


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path}/harness.sqlite3"


def test_the_server_runs_production_settings_and_stops_with_all_its_workers(sqlite_url):
    server = Server(sqlite_url, workers=2)
    server.manage("migrate", "--noinput", "-v0")
    assert server.env["DJANGO_ENV"] == "production" and "DEBUG" not in server.env

    with server:
        assert server.base_url == f"http://127.0.0.1:{server.port}"
        home = server.get("/")
        assert home.status == 200
        # Production's manifest storage: static files by their hashed names, served by the app.
        stylesheet = re.search(rb'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home.body)
        assert stylesheet, home.body[:500]
        assert server.get(stylesheet.group(1).decode()).status == 200
        # DEBUG off: an unknown address is the site's 404 page, not Django's debug page.
        missing = server.get("/no-such-page/")
        assert missing.status == 404
        assert b"Using the URLconf" not in missing.body
        workers = server.worker_pids()
        assert len(workers) == 2

    assert server.process.poll() is not None
    assert not answers("127.0.0.1", server.port)
    for pid in workers:
        assert not os.path.exists(f"/proc/{pid}") or "Z" in status_of(pid)


def status_of(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(line for line in status if line.startswith("State:"))
    except OSError:
        return "Z (gone)"


def test_two_servers_get_two_ports(sqlite_url):
    first, second = Server(sqlite_url), Server(sqlite_url)
    assert first.port != second.port
    first.stop(), second.stop()  # never started: releases the ports
