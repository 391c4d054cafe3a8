"""`layer=` on /results/, /api/v1/results/ and /api/v1/series/: a run bears on a bottleneck
layer through its paper's layers and the published claims its points carry, the rule the
diagnosis weighs runs by (evidence/diagnosis.py `runs_on_layers`)."""

import pytest
from rest_framework.test import APIClient

from evidence.diagnosis import runs_on_layers
from results.models import Series
from tests.factories import ClaimFactory, LayerFactory, PaperFactory
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs():
    """Runs on the layer `reward` by their paper, by a claim their point carries, and none
    (another layer, a draft claim, a draft run on the layer)."""
    reward, other = LayerFactory(slug="reward"), LayerFactory(slug="other")
    benchmark = BenchmarkFactory(slug="aime")
    by_paper = SeriesFactory(slug="by-paper", benchmark=benchmark, paper=PaperFactory())
    by_paper.paper.layers.add(reward)
    by_claim = SeriesFactory(slug="by-claim", benchmark=benchmark)
    ClaimFactory().results.add(ResultFactory(series=by_claim, value=11.0))
    claim = ClaimFactory()
    claim.layers.add(reward)
    claim.results.add(ResultFactory(series=by_claim, value=12.0))
    off_layer = SeriesFactory(slug="off-layer", benchmark=benchmark)
    off_layer.paper.layers.add(other)
    draft_claim = ClaimFactory(draft=True)
    draft_claim.layers.add(reward)
    draft_claim.results.add(ResultFactory(series=off_layer, value=13.0))
    draft_run = SeriesFactory(slug="secret-draft", benchmark=benchmark, draft=True)
    draft_run.paper.layers.add(reward)
    for series in (by_paper, draft_run):
        ResultFactory(series=series, value=14.0)
    return reward


def test_the_layer_rule_is_the_diagnosis_rule(runs):
    on_layer = set(Series.objects.public().on_layer(runs).values_list("pk", flat=True))
    by_diagnosis = runs_on_layers({runs.pk})
    assert on_layer == set(by_diagnosis)
    assert {s.slug for s in Series.objects.filter(pk__in=on_layer)} == {"by-paper", "by-claim"}


def test_the_results_page_filters_by_layer(client, runs):
    html = client.get("/results/?layer=reward").content.decode()
    assert "#series-by-paper" in html and "#series-by-claim" in html
    assert "#series-off-layer" not in html and "secret-draft" not in html
    assert "3 results" in html  # by-paper's point and both of by-claim's


def test_an_unknown_or_draft_layer_is_a_400_on_the_page(client, runs):
    LayerFactory(slug="hidden", draft=True)
    for slug in ("nowhere", "hidden"):
        response = client.get(f"/results/?layer={slug}")
        assert response.status_code == 400
        assert f"There is no layer “{slug}”" in response.content.decode()


def test_the_api_filters_results_and_series_by_layer(runs):
    client = APIClient()
    results = client.get("/api/v1/results/", {"layer": "reward"}).json()
    assert results["count"] == 3
    assert {row["series"] for row in results["results"]} == {"by-paper", "by-claim"}
    series = client.get("/api/v1/series/", {"layer": "reward"}).json()
    assert sorted(row["slug"] for row in series["results"]) == ["by-claim", "by-paper"]
    assert client.get("/api/v1/results/", {"layer": "nowhere"}).status_code == 400


def test_the_layer_filter_is_in_the_schema():
    schema = APIClient().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/v1/results/", "/api/v1/series/"):
        names = {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
        assert "layer" in names, path
