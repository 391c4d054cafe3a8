"""`/api/v1/claims/`: filterable by layer, paper and evidence status; drafts never visible."""

import pytest

from bottlenecks.models import Layer
from evidence.models import Claim
from tests.factories import ClaimFactory, LayerFactory, PaperFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo")]

CLAIMS = "/api/v1/claims/"
CLAIMS_QUERY_CEILING = 9
BATCHES = "when-do-larger-batches-help-scale-llm-reinforcement-learning"


def slugs(response):
    return [row["slug"] for row in response.json()["results"]]


def test_claims_list_shows_each_claim_with_its_evidence(anon):
    response = anon.get(CLAIMS, {"page_size": 100})
    assert response.status_code == 200
    assert response.json()["count"] == Claim.objects.published().count()
    claim = next(
        row
        for row in response.json()["results"]
        if row["slug"] == "batch-2-29x-generation-throughput"
    )
    assert claim["figure"] == "2.29×"
    assert claim["evidence_status"] == "reported"
    assert claim["layers"] == ["compute", "rollouts"]
    assert claim["papers"] == [BATCHES]
    assert claim["notes"] == [BATCHES]
    assert claim["html_url"].endswith("/claims/#claim-batch-2-29x-generation-throughput")
    assert claim["api_url"].endswith(f"{CLAIMS}batch-2-29x-generation-throughput/")


def test_claims_are_listed_strongest_evidence_first(anon):
    ClaimFactory(slug="a-reproduced-one", evidence_status="reproduced", reproduced_by="Lab")
    ClaimFactory(slug="a-contested-one", evidence_status="contested")
    rows = anon.get(CLAIMS, {"page_size": 100}).json()["results"]
    statuses = [row["evidence_status"] for row in rows]
    order = ["reproduced", "reported", "contested", "superseded"]
    assert statuses == sorted(statuses, key=order.index)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"layer": "evaluation"}, {"rlvr-67-percent-coverage-fall", "zaya1-91-9-percent-aime25"}),
        (
            {"paper": BATCHES},
            {"batch-2-29x-generation-throughput", "batch-29-percent-time-to-target"},
        ),
        ({"evidence_status": "reproduced"}, set()),
    ],
)
def test_claims_filter_by_layer_paper_and_status(anon, query, expected):
    response = anon.get(CLAIMS, {**query, "page_size": 100})
    assert response.status_code == 200
    found = set(slugs(response))
    assert expected <= found if expected else found == set()


@pytest.mark.parametrize(
    "query", [{"layer": "no-such-layer"}, {"paper": "no-such-paper"}, {"evidence_status": "true"}]
)
def test_bad_claim_filters_are_a_400_with_the_error_body(anon, query):
    response = anon.get(CLAIMS, query)
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400 and list(query) == list(body["errors"])


def test_drafts_never_show_in_the_claims_api(anon, editor_api):
    draft = ClaimFactory(draft=True, slug="draft-claim")
    public = ClaimFactory(slug="public-claim", evidence_status="superseded", superseded_by=draft)
    public.papers.add(PaperFactory(draft=True, slug="draft-paper"))
    public.layers.add(LayerFactory(draft=True, slug="draft-layer"))
    assert "draft-claim" not in slugs(anon.get(CLAIMS, {"page_size": 100}))
    assert anon.get(f"{CLAIMS}draft-claim/").status_code == 404
    row = anon.get(f"{CLAIMS}public-claim/").json()
    assert row["papers"] == [] and row["layers"] == [] and row["superseded_by"] is None
    # A draft paper or layer is no filter value for the public either.
    assert anon.get(CLAIMS, {"paper": "draft-paper"}).status_code == 400
    # Editors see draft claims; nested lists name published rows only, as on every resource.
    assert "draft-claim" in slugs(editor_api.get(CLAIMS, {"status": "draft", "page_size": 100}))
    assert editor_api.get(f"{CLAIMS}draft-claim/").status_code == 200
    assert editor_api.get(f"{CLAIMS}public-claim/").json()["papers"] == []


def test_the_claims_api_is_read_only(editor_api):
    response = editor_api.post(CLAIMS, {"slug": "x", "statement": "x"}, format="json")
    assert response.status_code == 405


def test_claims_list_query_count_does_not_grow(anon, django_assert_max_num_queries):
    layer = Layer.objects.get(slug="compute")
    for _ in range(60):
        claim = ClaimFactory()
        claim.layers.add(layer, LayerFactory())
        claim.papers.add(PaperFactory())
    for page_size in [5, 50]:
        with django_assert_max_num_queries(CLAIMS_QUERY_CEILING):
            assert anon.get(CLAIMS, {"page_size": page_size}).status_code == 200
