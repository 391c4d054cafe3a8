"""The page cache against hostile requests (issue 11, points 2 and 3): a forged Host never
reaches other clients, a disallowed host is never stored or served, parameters a view does not
read make no new entries, and one client can add only so many."""

import pytest
from django.core.cache import cache
from django.test import Client

from pagecache import caching
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


def page_keys():
    """The page entries in the (local-memory) test cache."""
    return [key for key in cache._cache if f":{caching.KEY_PREFIX}:" in key]


def test_a_forged_host_does_not_poison_what_other_clients_get(demo, settings):
    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1", "127.0.0.1:6666"]
    forged = Client(headers={"host": "127.0.0.1:6666"}).get("/api/v1/notes/?page_size=1")
    assert forged.status_code == 200
    assert "127.0.0.1:6666" in forged.json()["next"]

    honest = Client().get("/api/v1/notes/?page_size=1")
    assert honest.status_code == 200
    body = honest.content.decode()
    assert "6666" not in body
    assert honest.json()["next"].startswith("http://testserver/")
    assert honest.json()["results"][0]["api_url"].startswith("http://testserver/")


def test_a_disallowed_host_is_neither_served_from_nor_stored_in_the_cache(demo):
    warm = Client().get("/api/v1/papers/")
    assert warm.status_code == 200
    assert Client().get("/api/v1/papers/")["X-Page-Cache"] == "hit"
    stored = len(page_keys())

    evil = Client(headers={"host": "evil.example:6666"})
    for path in ("/api/v1/papers/", "/", "/api/v1/layers/"):
        response = evil.get(path)
        assert response.status_code == 400, path
        assert "X-Page-Cache" not in response
    assert len(page_keys()) == stored


def test_the_scheme_is_part_of_the_key(demo):
    plain = Client().get("/api/v1/notes/")
    secure = Client().get("/api/v1/notes/", secure=True)
    assert plain.json()["results"][0]["api_url"].startswith("http://")
    assert secure.json()["results"][0]["api_url"].startswith("https://")


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/research/",
        f"/papers/{ART_OF_SCALING}/",
        "/feeds/latest.atom",
    ],
)
def test_parameters_the_view_does_not_read_make_no_new_entries(demo, path):
    client = Client()
    joiner = "&" if "?" in path else "?"
    assert client.get(f"{path}{joiner}utm_source=first").status_code == 200
    assert page_keys() == []  # an answer to a request with made-up parameters is not stored
    assert client.get(path).status_code == 200
    entries = len(page_keys())
    for value in range(20):
        response = client.get(f"{path}{joiner}utm_source=random{value}&fbclid={value}")
        assert response.status_code == 200
        assert response["X-Page-Cache"] == "hit"
        assert b"random" not in response.content  # dropped params never show in links
    assert len(page_keys()) == entries


@pytest.mark.parametrize(
    "path", ["/api/v1/papers/", f"/api/v1/papers/{ART_OF_SCALING}/citations/?role=method"]
)
def test_the_api_refuses_parameters_it_does_not_read_even_with_a_warm_cache(demo, path):
    client = Client()
    joiner = "&" if "?" in path else "?"
    assert client.get(path).status_code == 200
    assert client.get(path)["X-Page-Cache"] == "hit"
    entries = len(page_keys())
    for value in range(5):
        response = client.get(f"{path}{joiner}utm_source=random{value}")
        assert response.status_code == 400  # the API is strict (apikit/params.py)
        assert "X-Page-Cache" not in response
    assert len(page_keys()) == entries


def test_parameters_the_view_reads_still_make_their_own_entries(demo):
    client = Client()
    newest = client.get("/research/?sort=newest")
    oldest = client.get("/research/?sort=oldest")
    assert newest.content != oldest.content
    assert client.get("/research/?utm_campaign=y&sort=oldest")["X-Page-Cache"] == "hit"
    first = client.get("/api/v1/papers/?page_size=1")
    assert len(first.json()["results"]) == 1
    narrow = client.get("/api/v1/papers/?page_size=1&fields=slug")
    assert narrow.get("X-Page-Cache") is None  # its own entry, not the full answer's
    assert list(narrow.json()["results"][0]) == ["slug"]
    assert client.get("/api/v1/papers/?page_size=1&fields=slug")["X-Page-Cache"] == "hit"


def test_a_view_with_unknown_parameters_is_not_cached_with_a_query_string(demo, rf):
    request = rf.get("/nowhere/?a=1")
    assert caching.query_parameters(request) is None
    assert caching.normalise_query(request) is None


@pytest.fixture
def one_minute(monkeypatch):
    """The per-client limit counts per clock minute: keep the test inside one."""
    monkeypatch.setattr(caching.time, "time", lambda: 1_800_000_000.0)


def test_one_client_can_add_only_so_many_pages(demo, settings, one_minute):
    settings.PAGE_CACHE_STORES_PER_MINUTE = 5
    greedy = Client(REMOTE_ADDR="10.0.0.1")
    for value in range(12):
        assert greedy.get(f"/api/v1/papers/?search=word{value}").status_code == 200
    assert len(page_keys()) == 5
    # Another client still gets its pages cached.
    other = Client(REMOTE_ADDR="10.0.0.2")
    other.get("/api/v1/layers/")
    assert other.get("/api/v1/layers/")["X-Page-Cache"] == "hit"


def test_an_invented_forwarded_for_does_not_reset_the_per_client_limit(demo, settings, one_minute):
    settings.PAGE_CACHE_STORES_PER_MINUTE = 3
    for value in range(8):
        Client(REMOTE_ADDR="10.0.0.3", headers={"x-forwarded-for": f"192.0.2.{value}"}).get(
            f"/api/v1/papers/?search=w{value}"
        )
    assert len(page_keys()) == 3


def test_an_overlong_query_string_is_not_cached(demo):
    client = Client()
    client.get("/api/v1/papers/?search=" + "x" * 600)
    assert page_keys() == []


def test_an_answer_over_the_entry_bound_is_served_but_never_stored(demo, settings):
    """One oversized page (a huge abstract, once per filter variant) must not fill the cache."""
    small = Client().get("/api/v1/layers/")
    assert small.status_code == 200
    settings.PAGE_CACHE_MAX_ENTRY_BYTES = len(small.content) - 1
    cache.clear()

    for _ in range(2):
        response = Client().get("/api/v1/layers/")
        assert response.status_code == 200
        assert response.content == small.content
        assert response.get("X-Page-Cache") != "hit"
    assert page_keys() == []

    settings.PAGE_CACHE_MAX_ENTRY_BYTES = len(small.content)
    Client().get("/api/v1/layers/")
    assert Client().get("/api/v1/layers/")["X-Page-Cache"] == "hit"
