"""With the database gone, readers get a styled 503, API clients a JSON 503, never a traceback;
when it comes back, the same server process recovers without a restart.

The live test starts a throwaway PostgreSQL 15 cluster on 127.0.0.1:54330 (the next free port
up to 54339 if another run holds it) and gunicorn with production settings on a free port
(bench/harness.py, as the benchmark and the soak do), stops and starts the cluster under the
running server, then stops both.
"""

import contextlib
import itertools
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.test import Client
from django.urls import path, reverse

from bench.harness import Server
from core import middleware
from tests.helpers import SilentRedis, token_client

# slow (`make test-all`, CI's slow step): a PostgreSQL cluster of its own, stopped and started.
pytestmark = pytest.mark.slow

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PG_PORTS = range(54330, 54340)  # 54330 unless another run of this suite holds it
TRACEBACK_MARKERS = ["Traceback", 'File "/', "OperationalError", "psycopg", "site-packages"]


# -- the middleware on its own, through the test client ---------------------------------------


def _raise_operational(request):
    raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")


def _raise_interface(request):
    raise InterfaceError("connection already closed")


urlpatterns = [
    path("page-needing-the-db", _raise_operational),
    path("api/v1/papers-needing-the-db", _raise_operational),
    path("closed-connection", _raise_interface),
    path("fine", lambda request: HttpResponse("fine")),
]


@pytest.mark.urls(__name__)
def test_a_database_error_in_a_page_is_a_styled_503():
    response = Client(raise_request_exception=False).get("/page-needing-the-db")
    assert response.status_code == 503
    assert response["Retry-After"]
    page = response.content.decode()
    assert "<main" in page  # the site's base template, not a bare error string
    assert "Temporarily unavailable" in page
    for marker in TRACEBACK_MARKERS:
        assert marker not in page


@pytest.mark.urls(__name__)
def test_a_database_error_in_the_api_is_a_json_503():
    response = Client(raise_request_exception=False).get("/api/v1/papers-needing-the-db")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert "database" in response.json()["detail"]


@pytest.mark.urls(__name__)
def test_a_closed_connection_is_a_503_too():
    response = Client(raise_request_exception=False).get("/closed-connection")
    assert response.status_code == 503


def test_the_500_handler_turns_a_database_error_from_middleware_into_a_503(rf):
    request = rf.get("/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = middleware.handler500(request)
    assert response.status_code == 503


def test_the_500_handler_answers_other_errors_without_a_traceback(rf):
    try:
        raise ValueError("a bug")
    except ValueError:
        page = middleware.handler500(rf.get("/"))
        api = middleware.handler500(rf.get("/api/v1/papers/"))
    assert page.status_code == 500
    assert "a bug" not in page.content.decode()
    assert api.status_code == 500
    assert json.loads(api.content) == {
        "status": 500,
        "code": "server_error",
        "detail": "Internal server error.",
        "errors": {},
    }


# -- the cache away: Redis on a port where nothing listens ------------------------------------

UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "pagecache.backend.ResilientRedisCache",
        "LOCATION": "redis://127.0.0.1:8399/0",  # in this suite's port range; nothing listens
        "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
    },
    "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "outage"},
}


@pytest.mark.django_db
def test_with_redis_down_reads_and_writes_go_on_and_readyz_says_degraded(
    client, settings, editor, caplog
):
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 8399)) == 0:
            pytest.skip("something listens on 127.0.0.1:8399")
    settings.CACHES = UNREACHABLE_REDIS  # Django rebuilds the cache handler on this change

    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["status"] == "degraded"
    assert ready.json()["checks"]["cache"].startswith("error")
    assert ready.json()["checks"]["database"] == "ok"

    anonymous = Client(raise_request_exception=False)
    for url in ("/api/v1/papers/", "/api/v1/schema/", "/research/", "/"):
        assert anonymous.get(url).status_code == 200, url
    api = token_client(editor)
    created = api.post("/api/v1/papers/", {"title": "Written during an outage"}, "json")
    assert created.status_code == 201, created.content
    assert "Redis unreachable" in caplog.text


@pytest.mark.django_db
def test_a_hung_redis_is_asked_once_then_skipped_until_the_retry_time(settings):
    silent = SilentRedis()
    try:
        settings.CACHES = {
            **UNREACHABLE_REDIS,
            "default": {
                **UNREACHABLE_REDIS["default"],
                "LOCATION": f"redis://127.0.0.1:{silent.port}/0",
            },
        }
        settings.CACHE_RETRY_SECONDS = 60
        anonymous = Client(raise_request_exception=False)
        for _ in range(5):
            assert anonymous.get("/api/v1/layers/").status_code == 200
            assert anonymous.get("/bottlenecks/").status_code == 200
        # One request waited for one socket timeout; every later cache call was skipped.
        assert len(silent.accepted) == 1
        from django.core.cache import cache

        assert time.monotonic() < cache._cache.down_until  # marked down, not asked again
    finally:
        silent.close()


# -- the real thing: a PostgreSQL server stopped and started under a running gunicorn ----------


def _free_port(candidates):
    for port in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip(f"no free port in {candidates}")


def _as_postgres(command):
    """initdb and pg_ctl refuse to run as root; run them as the postgres user when we are root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class ThrowawayPostgres:
    """A PostgreSQL cluster in a temporary directory, listening only on 127.0.0.1:port."""

    def __init__(self, port):
        self.port = port
        self.directory = Path(tempfile.mkdtemp(prefix="rlscaling-outage-"))
        self.data = self.directory / "data"
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")

    def run(self, *args):
        subprocess.run(
            _as_postgres([str(PG_BIN / args[0]), *args[1:]]),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
        )

    def init(self):
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")

    def start(self):
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.directory} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        log = self.directory / "server.log"
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(log), "-w", "start")

    def stop(self):
        self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self):
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    @property
    def url(self):
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"


@pytest.fixture
def throwaway_postgres():
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        pytest.skip(f"PostgreSQL server binaries not found in {PG_BIN}")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser to drop to the postgres user")
    cluster = ThrowawayPostgres(_free_port(PG_PORTS))
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def live_server_on(throwaway_postgres):
    """gunicorn with production settings (the shared harness) over the throwaway cluster, with
    persistent connections and the local-memory cache (the cache stays up while the database
    goes)."""
    server = Server(throwaway_postgres.url, workers=2, timeout=30, env={"CONN_MAX_AGE": "600"})
    server.manage("migrate", "--noinput", "-v0", timeout=120)
    with server:
        yield server, throwaway_postgres


def _assert_no_traceback(body):
    text = body.decode(errors="replace")
    for marker in TRACEBACK_MARKERS:
        assert marker not in text, marker


def test_a_stopped_database_gives_503s_and_the_same_processes_recover(live_server_on):
    server, cluster = live_server_on
    pages = ["/", "/research/", "/bottlenecks/"]
    api_paths = [reverse("api:paper-list"), reverse("api:researchnote-list")]
    fresh = itertools.count()

    def uncached(address):
        # A session cookie keeps a request out of the page cache, so the view itself runs
        # (a made-up query parameter no longer does: the cache ignores what a view does not read).
        cookie = {"Cookie": f"sessionid=outage{next(fresh):027d}"}
        return server.get(address, headers=cookie, timeout=15)

    # Up: everything answers, and each worker holds a persistent connection (CONN_MAX_AGE).
    for _ in range(4):
        assert server.get("/readyz").status == 200
        for address in pages + api_paths:
            assert server.get(address).status == 200, address
    workers_before = server.worker_pids()

    cluster.stop()

    for _ in range(4):  # several times, to reach both workers
        ready = server.get("/readyz", timeout=15)
        assert ready.status == 503
        assert ready.json()["checks"]["database"].startswith("error")
        assert ready.json()["checks"]["cache"] == "ok"

        for page in pages:
            response = uncached(page)
            assert response.status == 503, page
            assert response.headers["Content-Type"].startswith("text/html")
            assert b"Temporarily unavailable" in response.body
            assert b"<main" in response.body
            _assert_no_traceback(response.body)
            # An answer already in the page cache may still be served, which is fine.
            assert server.get(page).status in {200, 503}

        for api_path in api_paths:
            response = uncached(api_path)
            assert response.status == 503
            assert response.headers["Content-Type"].startswith("application/json")
            assert "database" in response.json()["detail"]
            _assert_no_traceback(response.body)

        # A session cookie sends the middleware to the database before any view runs.
        response = server.get("/", headers={"Cookie": "sessionid=" + "x" * 32}, timeout=15)
        assert response.status == 503
        _assert_no_traceback(response.body)

        assert server.get("/healthz").status == 200  # alive, just not ready

    cluster.start()

    for _ in range(4):
        assert server.get("/readyz").status == 200
        for address in pages + api_paths:
            assert uncached(address).status == 200, address
    assert server.process.poll() is None
    assert server.worker_pids() == workers_before  # recovered, not restarted
