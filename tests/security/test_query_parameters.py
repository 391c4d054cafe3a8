"""Every query parameter every view declares (pages: `@reads_query`; the API: the parameters
apikit says it reads) refuses a NUL or another control character with a 400 before any
query runs: on PostgreSQL a NUL in a bound string is an error (`/claims/?layer=%00` was a
500), and no parameter of the site means anything with one. Other hostile values are a 4xx
or an answer, never a 5xx."""

import pytest
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pagecache.caching import query_parameters
from rlscaling.api_urls import router
from tests.security.test_bad_input import public_urls

pytestmark = pytest.mark.django_db

CONTROL_VALUES = ["\x00", "a\x00b", "\x1b[31m", "x\x7f"]
HOSTILE_VALUES = ["", "-1", "9" * 40, "NaN", "[]", "💥", "x" * 2000]


def api_urls():
    urls = {}
    for _, viewset, basename in router.registry:
        urls[f"{basename}-list"] = reverse(f"api:{basename}-list")
        target = viewset.queryset.model._default_manager.order_by("pk").first()
        if target is not None and "retrieve" in dir(viewset):
            lookup = getattr(target, viewset.lookup_field, None)
            if lookup is not None:
                urls[f"{basename}-detail"] = reverse(
                    f"api:{basename}-detail", kwargs={viewset.lookup_field: lookup}
                )
    return urls


def declared(url):
    names = query_parameters(RequestFactory().get(url.split("?")[0]))
    return sorted(names or ())


@pytest.fixture
def every_view(demo):
    views = {**public_urls(), **api_urls()}
    # Keep only what answers a plain GET: the parameters are checked against a working page.
    return {name: url for name, url in views.items() if Client().get(url).status_code < 400}


def test_every_view_declares_the_parameters_it_reads(every_view):
    with_parameters = {name for name, url in every_view.items() if declared(url)}
    assert {"evidence:claims", "citations:research-index", "paper-list"} <= with_parameters


def test_the_named_case_claims_layer_nul(demo):
    with CaptureQueriesContext(connection) as queries:
        response = Client().get("/claims/?layer=%00")
    assert not queries.captured_queries
    assert response.status_code == 400
    assert "layer" in response.content.decode()


def test_a_control_character_in_any_declared_parameter_is_a_400_before_any_query(every_view):
    failures = []
    for name, url in sorted(every_view.items()):
        separator = "&" if "?" in url else "?"
        for parameter in declared(url):
            for value in CONTROL_VALUES:
                with CaptureQueriesContext(connection) as queries:
                    response = Client().get(url + separator, {parameter: value})
                if response.status_code != 400 or len(queries):
                    failures.append((name, parameter, value, response.status_code, len(queries)))
    assert not failures, failures[:20]


def test_an_api_nul_answer_is_the_apis_error_body_naming_the_parameter(demo):
    response = Client().get("/api/v1/papers/", {"search": "a\x00b"})
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400 and "search" in body["errors"]


def test_a_control_character_in_a_parameter_name_or_path_is_a_400(demo):
    assert Client().get("/research/", {"q\x00": "x"}).status_code == 400
    assert Client().get("/api/v1/papers/by-doi/10.1000%00x/").status_code in (400, 404)


@pytest.mark.slow
def test_hostile_values_in_every_declared_parameter_are_never_a_server_error(every_view):
    failures = []
    for name, url in sorted(every_view.items()):
        separator = "&" if "?" in url else "?"
        for parameter in declared(url):
            for value in HOSTILE_VALUES:
                response = Client().get(url + separator, {parameter: value})
                if response.status_code >= 500:
                    failures.append((name, parameter, value, response.status_code))
    assert not failures, failures[:20]
