"""Issue 17: sparse fieldsets (`fields=`, `omit=`) on every list and detail."""

import pytest

from tests.factories import PaperFactory
from tests.helpers import API_LIST_QUERY_CEILINGS, ART_OF_SCALING

pytestmark = pytest.mark.django_db

LISTS = [url for url, _ in API_LIST_QUERY_CEILINGS]


def rows(body):
    return body.get("results", [body])


@pytest.mark.parametrize("url", LISTS)
def test_fields_keeps_only_the_named_fields_on_every_list(demo, anon, url):
    full = anon.get(url).json()
    first = rows(full)[0]
    names = list(first)[:2]
    narrow = anon.get(url, {"fields": ",".join(reversed(names))})
    assert narrow.status_code == 200
    for row in rows(narrow.json()):
        assert list(row) == names  # the representation's own order
    assert [row[names[0]] for row in rows(narrow.json())] == [row[names[0]] for row in rows(full)]


@pytest.mark.parametrize("url", LISTS)
def test_omit_drops_the_named_fields_on_every_list(demo, anon, url):
    first = rows(anon.get(url).json())[0]
    dropped = list(first)[-1]
    narrow = anon.get(url, {"omit": dropped})
    assert narrow.status_code == 200
    assert list(rows(narrow.json())[0]) == list(first)[:-1]


DETAILS = [
    f"/api/v1/papers/{ART_OF_SCALING}/",
    "/api/v1/papers/by-arxiv/2510.13786/",
    "/api/v1/layers/",
    "/api/v1/analyses/",
    "/api/v1/claims/",
]


@pytest.mark.parametrize("url", DETAILS)
def test_fields_and_omit_on_details(demo, anon, url):
    if url.count("/") == 4:  # a list: its first row's detail
        url = anon.get(url).json()["results"][0]["api_url"]
    full = anon.get(url)
    assert full.status_code == 200, full.content
    names = list(full.json())
    assert list(anon.get(url, {"fields": "slug"}).json()) == ["slug"]
    assert list(anon.get(url, {"omit": "slug"}).json()) == [n for n in names if n != "slug"]
    both = anon.get(url, {"fields": "slug,status,version", "omit": "status"}).json()
    assert list(both) == ["slug", "version"]


def test_unknown_field_names_are_a_400_listing_the_valid_ones(demo, anon):
    response = anon.get("/api/v1/papers/", {"fields": "slug,titel", "omit": "nope"})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "“titel”" in errors["fields"][0] and "title" in errors["fields"][0]
    assert "“nope”" in errors["omit"][0]


def test_a_selection_that_keeps_nothing_is_a_400(demo, anon):
    assert anon.get("/api/v1/layers/", {"fields": "slug", "omit": "slug"}).status_code == 400
    assert anon.get("/api/v1/layers/", {"fields": ""}).status_code == 400


def test_fields_cannot_open_what_the_representation_hides(demo, anon, editor_api):
    """Only names of the serializer built for this user can be chosen: nothing else (model
    fields the API does not show, drafts) is reachable through `fields=`."""
    draft = PaperFactory(draft=True, title="Secret draft")
    for name in ("search_document", "id", "pk", "password", "author_names"):
        assert anon.get("/api/v1/papers/", {"fields": name}).status_code == 400
    assert anon.get(f"/api/v1/papers/{draft.slug}/", {"fields": "slug"}).status_code == 404
    public = anon.get("/api/v1/papers/", {"fields": "slug,status", "page_size": 100}).json()
    assert draft.slug not in str(public)
    assert {row["status"] for row in public["results"]} == {"published"}
    assert editor_api.get(f"/api/v1/papers/{draft.slug}/", {"fields": "slug"}).json() == {
        "slug": draft.slug
    }


def test_writes_answer_in_full(editor_api):
    created = editor_api.post("/api/v1/dimensions/", {"slug": "x", "name": "X"}, format="json")
    assert created.status_code == 201
    assert {"slug", "name", "version"} <= set(created.json())


def test_sparse_answers_have_their_own_etag(demo, anon):
    url = f"/api/v1/papers/{ART_OF_SCALING}/"
    assert anon.get(url)["ETag"] != anon.get(url, {"fields": "slug"})["ETag"]


@pytest.mark.parametrize(
    ("url", "fields", "saved"),
    [
        ("/api/v1/papers/", "slug,title", 3),  # authors, tags and layers not prefetched
        ("/api/v1/notes/", "slug,title", 4),  # figures, tags, papers and layers
        ("/api/v1/claims/", "slug,statement", 4),
    ],
)
def test_narrow_answers_skip_the_prefetches_of_dropped_fields(
    demo, anon, django_assert_num_queries, url, fields, saved
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as full:
        assert anon.get(url).status_code == 200
    with CaptureQueriesContext(connection) as narrow:
        assert anon.get(url, {"fields": fields}).status_code == 200
    assert len(narrow) <= len(full) - saved


@pytest.mark.parametrize(("url", "ceiling"), API_LIST_QUERY_CEILINGS)
def test_sparse_lists_never_cost_more_queries(
    demo, anon, django_assert_max_num_queries, url, ceiling
):
    first = rows(anon.get(url).json())[0]
    for params in ({"fields": list(first)[0]}, {"omit": list(first)[-1]}):
        with django_assert_max_num_queries(ceiling):
            assert anon.get(url, {**params, "page_size": 50}).status_code == 200


def test_the_schema_documents_fields_and_omit_with_the_names(anon):
    schema = anon.get("/api/v1/schema/").json()
    checked = 0
    for path, operations in schema["paths"].items():
        get = operations.get("get")
        if not get or path.startswith(
            ("/api/v1/imports", "/api/v1/results/import", "/api/v1/schema", "/api/v1/changelog")
        ):
            continue
        documented = {p["name"]: p for p in get.get("parameters", []) if p["in"] == "query"}
        assert {"fields", "omit"} <= set(documented), path
        checked += 1
        assert documented["fields"]["explode"] is False
    assert checked >= 28  # every list and detail
    papers = {p["name"]: p for p in schema["paths"]["/api/v1/papers/"]["get"]["parameters"]}
    assert "citing_counts" in papers["fields"]["schema"]["items"]["enum"]
    assert "required" not in schema["components"]["schemas"]["Paper"]
    assert schema["components"]["schemas"]["PaperRequest"]["required"] == ["title"]
