"""Writing benchmarks, series and results through the API with a token, as papers are written:
the model permissions, contributors' work kept to drafts, the model's own validation (a 400
naming the field, nothing written), history and provenance, and drafts never readable by the
public."""

import pytest
from rest_framework.test import APIClient

from results.models import Benchmark, Result, Series
from tests.factories import PaperFactory
from tests.helpers import token_client
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory

pytestmark = pytest.mark.django_db

BENCHMARK = {"slug": "gsm8k", "name": "GSM8K", "metric": "accuracy", "unit": "%"}


@pytest.fixture
def sources():
    return {"benchmark": BenchmarkFactory(slug="aime"), "paper": PaperFactory(slug="scalerl")}


def series_body(**values):
    base = {"slug": "scalerl-8b", "name": "ScaleRL 8B", "benchmark": "aime", "paper": "scalerl"}
    return base | values


def point_body(**values):
    return {
        "series": "scalerl-8b",
        "location_kind": "figure",
        "location": "Figure 1",
        "value": 40.0,
        "compute_reported": 2,
        "compute_unit": "gpu_days",
    } | values


def test_anonymous_writes_are_refused(sources):
    client = APIClient()
    assert client.post("/api/v1/benchmarks/", BENCHMARK, format="json").status_code in (401, 403)
    assert client.post("/api/v1/series/", series_body(), format="json").status_code in (401, 403)
    series = SeriesFactory(benchmark=sources["benchmark"], slug="live")
    point = ResultFactory(series=series)
    assert client.patch(
        f"/api/v1/results/{point.pk}/", {"value": 1}, format="json"
    ).status_code in (
        401,
        403,
    )
    assert client.delete("/api/v1/series/live/").status_code in (401, 403)
    assert Series.objects.count() == 1 and Result.objects.get().value == 50.0


def test_an_editor_enters_a_run_with_history_and_provenance(sources, editor):
    client = token_client(editor)
    created = client.post("/api/v1/benchmarks/", BENCHMARK | {"status": "published"}, format="json")
    assert created.status_code == 201, created.json()
    assert created["Location"].endswith("/api/v1/benchmarks/gsm8k/")
    response = client.post(
        "/api/v1/series/",
        series_body(benchmark="gsm8k", model="Llama-8B", status="published"),
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["model"] == "Llama-8B"
    series = Series.objects.get(slug="scalerl-8b")
    assert series.entered_by == editor and series.is_published
    assert series.history.first().history_user == editor
    response = client.post("/api/v1/results/", point_body(), format="json")
    assert response.status_code == 201, response.json()
    point = Result.objects.get(pk=response.json()["id"])
    assert point.gpu_hours == 48.0 and response.json()["conversion"] == "1 GPU-day = 24 GPU-hours"
    assert point.history.first().history_user == editor
    changed = client.patch(f"/api/v1/results/{point.pk}/", {"value": 42.5}, format="json")
    assert changed.status_code == 200 and changed.json()["value"] == 42.5
    # Readers see it at once: it is published with its benchmark and paper.
    assert APIClient().get(f"/api/v1/results/{point.pk}/").json()["value"] == 42.5


def test_a_contributor_writes_drafts_but_cannot_publish(sources, contributor):
    client = token_client(contributor)
    refused = client.post("/api/v1/series/", series_body(status="published"), format="json")
    assert refused.status_code == 403
    assert not Series.objects.exists()
    draft = client.post("/api/v1/series/", series_body(), format="json")
    assert draft.status_code == 201 and draft.json()["status"] == "draft"
    assert Series.objects.get().entered_by == contributor
    point = client.post("/api/v1/results/", point_body(), format="json")
    assert point.status_code == 201
    assert (
        client.post(
            "/api/v1/benchmarks/", BENCHMARK | {"status": "published"}, format="json"
        ).status_code
        == 403
    )
    # A draft is never readable by the public.
    assert APIClient().get("/api/v1/series/scalerl-8b/").status_code == 404
    assert APIClient().get(f"/api/v1/results/{point.json()['id']}/").status_code == 404
    assert APIClient().get("/api/v1/results/").json()["count"] == 0


def test_a_contributor_cannot_change_the_points_readers_see(sources, contributor):
    live = SeriesFactory(benchmark=sources["benchmark"], slug="live")
    point = ResultFactory(series=live)
    client = token_client(contributor)
    assert (
        client.patch(f"/api/v1/results/{point.pk}/", {"value": 1}, format="json").status_code == 403
    )
    added = client.post("/api/v1/results/", point_body(series="live"), format="json")
    assert added.status_code == 403
    assert (
        client.patch("/api/v1/series/live/", {"name": "Renamed"}, format="json").status_code == 403
    )
    # Moving a draft's point into a live run is refused too.
    draft = SeriesFactory(benchmark=sources["benchmark"], slug="draft-run", draft=True)
    own = ResultFactory(series=draft)
    moved = client.patch(f"/api/v1/results/{own.pk}/", {"series": "live"}, format="json")
    assert moved.status_code == 403
    assert client.delete(f"/api/v1/results/{point.pk}/").status_code == 403
    assert [p.value for p in live.points.all()] == [50.0]
    assert Result.objects.get(pk=own.pk).series == draft
    assert Series.objects.get(slug="live").name == live.name


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"compute_reported": 5, "compute_unit": ""}, "compute_unit"),
        ({"compute_reported": -3}, "compute_reported"),
        ({"uncertainty": -1}, "uncertainty"),
        ({"location_kind": "poster"}, "location_kind"),
        ({"series": "nowhere"}, "series"),
        ({"value": "lots"}, "value"),
    ],
)
def test_a_bad_point_is_a_400_naming_the_field_and_nothing_is_written(sources, editor, body, field):
    SeriesFactory(benchmark=sources["benchmark"], paper=sources["paper"], slug="scalerl-8b")
    response = token_client(editor).post("/api/v1/results/", point_body(**body), format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()
    assert not Result.objects.exists()


def test_a_bad_series_is_a_400_naming_the_field(sources, editor):
    client = token_client(editor)
    for body, field in (
        (series_body(model_params_b=-8), "model_params_b"),
        (series_body(benchmark="nowhere"), "benchmark"),
        (series_body(task_family="poetry"), "task_family"),
        (series_body(slug="Not a slug"), "slug"),
    ):
        response = client.post("/api/v1/series/", body, format="json")
        assert response.status_code == 400, body
        assert field in response.json()["errors"], response.json()
    assert not Series.objects.exists()
    BenchmarkFactory(slug="draft-benchmark", draft=True)
    publish = client.post(
        "/api/v1/series/",
        series_body(benchmark="draft-benchmark", status="published"),
        format="json",
    )
    assert publish.status_code == 400 and "benchmark" in publish.json()["errors"]
    assert not Series.objects.exists()


def test_a_stale_version_is_a_409(sources, editor):
    SeriesFactory(benchmark=sources["benchmark"], slug="live")
    client = token_client(editor)
    version = client.get("/api/v1/series/live/").json()["version"]
    assert (
        client.patch(
            "/api/v1/series/live/", {"name": "One", "version": version}, format="json"
        ).status_code
        == 200
    )
    stale = client.patch("/api/v1/series/live/", {"name": "Two", "version": version}, format="json")
    assert stale.status_code == 409
    assert Series.objects.get(slug="live").name == "One"


def test_an_editor_deletes_a_point_and_a_benchmark_in_use_is_kept(sources, editor):
    series = SeriesFactory(benchmark=sources["benchmark"], slug="live")
    point = ResultFactory(series=series)
    client = token_client(editor)
    assert client.delete(f"/api/v1/results/{point.pk}/").status_code == 204
    assert not Result.objects.exists()
    kept = client.delete("/api/v1/benchmarks/aime/")
    assert kept.status_code == 409
    assert Benchmark.objects.filter(slug="aime").exists()


def test_the_write_bodies_are_declared_as_json(db):
    schema = APIClient().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/v1/benchmarks/", "/api/v1/series/", "/api/v1/results/"):
        body = schema["paths"][path]["post"]["requestBody"]["content"]
        assert list(body) == ["application/json"], path
    detail = schema["paths"]["/api/v1/results/{id}/"]
    assert {"put", "patch", "delete"} <= set(detail)
