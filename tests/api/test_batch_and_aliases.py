"""Issue 17: batch lookup (`POST /api/v1/papers/batch`) and identifier aliases in the path."""

import pytest
from django.core.cache import caches
from django.test import Client

from citations.identity import PaperIdentifier, Scheme
from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db

BATCH = "/api/v1/papers/batch"


@pytest.fixture(autouse=True)
def fresh_counts():
    caches["default"].clear()
    yield
    caches["default"].clear()


def batch(client, ids, **params):
    query = "&".join(f"{name}={value}" for name, value in params.items())
    return client.post(f"{BATCH}?{query}" if query else BATCH, {"ids": ids}, format="json")


def slugs(response):
    return [row and row["slug"] for row in response.json()["results"]]


def test_mixed_identifiers_answer_in_request_order_with_null_for_unknown(demo, anon):
    paper = PaperFactory(arxiv_id="2401.12345", doi="10.1234/example.5")
    other = PaperFactory(doi="10.48550/arXiv.2402.00001")  # arXiv's DataCite DOI
    kept = PaperFactory()
    PaperIdentifier.objects.create(paper=kept, scheme=Scheme.DOI, value="10.9999/kept")
    ids = [
        ART_OF_SCALING,
        "arxiv:2401.12345",
        "no-such-paper",
        "2401.12345v3",
        "doi:10.1234/EXAMPLE.5",
        "https://doi.org/10.1234/example.5",
        "2402.00001",
        "arXiv:2402.00001",
        "10.48550/arXiv.2402.00001",
        "10.9999/kept",
        "not a slug!",
        "arxiv:garbage",
        "",
        ART_OF_SCALING,
    ]
    response = batch(anon, ids)
    assert response.status_code == 200, response.content
    assert slugs(response) == [
        ART_OF_SCALING,
        paper.slug,
        None,
        paper.slug,
        paper.slug,
        paper.slug,
        other.slug,
        other.slug,
        other.slug,
        kept.slug,
        None,
        None,
        None,
        ART_OF_SCALING,
    ]
    full = anon.get(f"/api/v1/papers/{ART_OF_SCALING}/").json()
    first = response.json()["results"][0]
    assert {k: v for k, v in first.items() if k != "html_url"} == {
        k: v for k, v in full.items() if k != "html_url"
    }


def test_drafts_are_unknown_to_the_public_and_found_for_editors(demo, anon, editor_api):
    draft = PaperFactory(draft=True, arxiv_id="2403.00002")
    ids = [draft.slug, "arxiv:2403.00002", ART_OF_SCALING]
    assert slugs(batch(anon, ids)) == [None, None, ART_OF_SCALING]
    assert slugs(batch(editor_api, ids)) == [draft.slug, draft.slug, ART_OF_SCALING]


def test_old_slugs_name_the_renamed_paper(demo, anon):
    paper = PaperFactory(slug="old-name")
    paper.slug = "new-name"
    paper.save()
    assert slugs(batch(anon, ["old-name"])) == ["new-name"]


def test_more_than_500_is_a_400_and_500_is_fine(demo, anon, django_assert_max_num_queries):
    assert batch(anon, ["x"] * 501).status_code == 400
    assert "500" in str(batch(anon, ["x"] * 501).json()["errors"])
    ids = [p.slug for p in Paper.objects.published()] * 10
    ids += [f"arxiv:24{n:02d}.{n:05d}" for n in range(100)] + [f"doi:10.1/{n}" for n in range(50)]
    ids = ids[:500]
    with django_assert_max_num_queries(12):
        response = batch(anon, ids)
    assert response.status_code == 200
    assert len(response.json()["results"]) == len(ids)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"ids": []},
        {"ids": "x"},
        {"ids": [["x"]]},
        {"ids": [{"a": 1}]},
        [],
        {"ids": ["x\x00y"]},
    ],
)
def test_a_bad_body_is_a_400(demo, anon, body):
    assert anon.post(BATCH, body, format="json").status_code == 400


def test_a_lone_surrogate_names_no_paper(demo):
    body = b'{"ids": ["10.1234/example.5\\udc80", "2510.13786\\ud800"]}'
    response = Client().post(BATCH, body, content_type="application/json")
    assert response.status_code in (200, 400)  # never a 500 (PostgreSQL cannot store it)
    if response.status_code == 200:
        assert response.json()["results"] == [None, None]


def test_anonymous_needs_no_csrf_token_and_the_slash_form_works(demo):
    client = Client(enforce_csrf_checks=True)
    response = client.post(BATCH, {"ids": [ART_OF_SCALING]}, content_type="application/json")
    assert response.status_code == 200
    response = client.post(f"{BATCH}/", {"ids": [ART_OF_SCALING]}, content_type="application/json")
    assert response.status_code == 200


def test_fields_narrow_each_paper(demo, anon):
    response = batch(anon, [ART_OF_SCALING, "nope"], fields="slug,title")
    assert response.json()["results"] == [
        {"slug": ART_OF_SCALING, "title": Paper.objects.get(slug=ART_OF_SCALING).title},
        None,
    ]
    assert batch(anon, [ART_OF_SCALING], fields="secret").status_code == 400
    assert batch(anon, [ART_OF_SCALING], page=2).status_code == 400


def test_batch_is_throttled(demo, settings, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "batch": "2/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    client = Client()
    for remaining in (1, 0):
        response = client.post(BATCH, {"ids": ["x"]}, content_type="application/json")
        assert response["X-RateLimit-Remaining"] == str(remaining)
    refused = client.post(BATCH, {"ids": ["x"]}, content_type="application/json")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1


def test_a_batch_by_an_editor_does_not_flush_the_page_cache(demo, editor_api):
    from pagecache.caching import current_generation

    before = current_generation()
    assert batch(editor_api, [ART_OF_SCALING]).status_code == 200
    assert current_generation() == before


def test_the_batch_is_in_the_schema(anon):
    schema = anon.get("/api/v1/schema/").json()
    operation = schema["paths"]["/api/v1/papers/batch"]["post"]
    assert {p["name"] for p in operation["parameters"]} >= {"fields", "omit"}
    assert "/api/v1/papers/batch/" not in schema["paths"]


# -- aliases in the path ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "alias",
    [
        "arxiv:2401.12345",
        "arXiv:2401.12345v2",
        "doi:10.1234/Example.5",
        "DOI:10.1234/example.5",
    ],
)
def test_identifier_aliases_redirect_to_the_paper(demo, anon, alias):
    paper = PaperFactory(arxiv_id="2401.12345", doi="10.1234/example.5")
    response = anon.get(f"/api/v1/papers/{alias}/?fields=slug")
    assert response.status_code == 302
    assert response["Location"] == f"/api/v1/papers/{paper.slug}/?fields=slug"
    assert anon.get(response["Location"]).json() == {"slug": paper.slug}


def test_the_datacite_doi_alias_names_the_arxiv_paper(demo, anon):
    response = anon.get("/api/v1/papers/doi:10.48550/arXiv.2510.13786/")
    assert response.status_code == 302
    assert response["Location"] == f"/api/v1/papers/{ART_OF_SCALING}/"


def test_unknown_malformed_and_draft_aliases(demo, anon, editor_api):
    draft = PaperFactory(draft=True, arxiv_id="2403.00009")
    assert anon.get("/api/v1/papers/arxiv:2403.00009/").status_code == 404
    assert editor_api.get("/api/v1/papers/arxiv:2403.00009/")["Location"].endswith(
        f"/{draft.slug}/"
    )
    assert anon.get("/api/v1/papers/arxiv:1999.99999/").status_code == 404
    bad = anon.get("/api/v1/papers/arxiv:not-an-id/")
    assert bad.status_code == 400 and "identifier" in bad.json()["errors"]
    assert anon.get("/api/v1/papers/doi:nonsense/").status_code == 400
    assert anon.get("/api/v1/papers/arxiv:2403.00009/?bogus=1").status_code == 400


def test_the_schema_allows_the_nulls_the_answers_carry(anon):
    """Found by `make fuzz`: a batch answers null for an unknown identifier, and the hub lists
    unclassified edges (role and polarity null); the schema must allow both."""
    components = anon.get("/api/v1/schema/").json()["components"]["schemas"]
    items = components["BatchResponse"]["properties"]["results"]["items"]
    # OpenAPI 3.0: null is a branch with a type of its own (a `nullable` beside a bare allOf
    # declares nothing; see tests/api/test_generated_client.py).
    assert items["oneOf"][0] == {"$ref": "#/components/schemas/Paper"}
    assert items["oneOf"][1]["nullable"] is True and items["oneOf"][1]["enum"] == [None]
    for name in ("role", "polarity"):
        assert components["HubCitation"]["properties"][name]["nullable"] is True
