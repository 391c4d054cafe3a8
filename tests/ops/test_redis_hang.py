"""A Redis that accepts connections but never answers, under gunicorn with production settings
(issue 11, point 8): pages, API reads and an editor's API write all answer, `/readyz` says the
cache is degraded, and each worker pays the short socket timeout about once per
CACHE_RETRY_SECONDS (the circuit breaker in pagecache/backend.py), not once per request.

The cost is counted from the server's log (one "Redis unreachable" line per timeout paid), not
timed; the latencies are printed for the record (`pytest -s`)."""

import math
import statistics
import time

import pytest

from bench.harness import Server
from tests.helpers import SilentRedis

# slow (`make test-all`, CI's slow step): gunicorn with production settings in subprocesses.
pytestmark = pytest.mark.slow

PATHS = ["/", "/research/", "/papers/", "/api/v1/papers/", "/api/v1/notes/", "/bottlenecks/"]
RETRY_SECONDS = 2
WORKERS = 2


@pytest.fixture
def server_over_hung_redis(tmp_path):
    hung = SilentRedis()
    server = Server(
        f"sqlite:///{tmp_path}/db.sqlite3",
        redis_url=f"redis://127.0.0.1:{hung.port}/0",
        workers=WORKERS,
        timeout=30,
        env={"LOG_LEVEL": "WARNING", "CACHE_RETRY_SECONDS": str(RETRY_SECONDS)},
    )
    server.manage("migrate", "--noinput", "-v0", timeout=300)
    token = server.manage(
        "shell",
        "--no-imports",
        "-c",
        "from tests.factories import UserFactory; from rest_framework.authtoken.models import "
        "Token; print(Token.objects.create(user=UserFactory(editor=True)).key)",
    ).split()[-1]
    try:
        with server:
            yield server, token
    finally:
        hung.close()


def test_a_hung_redis_costs_one_short_timeout_per_worker_per_retry_window(server_over_hung_redis):
    server, token = server_over_hung_redis
    started = time.monotonic()
    latencies = []
    for round_number in range(6):
        for path in PATHS:
            before = time.monotonic()
            response = server.get(path, timeout=15)
            latencies.append(time.monotonic() - before)
            assert response.status == 200, (path, response.body[:300])
            assert "X-Page-Cache" not in response.headers
        write = server.request(
            "POST",
            "/api/v1/papers/",
            body={"title": f"Written while Redis hangs {round_number}"},
            headers={"Authorization": f"Token {token}"},
        )
        assert write.status == 201, write.body[:300]
    ready = server.get("/readyz")
    assert ready.status == 200
    assert ready.json()["status"] == "degraded"
    elapsed = time.monotonic() - started

    log = server.log_path.read_text(errors="replace")
    timeouts_paid = log.count("Redis unreachable")
    windows = math.ceil(elapsed / RETRY_SECONDS) + 1
    print(
        f"\n{len(latencies)} requests in {elapsed:.1f} s over a hung Redis: "
        f"p50 {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms, "
        f"{timeouts_paid} timeouts paid ({WORKERS} workers, {windows} windows of "
        f"{RETRY_SECONDS} s)"
    )
    assert 1 <= timeouts_paid <= WORKERS * windows
    assert timeouts_paid < len(latencies) / 2  # far fewer than one per request
