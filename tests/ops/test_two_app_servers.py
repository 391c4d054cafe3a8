"""Two app servers (gunicorn on two ports, as behind a load balancer) sharing one PostgreSQL
and one Redis behave as one site (issue 15): an edit through one is visible at once through
the other, on cached pages and API answers and on uncached ones; after the edit, the pages
the readers keep asking for stay served from the shared cache (hit or, while one request
re-renders a page, its previous copy): each page is rendered once after the edit."""

import contextlib
import os
import secrets
import threading
import time
import urllib.parse

import pytest

from bench.harness import Server, editor_token

# Only the servers the settings name: PostgreSQL from DATABASE_URL (a scratch database on it,
# dropped afterwards) and Redis from REDIS_URL (keys under a fresh prefix, deleted afterwards).
DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
PAPER = "the-art-of-scaling-reinforcement-learning-compute-for-llms"  # the demo hub
WARM = [
    "/",
    "/research/",
    "/research/?sort=oldest",
    f"/papers/{PAPER}/",
    "/bottlenecks/",
    "/tags/",
    "/papers/",
    "/notes/",
    "/feeds/latest.atom",
    "/sitemap.xml",
    "/api/v1/papers/",
    f"/api/v1/papers/{PAPER}/",
    "/api/v1/tags/",
    "/api/v1/citations/",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.postgres_only,
    pytest.mark.skipif(
        not DATABASE_URL.startswith(("postgres://", "postgresql://")),
        reason="two app servers share one PostgreSQL: set DATABASE_URL to a PostgreSQL server",
    ),
    pytest.mark.skipif(not REDIS_URL, reason="two app servers share one Redis: set REDIS_URL"),
]


@contextlib.contextmanager
def scratch_database(prefix):
    """The URL of a new, empty database on DATABASE_URL's server, dropped afterwards."""
    import psycopg

    url = urllib.parse.urlsplit(DATABASE_URL)
    server = url._replace(scheme="postgresql", path="/postgres").geturl()
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    try:
        yield url._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(server, autocommit=True) as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextlib.contextmanager
def redis_prefix(prefix):
    """A fresh key prefix on REDIS_URL; every key under it is deleted afterwards (the page
    cache's generation is stored without an expiry)."""
    import redis

    prefix = f"{prefix}-{secrets.token_hex(4)}"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        try:
            keys = list(client.scan_iter(f"{prefix}:*"))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


def load_warm_set(servers, seconds):
    """Four readers cycling through WARM on both servers for `seconds`: the X-Page-Cache
    answers ("hit" or none)."""
    states, lock, deadline = [], threading.Lock(), time.monotonic() + seconds

    def reader(offset):
        mine, position = [], offset
        while time.monotonic() < deadline:
            server = servers[position % len(servers)]
            response = server.get(WARM[position % len(WARM)])
            assert response.status == 200, (WARM[position % len(WARM)], response.status)
            mine.append(response.headers.get("X-Page-Cache"))
            position += 1
        with lock:
            states.extend(mine)

    threads = [threading.Thread(target=reader, args=(n * 3,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return states


def test_two_app_servers_sharing_postgresql_and_redis_are_one_site():
    with scratch_database("two_servers") as database_url, redis_prefix("two-servers") as prefix:
        shared = {"CACHE_KEY_PREFIX": prefix}
        first = Server(database_url, redis_url=REDIS_URL, workers=1, env=shared)
        second = Server(database_url, redis_url=REDIS_URL, workers=1, env=shared)
        first.manage("migrate", "--noinput", "-v0")
        first.manage("load_demo")
        token = {"Authorization": f"Token {editor_token(first.env, 'two-servers-editor')}"}
        with first, second:
            for server in (first, second):
                for path in WARM:
                    assert server.get(path).status == 200, path
            assert second.get(f"/papers/{PAPER}/").headers.get("X-Page-Cache") == "hit"

            edited = first.request(
                "PATCH",
                f"/api/v1/papers/{PAPER}/",
                {"title": "Retitled on the first server"},
                headers=token,
            )
            assert edited.status == 200, edited.body[:500]
            # Cached before the edit: the second server shows the change at once.
            assert b"Retitled on the first server" in second.get(f"/papers/{PAPER}/").body
            api = second.get(f"/api/v1/papers/{PAPER}/").json()
            assert api["title"] == "Retitled on the first server"
            # Uncached (an editor's session-less token read, never cached) too.
            assert second.get(f"/api/v1/papers/{PAPER}/", headers=token).json()["title"] == (
                "Retitled on the first server"
            )

            second.request(
                "PATCH",
                f"/api/v1/papers/{PAPER}/",
                {"summary": "Edited on the second."},
                headers=token,
            )
            states = load_warm_set([first, second], seconds=5)
            # One rendering per page after the save (shared by both servers); every other
            # request is served from the cache: at any real request rate, far above 90%.
            rendered = states.count(None)
            assert rendered <= len(WARM), (rendered, len(states))
            assert len(states) - rendered == states.count("hit")
