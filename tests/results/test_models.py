"""Series, points and their stored fits: compute normalisation, refits on the task queue, the
publication rule and the admin's inline points."""

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings

from results.models import Fit, Result, Series
from results.tasks import refit, refit_series
from tests.factories import PaperFactory
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory, curve_points

pytestmark = pytest.mark.django_db
IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def test_compute_is_normalised_with_the_conversion_stated():
    point = ResultFactory(compute_reported=10, compute_unit="gpu_days")
    assert point.gpu_hours == 240 and point.flops is None
    assert point.conversion == "1 GPU-day = 24 GPU-hours"
    flops = ResultFactory(compute_reported=2, compute_unit="pflops_days")
    assert flops.flops == pytest.approx(1.728e20) and flops.gpu_hours is None


def test_compute_without_a_unit_is_refused():
    point = ResultFactory.build(series=SeriesFactory(), compute_reported=5, compute_unit="")
    with pytest.raises(ValidationError) as error:
        point.full_clean()
    assert "compute_unit" in error.value.message_dict


def test_gpu_hours_and_flops_in_one_series_are_not_fitted():
    series = SeriesFactory()
    for i in range(6):
        ResultFactory(series=series, compute_reported=10 ** (i + 1), value=i + 1.0)
    ResultFactory(series=series, compute_reported=1, compute_unit="flops", value=3)
    fits = refit(series)
    assert {fit.kind for fit in fits} == {"sigmoid", "power"}
    assert all("no conversion" in fit.reason_refused for fit in fits)


def test_a_refit_of_unchanged_points_writes_nothing():
    series = SeriesFactory()
    curve_points(series)
    assert len(refit(series)) == 2
    assert refit(series) == []
    fit = Fit.objects.get(series=series, kind="sigmoid")
    assert not fit.refused and fit.params["A"] == pytest.approx(60, abs=0.5)


@override_settings(TASKS=IMMEDIATE)
def test_changing_points_refits_the_series_once_after_commit(django_capture_on_commit_callbacks):
    series = SeriesFactory()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        curve_points(series)
    assert len(callbacks) == 1  # ten points, one refit
    assert Fit.objects.get(series=series, kind="sigmoid").points_count == 10
    with django_capture_on_commit_callbacks(execute=True):
        series.points.first().delete()
    assert Fit.objects.get(series=series, kind="sigmoid").points_count == 9


@override_settings(TASKS=IMMEDIATE)
def test_a_refit_of_a_deleted_series_does_nothing():
    assert refit_series.call(123456) == 0


def test_a_series_is_public_only_with_its_benchmark_and_paper():
    shown = SeriesFactory()
    SeriesFactory(draft=True)
    SeriesFactory(benchmark=BenchmarkFactory(draft=True))
    SeriesFactory(paper=PaperFactory(draft=True))
    assert list(Series.objects.public()) == [shown]
    for series in Series.objects.all():
        ResultFactory(series=series)
    assert {point.series for point in Result.objects.public()} == {shown}


def test_a_series_is_not_published_before_its_benchmark_and_paper():
    series = SeriesFactory(draft=True, benchmark=BenchmarkFactory(draft=True))
    series.status = "published"
    assert "benchmark" in series.publication_errors()


def test_the_admin_edits_a_series_with_its_points_inline(client, editor):
    series = SeriesFactory()
    ResultFactory(series=series)
    client.force_login(editor)
    response = client.get(f"/admin/results/series/{series.pk}/change/")
    assert response.status_code == 200
    assert b"points-TOTAL_FORMS" in response.content
    assert client.get("/admin/results/benchmark/").status_code == 200
    assert client.get("/admin/results/series/").status_code == 200


@override_settings(TASKS=IMMEDIATE)
def test_an_editor_enters_points_inline_and_the_fit_follows(
    client, editor, django_capture_on_commit_callbacks
):
    import numpy as np

    from results.fits import sigmoid
    from tests.helpers import admin_form_data
    from tests.results.factories import TRUTH

    series = SeriesFactory(draft=True)
    client.force_login(editor)
    url = f"/admin/results/series/{series.pk}/change/"
    data = admin_form_data(client.get(url), Series)
    compute = np.geomspace(50, 20000, 6)
    values = sigmoid(
        np.log10(compute), TRUTH["R0"], TRUTH["A"], TRUTH["B"], np.log10(TRUTH["C_mid"])
    )
    data["points-TOTAL_FORMS"] = ["6"]
    for i, (c, v) in enumerate(zip(compute, values, strict=True)):
        data |= {
            f"points-{i}-location_kind": ["figure"],
            f"points-{i}-location": [f"Figure 2, point {i}"],
            f"points-{i}-value": [str(v)],
            f"points-{i}-compute_reported": [str(c)],
            f"points-{i}-compute_unit": ["gpu_hours"],
        }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert series.points.count() == 6
    fit = Fit.objects.get(series=series, kind="sigmoid")
    assert not fit.refused and fit.params["A"] == pytest.approx(TRUTH["A"], rel=0.01)


def test_the_admin_refuses_compute_without_a_unit(client, editor):
    from tests.helpers import admin_form_data

    series = SeriesFactory(draft=True)
    client.force_login(editor)
    url = f"/admin/results/series/{series.pk}/change/"
    data = admin_form_data(client.get(url), Series)
    data |= {
        "points-TOTAL_FORMS": ["1"],
        "points-0-location_kind": ["table"],
        "points-0-location": ["Table 1"],
        "points-0-value": ["3"],
        "points-0-compute_reported": ["100"],
    }
    response = client.post(url, data)
    assert response.status_code == 200
    assert "Give the compute and its unit together" in response.content.decode()
    assert not series.points.exists()


def test_refit_results_fits_what_changed_only():
    from io import StringIO

    from django.core.management import call_command

    series = SeriesFactory()
    curve_points(series)  # no commit in this test: the receiver's refit never ran
    out = StringIO()
    call_command("refit_results", stdout=out)
    assert "1 series refitted" in out.getvalue()
    assert Fit.objects.filter(series=series).count() == 2
    call_command("refit_results", stdout=out)
    assert "0 series refitted" in out.getvalue()


def test_the_history_of_a_series_keeps_its_points(client, editor):
    series = SeriesFactory()
    ResultFactory(series=series, location="Table 9")
    series.name = "Renamed"
    series.save()
    record = series.history.first()
    assert record.related_snapshot["children"]["points"][0]["location"] == "Table 9"
    client.force_login(editor)
    assert client.get(f"/admin/results/series/{series.pk}/history/").status_code == 200


def test_deleting_a_paper_hides_its_series_and_keeps_them(client, editor):
    from tests.helpers import token_client

    series = SeriesFactory()
    ResultFactory(series=series)
    series.paper.delete()
    series.refresh_from_db()
    assert series.paper is None and series.points.count() == 1
    assert not Series.objects.public().exists() and not Result.objects.public().exists()
    api = token_client(editor)
    assert api.get("/api/v1/results/").json()["results"][0]["paper"] is None
    assert api.get(f"/api/v1/series/{series.slug}/").json()["paper"] is None
