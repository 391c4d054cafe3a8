"""Issue 17: unknown query parameters are a 400 with a suggestion on the API (the pages stay
lenient); every parameter an endpoint reads is in the OpenAPI schema."""

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from apikit.params import parameters_for_view, view_query_parameters
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "typo", "suggestion"),
    [
        ("/api/v1/papers/", "serach=grpo", "search"),
        ("/api/v1/papers/", "orderng=title", "ordering"),
        ("/api/v1/papers/", "tags=grpo", "tag"),
        ("/api/v1/citations/", "rol=method", "role"),
        ("/api/v1/notes/", "feilds=slug", "fields"),
        ("/api/v1/layers/", "page_sise=2", "page_size"),
        (f"/api/v1/papers/{ART_OF_SCALING}/", "omitt=abstract", "omit"),
        (f"/api/v1/papers/{ART_OF_SCALING}/citations/", "polarty=supports", "polarity"),
        ("/api/v1/claims/", "evidence=reproduced", "evidence_status"),
        ("/api/v1/schema/", "lnag=en", "lang"),
    ],
)
def test_an_unknown_parameter_is_a_400_with_a_suggestion(demo, anon, url, typo, suggestion):
    response = anon.get(f"{url}?{typo}")
    assert response.status_code == 400
    body = response.json()
    name = typo.split("=")[0]
    assert body["code"] == "invalid"
    message = body["errors"][name][0]
    assert f"Did you mean “{suggestion}”?" in message
    assert suggestion in message.split("This endpoint reads:")[1]


def test_nothing_close_is_still_refused_and_lists_what_is_read(demo, anon):
    response = anon.get("/api/v1/layers/?utm_source=newsletter")
    assert response.status_code == 400
    message = response.json()["errors"]["utm_source"][0]
    assert "Did you mean" not in message
    assert "page_size" in message and "search" in message


def test_known_parameters_are_accepted(demo, anon):
    url = (
        "/api/v1/papers/?search=scaling&ordering=title&page_size=2&tag=grpo&year=2025"
        "&publication_date_after=2020-01-01&format=json&fields=slug"
    )
    assert anon.get(url).status_code == 200


def test_writes_refuse_the_parameters_only_reads_have(editor_api):
    response = editor_api.post("/api/v1/layers/?fields=slug", {"name": "x"}, format="json")
    assert response.status_code == 400
    assert "fields" in response.json()["errors"]


def test_pages_stay_lenient(demo):
    client = Client()
    for url in ("/", "/research/", f"/papers/{ART_OF_SCALING}/", "/api/v1/docs/"):
        assert client.get(f"{url}?utm_source=newsletter&fbclid=x").status_code == 200


def api_views():
    """(pattern, view class, actions) for every routed API view."""

    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                cls = getattr(entry.callback, "cls", None)
                if cls is not None and (prefix + str(entry.pattern)).lstrip("^").startswith("api/"):
                    yield prefix + str(entry.pattern), cls, getattr(entry.callback, "actions", None)

    return list(walk(get_resolver().url_patterns))


def test_every_documented_query_parameter_is_one_the_endpoint_reads(anon):
    """The other direction of the rule: the fuzzer sends only documented parameters, and none
    of them may be refused as unknown."""
    schema = anon.get("/api/v1/schema/").json()
    from django.urls import resolve

    for path, operations in schema["paths"].items():
        concrete = path.replace("{slug}", "x").replace("{id}", "1").replace("{arxiv_id}", "1")
        concrete = concrete.replace("{doi}", "10.1/x").replace("{identifier}", "arxiv:1")
        match = resolve(concrete)
        cls = match.func.cls
        actions = getattr(match.func, "actions", None)
        for method, operation in operations.items():
            if method.upper() not in {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}:
                continue
            action = (actions or {}).get(method)
            key = tuple(sorted(actions.items())) if actions else None
            safe = method.upper() in ("GET", "HEAD") or getattr(cls, "post_is_a_read", False)
            known = view_query_parameters(cls, key, safe)
            documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            assert documented <= known, (path, method, action, documented - known)


def test_parameters_for_view_matches_the_routed_actions(rf):
    assert api_views()  # the walk finds the API
    from citations.api.views import PaperViewSet

    view = PaperViewSet()
    view.action_map = {"get": "list", "post": "create"}
    assert {"cursor", "fields", "group_by", "search"} <= parameters_for_view(view, "GET")
    assert "fields" not in parameters_for_view(view, "POST")
    view.action_map = {"get": "retrieve", "put": "update"}
    assert "cursor" not in parameters_for_view(view, "GET")
    assert "group_by" not in parameters_for_view(view, "GET")
