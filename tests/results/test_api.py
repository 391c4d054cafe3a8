"""The results API: public rows only for readers, fits included, filters strict."""

import pytest
from rest_framework.filters import search_smart_split
from rest_framework.test import APIClient

from bottlenecks.setting import TaskFamily
from results.tasks import refit
from tests.factories import PaperFactory
from tests.helpers import token_client
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory, curve_points

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows():
    benchmark = BenchmarkFactory(slug="aime")
    shown = SeriesFactory(benchmark=benchmark, slug="shown")
    draft = SeriesFactory(benchmark=benchmark, slug="secret-draft", draft=True)
    on_draft_paper = SeriesFactory(
        benchmark=benchmark, slug="secret-paper", paper=PaperFactory(draft=True)
    )
    on_draft_benchmark = SeriesFactory(
        slug="secret-benchmark", benchmark=BenchmarkFactory(slug="secret", draft=True)
    )
    for series in (shown, draft, on_draft_paper, on_draft_benchmark):
        curve_points(series)
        refit(series)
    return shown


def test_readers_see_public_benchmarks_series_results_and_fits_only(rows):
    client = APIClient()
    benchmarks = client.get("/api/v1/benchmarks/").json()["results"]
    assert [b["slug"] for b in benchmarks] == ["aime"]
    series = client.get("/api/v1/series/").json()["results"]
    assert [s["slug"] for s in series] == ["shown"]
    fits = {fit["kind"]: fit for fit in series[0]["fits"]}
    assert set(fits) == {"sigmoid", "power"}
    assert set(fits["sigmoid"]["intervals"]) >= {"A", "B", "C_mid"}
    results = client.get("/api/v1/results/").json()
    assert results["count"] == 10
    assert {r["series"] for r in results["results"]} == {"shown"}
    assert results["results"][0]["compute_axis"] == "gpu_hours"
    for slug in ("secret-draft", "secret-paper", "secret-benchmark"):
        assert client.get(f"/api/v1/series/{slug}/").status_code == 404
    assert client.get("/api/v1/benchmarks/secret/").status_code == 404


def test_a_draft_is_not_a_filter_value_for_readers(rows):
    client = APIClient()
    assert client.get("/api/v1/results/?series=secret-draft").status_code == 400
    assert client.get("/api/v1/results/?benchmark=secret").status_code == 400
    assert client.get("/api/v1/results/?series=shown").json()["count"] == 10


def test_editors_see_drafts(rows, editor):
    client = token_client(editor)
    assert client.get("/api/v1/series/").json()["count"] == 4
    assert client.get("/api/v1/results/").json()["count"] == 40


@pytest.mark.parametrize("query", ["task_family=poetry", "compute_axis=watts", "colour=red"])
def test_bad_parameters_are_400s(rows, query):
    response = APIClient().get(f"/api/v1/results/?{query}")
    assert response.status_code == 400
    assert response.json()["status"] == 400


def test_results_are_counted_by_benchmark_paper_and_setting_without_drafts(rows, editor):
    """`group_by` on the results list: how many public points each benchmark, series, paper,
    setting or location kind has, with drafts (their series, paper or benchmark) counted only
    for editors."""
    other = SeriesFactory(benchmark=rows.benchmark, slug="other", task_family="code")
    curve_points(other, count=4)
    reader = APIClient()
    on_aime = {"benchmark": "aime"}
    by_series = reader.get("/api/v1/results/", {"group_by": "series", **on_aime}).json()
    assert by_series["total"] == 14
    assert [(g["value"], g["count"]) for g in by_series["groups"]] == [("shown", 10), ("other", 4)]
    by_family = reader.get("/api/v1/results/", {"group_by": "task_family", **on_aime}).json()
    assert {g["value"]: g["count"] for g in by_family["groups"]} == {"math": 10, "code": 4}
    assert {g["label"] for g in by_family["groups"]} == {
        TaskFamily.MATH.label,
        TaskFamily.CODE.label,
    }
    by_benchmark = reader.get("/api/v1/results/", {"group_by": "benchmark", **on_aime}).json()
    assert [(g["value"], g["count"]) for g in by_benchmark["groups"]] == [("aime", 14)]
    by_paper = reader.get("/api/v1/results/", {"group_by": "paper", "series": "other"}).json()
    assert by_paper["total"] == 4 and by_paper["groups"][0]["value"] == other.paper.slug
    for facet in ("model_size", "reward_type", "location_kind"):
        answer = reader.get("/api/v1/results/", {"group_by": facet, **on_aime}).json()
        assert sum(g["count"] for g in answer["groups"]) == 14, facet
    editors = token_client(editor)
    for slug, count in (("aime", 34), ("secret", 10)):
        answer = editors.get("/api/v1/results/", {"group_by": "benchmark", "benchmark": slug})
        assert [(g["value"], g["count"]) for g in answer.json()["groups"]] == [(slug, count)]
    refused = reader.get("/api/v1/results/", {"group_by": "value", **on_aime})
    assert refused.status_code == 400


@pytest.mark.parametrize(
    "facet",
    ["benchmark", "series", "paper", "task_family", "model_size", "reward_type", "location_kind"],
)
def test_every_grouping_needs_a_benchmark_a_paper_or_a_run(rows, editor, facet):
    """Grouping every point of the corpus is unbounded (200,000 points at the bench's size took
    up to 450 ms for anyone to ask): each grouping needs `benchmark=`, `paper=` or `series=`,
    which bound it by one benchmark's or one paper's runs; other filters (a setting, a layer)
    do not. Without one the answer is a 400 naming them, for editors too."""
    for client in (APIClient(), token_client(editor)):
        for narrowing in ({}, {"task_family": "math"}, {"compute_axis": "gpu_hours"}):
            refused = client.get("/api/v1/results/", {"group_by": facet, **narrowing})
            assert refused.status_code == 400, narrowing
            message = refused.json()["errors"]["group_by"][0]
            assert "`benchmark=<slug>` or `paper=<slug>` or `series=<slug>`" in message
        for narrowing in (
            {"benchmark": "aime"},
            {"paper": rows.paper.slug},
            {"series": "shown"},
        ):
            answer = client.get("/api/v1/results/", {"group_by": facet, **narrowing})
            assert answer.status_code == 200, narrowing
            listed = client.get("/api/v1/results/", narrowing).json()["count"]
            assert answer.json()["total"] == listed, narrowing


@pytest.mark.parametrize(
    "search",
    ["table", "TABLE 2", "ablation", "Dapo", "dapo,table", '"Table 2"', "ablation dapo", "nowhere"],
)
def test_search_finds_each_term_in_the_location_the_note_or_the_runs_name(
    client, search, monkeypatch
):
    """Every term is in one of the three fields (DRF's rule: terms split on spaces and commas,
    quoted phrases kept), whether the run's name is tested by a list of ids or by a join; a
    draft run's points never show."""
    benchmark = BenchmarkFactory()
    dapo = SeriesFactory(benchmark=benchmark, name="DAPO at 8B")
    other = SeriesFactory(benchmark=benchmark, name="GRPO baseline")
    secret = SeriesFactory(benchmark=benchmark, name="DAPO secret", draft=True)
    points = [
        ResultFactory(series=dapo, location="Table 2", note=""),
        ResultFactory(series=dapo, location="Figure 3", note="ablation"),
        ResultFactory(series=other, location="Table 2 (right)", note="from the ablation"),
        ResultFactory(series=other, location="Figure 1", note=""),
        ResultFactory(series=secret, location="Table 2", note="ablation"),
    ]
    terms = search_smart_split(search)

    def found(point):
        fields = (point.location, point.note, point.series.name)
        return all(any(term.lower() in field.lower() for field in fields) for term in terms)

    expected = sorted(p.pk for p in points if found(p) and p.series != secret)
    for listed in (1000, 0):  # the run's name by a list of ids, then by a join
        monkeypatch.setattr("results.models.MATCHED_RUNS_LISTED", listed)
        response = client.get("/api/v1/results/", {"search": search})
        assert response.status_code == 200
        assert sorted(row["id"] for row in response.json()["results"]) == expected
