"""Every public page declares the query parameters it reads (`@reads_query`), so the page cache
keys it on those and a made-up parameter (`?utm_source=`) is served the cached page instead of
making the view render again (issue 11, point 3)."""

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from pagecache import caching
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


def public_patterns(patterns=None, prefix=""):
    """(route, callback) of every URL outside the admin, the API and the health checks."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(("api/", "healthz", "readyz")) or "admin" in route:
            continue
        if isinstance(entry, URLResolver):
            yield from public_patterns(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.callback


def test_every_public_page_declares_the_parameters_it_reads():
    undeclared = [
        route
        for route, view in public_patterns()
        if getattr(view, "query_parameters", None) is None
    ]
    assert undeclared == [], (
        "Declare the query parameters these views read with @reads_query(...) "
        "(pagecache/caching.py); the page cache ignores every other parameter."
    )


@pytest.mark.parametrize(
    "path",
    [
        "/papers/",
        "/notes/",
        "/tags/",
        "/claims/",
        "/bottlenecks/",
        "/sitemap.xml",
        f"/papers/{ART_OF_SCALING}.bib",
    ],
)
def test_a_made_up_parameter_is_served_the_cached_page(demo, path):
    client = Client()
    assert client.get(path).status_code == 200
    response = client.get(f"{path}?utm_source=newsletter")
    assert response.status_code == 200
    assert response["X-Page-Cache"] == "hit"


def test_the_parameters_a_browse_page_reads_make_their_own_entry(demo):
    client = Client()
    by_title = client.get("/papers/?sort=title")
    assert client.get("/papers/?sort=title&utm_source=x")["X-Page-Cache"] == "hit"
    default = client.get("/papers/")
    assert default.get("X-Page-Cache") != "hit"
    assert default.content != by_title.content


def test_the_declared_parameters_of_a_form_page_are_its_fields(rf):
    names = caching.query_parameters(rf.get("/diagnose/?signal=x"))
    assert {"signal", "task_family", "layer"} <= names
