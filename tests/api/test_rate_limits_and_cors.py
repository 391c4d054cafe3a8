"""X-RateLimit-* on every throttled answer, Retry-After on every 429, and CORS for
anonymous reads (django-cors-headers)."""

import json
import os
import time

import pytest
from django.core.cache import caches
from django.test import Client

from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counts():
    for alias in ("default", "local"):
        caches[alias].clear()
    yield
    for alias in ("default", "local"):
        caches[alias].clear()


@pytest.fixture
def tight_rates(settings, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon": "3/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    # The throttles count the requests that reach the API's views; a cached answer skips them
    # (pagecache/caching.py). Off here, so every request reaches the view.
    settings.PAGE_CACHE_SECONDS = 0
    return rates


def rate_headers(response):
    return tuple(int(response[f"X-RateLimit-{name}"]) for name in ("Limit", "Remaining", "Reset"))


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/papers/",
        f"/api/v1/papers/{ART_OF_SCALING}/",
        f"/api/v1/papers/{ART_OF_SCALING}/citations/",
        "/api/v1/layers/",
        "/api/v1/nowhere/",
        "/api/v1/papers/?nonsense=1",
    ],
)
def test_every_throttled_answer_says_where_the_client_stands(demo, tight_rates, url):
    client = Client()
    before = int(time.time())
    seen = [rate_headers(client.get(url)) for _ in range(3)]
    assert [limit for limit, _, _ in seen] == [3, 3, 3]
    assert [remaining for _, remaining, _ in seen] == [2, 1, 0]
    assert all(before + 60 <= reset <= before + 62 for _, _, reset in seen)
    refused = client.get(url)
    assert refused.status_code == 429
    assert rate_headers(refused)[:2] == (3, 0)
    assert 1 <= int(refused["Retry-After"]) <= 61
    assert refused.json()["code"] == "throttled"


def test_answers_from_the_page_cache_skip_the_throttles(demo, tight_rates, settings):
    """A hit costs about what /healthz does, so it is not counted: the throttles bound the
    misses, which are what costs."""
    settings.PAGE_CACHE_SECONDS = 300
    client = Client()
    assert rate_headers(client.get("/api/v1/layers/"))[:2] == (3, 2)
    for _ in range(4):
        hit = client.get("/api/v1/layers/")
        assert hit["X-Page-Cache"] == "hit" and hit.status_code == 200
        assert not hit.has_header("X-RateLimit-Remaining")
    assert rate_headers(client.get("/api/v1/layers/?page=1"))[:2] == (3, 1)  # a miss


def test_the_tightest_throttle_is_the_one_reported(demo, settings, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "token": "2/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    client = Client()
    body = {"username": "nobody", "password": "wrong"}
    first = client.post("/api/v1/auth/token/", body)
    assert rate_headers(first)[:2] == (2, 1)  # the token scope, not the anonymous 1000/hour
    client.post("/api/v1/auth/token/", body)
    refused = client.post("/api/v1/auth/token/", body)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1


def test_a_lockout_429_says_how_long_to_wait(demo, settings):
    from tests.factories import UserFactory

    UserFactory(username="victim", password="right-password-long")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        response = client.post(
            "/api/v1/auth/token/", {"username": "victim", "password": "wrong-password"}
        )
    assert response.status_code == 429
    assert int(response["Retry-After"]) == 3600  # AXES_COOLOFF_TIME, an hour


def test_the_pages_have_no_rate_headers(demo):
    response = Client().get("/")
    assert response.status_code == 200
    assert "X-RateLimit-Limit" not in response


ORIGIN = "https://tools.example"


def test_anonymous_reads_are_open_to_any_origin(demo):
    client = Client()
    response = client.get("/api/v1/papers/", HTTP_ORIGIN=ORIGIN)
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    exposed = response["Access-Control-Expose-Headers"].lower()
    for header in ("x-ratelimit-remaining", "retry-after", "etag", "link"):
        assert header in exposed
    hit = client.get("/api/v1/papers/", HTTP_ORIGIN=ORIGIN)
    assert hit["X-Page-Cache"] == "hit"
    assert hit["Access-Control-Allow-Origin"] == "*"


def preflight(path, method, headers):
    """A browser's CORS preflight for `method` with `headers`; (answer, allowed methods)."""
    response = Client().options(
        path,
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS=headers,
    )
    assert response.status_code == 200
    return response, {m.strip() for m in response["Access-Control-Allow-Methods"].split(",")}


def test_a_preflight_allows_reads_only_and_no_credentials(demo):
    response, methods = preflight("/api/v1/papers/", "GET", "if-none-match")
    assert methods == {"GET", "HEAD", "OPTIONS"}
    allowed = response["Access-Control-Allow-Headers"].lower()
    assert "if-none-match" in allowed
    assert "authorization" not in allowed and "x-csrftoken" not in allowed
    assert "Access-Control-Allow-Credentials" not in response


def test_a_json_batch_lookup_passes_its_preflight_and_is_readable(demo):
    """The batch lookup is a read sent by POST with a JSON body (as the API docs say): a
    browser's preflight for it allows POST and Content-Type, and the answer is readable."""
    answer, methods = preflight("/api/v1/papers/batch/", "POST", "content-type")
    assert "POST" in methods
    assert "content-type" in answer["Access-Control-Allow-Headers"].lower()
    assert "authorization" not in answer["Access-Control-Allow-Headers"].lower()
    assert "Access-Control-Allow-Credentials" not in answer

    answer = Client().post(
        "/api/v1/papers/batch/",
        data=json.dumps({"ids": ["ARXIV:2510.13786"]}),
        content_type="application/json",
        HTTP_ORIGIN=ORIGIN,
    )
    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == "*"
    assert answer.json()["results"][0]["slug"] == ART_OF_SCALING


def test_only_the_batch_lookup_is_read_by_post(demo):
    """Every other API path's preflight still allows reads only, and a cross-origin POST's
    answer elsewhere carries no CORS header."""
    answer, methods = preflight("/api/v1/papers/", "POST", "content-type")
    assert "POST" not in methods
    assert "content-type" not in answer["Access-Control-Allow-Headers"].lower()
    write = Client().post(
        "/api/v1/papers/", data="{}", content_type="application/json", HTTP_ORIGIN=ORIGIN
    )
    assert write.status_code in {401, 403}
    assert "Access-Control-Allow-Origin" not in write


def test_cross_origin_writes_are_not_opened(demo, editor):
    # A form post needs no preflight, and a browser may send the editor's cookie with it:
    # the session's CSRF check refuses it, and no credentialed answer is readable.
    enforced = Client(enforce_csrf_checks=True)
    enforced.force_login(editor)
    response = enforced.post("/api/v1/layers/", {"slug": "x", "name": "X"}, HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 403
    assert "Access-Control-Allow-Credentials" not in response


def test_the_site_pages_get_no_cors_headers(demo):
    response = Client().get("/", HTTP_ORIGIN=ORIGIN)
    assert "Access-Control-Allow-Origin" not in response


def test_the_schema_documents_the_headers(anon):
    schema = anon.get("/api/v1/schema/").json()
    listing = schema["paths"]["/api/v1/papers/"]["get"]["responses"]
    assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= set(
        listing["200"]["headers"]
    )
    assert "Retry-After" in listing["429"]["headers"]


# Only the Redis server REDIS_URL names (a default run uses none); each test's keys are under a
# fresh prefix and deleted afterwards.
REDIS_URL = os.environ.get("REDIS_URL", "")
redis_only = pytest.mark.skipif(not REDIS_URL, reason="needs a Redis server: set REDIS_URL")


@redis_only
def test_on_redis_an_anonymous_api_read_costs_one_throttle_round_trip(
    demo, tight_rates, monkeypatch
):
    """Issue 15 (a cheaper throttle): DRF's throttle reads and writes back the list of every
    request's time (two round trips per throttle, two throttles for an anonymous client); now
    the anonymous rate alone counts, with INCR/EXPIRE NX/PTTL in one pipeline."""
    import secrets

    import redis

    from apikit.throttles import AnonRateThrottle, UserRateThrottle
    from pagecache.backend import ResilientRedisCache, ResilientRedisCacheClient

    prefix = f"throttle-test-{secrets.token_hex(4)}"
    shared = ResilientRedisCache(REDIS_URL, {"KEY_PREFIX": prefix})
    for throttle in (AnonRateThrottle, UserRateThrottle):
        monkeypatch.setattr(throttle, "cache", shared)
    calls = []
    for name in ("get", "set", "get_many", "incr"):
        original = getattr(ResilientRedisCacheClient, name)
        monkeypatch.setattr(
            ResilientRedisCacheClient,
            name,
            lambda self, *a, _name=name, _original=original, **k: (
                calls.append(_name),
                _original(self, *a, **k),
            )[1],
        )
    executed = []
    execute = redis.client.Pipeline.execute
    monkeypatch.setattr(
        redis.client.Pipeline, "execute", lambda self, **k: executed.append(1) or execute(self, **k)
    )
    client = Client()
    before = int(time.time())
    try:
        seen = [rate_headers(client.get("/api/v1/layers/?page=1")) for _ in range(3)]
        assert [remaining for _, remaining, _ in seen] == [2, 1, 0]
        assert all(before + 59 <= reset <= before + 62 for _, _, reset in seen)
        assert len(executed) == 3 and calls == []  # one pipeline per request, nothing else
        refused = client.get("/api/v1/layers/?page=1")
        assert refused.status_code == 429
        assert 1 <= int(refused["Retry-After"]) <= 60
    finally:
        raw = shared._cache.get_client(write=True)
        if keys := raw.keys(f"{prefix}:*"):  # this test's keys only (others share the database)
            raw.delete(*keys)


@pytest.fixture
def redis_default_cache(settings):
    """The shared cache on Redis (a database of its own, keys under a fresh prefix), as in
    production: the page cache and the throttles both use it."""
    import secrets

    prefix = f"one-trip-test-{secrets.token_hex(4)}"
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "pagecache.backend.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        },
    }
    yield caches["default"]
    raw = caches["default"]._cache.get_client(write=True)
    if keys := raw.keys(f"{prefix}:*"):
        raw.delete(*keys)


def count_redis_round_trips(monkeypatch, noted=lambda command: command[0]):
    """Every command sent to Redis outside a pipeline (its name, or what `noted` takes of its
    words), and every pipeline (one each, "pipeline")."""
    import redis

    trips = []
    send = redis.Redis.execute_command
    monkeypatch.setattr(
        redis.Redis,
        "execute_command",
        lambda self, *a, **k: trips.append(noted(a)) or send(self, *a, **k),
    )
    execute = redis.client.Pipeline.execute
    monkeypatch.setattr(
        redis.client.Pipeline,
        "execute",
        lambda self, **k: trips.append("pipeline") or execute(self, **k),
    )
    return trips


@redis_only
def test_on_redis_a_cached_api_answer_is_one_round_trip(
    demo, tight_rates, redis_default_cache, monkeypatch, settings
):
    """A hit reads the generation and the entry in one MGET and counts no throttle."""
    settings.PAGE_CACHE_SECONDS = 300
    client = Client()
    url = "/api/v1/layers/?page=1"
    stored = client.get(url)
    assert not stored.has_header("X-Page-Cache") and rate_headers(stored)[1] == 2
    trips = count_redis_round_trips(monkeypatch)
    assert client.get(url)["X-Page-Cache"] == "hit"
    assert trips == ["MGET"]


@redis_only
def test_on_redis_a_cached_page_is_one_round_trip(demo, redis_default_cache, monkeypatch):
    client = Client()
    client.get("/research/")
    trips = count_redis_round_trips(monkeypatch)
    assert client.get("/research/")["X-Page-Cache"] == "hit"
    assert trips == ["MGET"]


@redis_only
def test_on_redis_a_page_miss_stores_in_two_round_trips(demo, redis_default_cache, monkeypatch):
    """A miss that is kept counts the client's stores (PAGE_CACHE_STORES_PER_MINUTE) in one
    pipeline, then SETs the page: before, the count was an ADD and an INCR of their own."""
    client = Client()
    client.get("/claims/")
    client.get("/claims/?status=reported")
    trips = count_redis_round_trips(monkeypatch)
    assert not client.get("/claims/?status=contested").has_header("X-Page-Cache")
    assert trips[0] == "MGET" and trips[-2:] == ["pipeline", "SET"]
    assert "INCR" not in trips


@redis_only
def test_on_redis_with_the_page_cache_off_a_page_writes_nothing(
    demo, redis_default_cache, settings, monkeypatch
):
    """PAGE_CACHE_SECONDS=0: nothing is stored, so nothing is counted or written either (a SET
    that expires at once is a DEL on Redis)."""
    settings.PAGE_CACHE_SECONDS = 0
    client = Client()
    client.get("/claims/?status=reported")
    trips = count_redis_round_trips(monkeypatch)
    assert client.get("/claims/?status=reported").status_code == 200
    assert trips[0] == "MGET"  # the look-up; then what the page reads below the page cache
    assert not {"SET", "DEL", "EXISTS", "INCRBY", "pipeline"} & set(trips)


@redis_only
def test_on_redis_the_cache_builds_no_client_per_call(demo, redis_default_cache, monkeypatch):
    """Django's Redis cache builds a redis.Redis for every call (~0.15 ms of Python each, its
    table of reply parsers): one per connection pool serves them all (redis-py's clients are
    safe to share between threads)."""
    import redis

    client = Client()
    client.get("/claims/")
    built = []
    init = redis.Redis.__init__
    monkeypatch.setattr(
        redis.Redis, "__init__", lambda self, *a, **k: built.append(1) or init(self, *a, **k)
    )
    url = "/claims/?status=reported"  # a miss (every cache call of a page), then a hit
    assert not client.get(url).has_header("X-Page-Cache")
    assert client.get(url)["X-Page-Cache"] == "hit"
    assert built == []


@redis_only
def test_on_redis_a_page_miss_reads_the_generation_once(demo, redis_default_cache, monkeypatch):
    """A miss reads the generation in the page cache's look-up and nowhere else: nothing
    below the page cache reads it again."""
    hub = f"/papers/{ART_OF_SCALING}/"
    client = Client()
    client.get(hub)
    keys = count_redis_round_trips(monkeypatch, noted=lambda command: command[1])
    assert not client.get(f"{hub}?page=1").has_header("X-Page-Cache")  # a miss
    assert [key for key in keys if key.endswith("page-cache:generation")] == [keys[0]]


def test_exports_feeds_and_the_dump_are_readable_cross_origin(demo, tmp_path, settings):
    """Reference managers and feed readers in a browser read the files the API's JSON points
    to; the HTML pages stay same-origin."""
    from django.core.management import call_command

    settings.DUMP_DIR = tmp_path
    call_command("export_dump", verbosity=0)
    hub = f"/papers/{ART_OF_SCALING}"
    for url in [
        f"{hub}.bib",
        f"{hub}.ris",
        f"{hub}.json",
        f"{hub}/citing.bib",
        "/research/papers.ris",
        "/papers/feed.atom",
        f"{hub}/citing.atom",
        "/data/dump/latest.zip",
    ]:
        response = Client().get(url, HTTP_ORIGIN=ORIGIN)
        assert response.status_code == 200, url
        assert response["Access-Control-Allow-Origin"] == "*", url
        assert "Access-Control-Allow-Credentials" not in response, url
        if response.streaming:
            # Read to the end, which closes the dump's file. Not response.close(): that sends
            # request_finished, whose handler closes the test's database connection.
            b"".join(response.streaming_content)
    assert "Access-Control-Allow-Origin" not in Client().get(f"{hub}/", HTTP_ORIGIN=ORIGIN)
