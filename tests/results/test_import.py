"""`manage.py import_results`: a dry run lists each row's outcome, --apply writes it all in
one transaction, a re-run changes nothing, a bad row names its line and column and nothing is
written."""

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from citations.models import Paper
from results.exports import IMPORT_COLUMNS
from results.models import Benchmark, Result, Series
from tests.factories import PaperFactory
from tests.results.factories import BenchmarkFactory, SeriesFactory

pytestmark = pytest.mark.django_db
HEADER = ",".join(IMPORT_COLUMNS)


@pytest.fixture
def sources():
    BenchmarkFactory(slug="aime")
    PaperFactory(slug="scalerl")


def row(**values):
    base = {
        "benchmark": "aime",
        "series": "scalerl-8b",
        "series_name": "ScaleRL 8B",
        "paper": "scalerl",
        "location_kind": "figure",
        "location": "Figure 1",
        "value": "40",
        "compute": "100",
        "compute_unit": "gpu_hours",
    }
    base.update(values)
    line = io.StringIO()
    csv.writer(line, lineterminator="").writerow([base.get(c, "") for c in IMPORT_COLUMNS])
    return line.getvalue()


def write(tmp_path, *rows):
    path = tmp_path / "results.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return str(path)


def run(path, *args):
    from io import StringIO

    out, err = StringIO(), StringIO()
    call_command("import_results", path, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def good_rows():
    return [
        row(value=str(10 + i), compute=str(10 ** (i + 1)), location=f"Figure 1, point {i}")
        for i in range(3)
    ]


def test_a_dry_run_lists_each_row_and_writes_nothing(tmp_path, sources):
    out, _ = run(write(tmp_path, *good_rows()))
    assert "line 2: new point in new series scalerl-8b" in out
    assert "line 4: new point" in out and "Nothing written" in out
    assert not Series.objects.exists() and not Result.objects.exists()


def test_apply_writes_a_draft_series_and_a_rerun_changes_nothing(tmp_path, sources, editor):
    path = write(tmp_path, *good_rows())
    out, _ = run(path, "--apply", "--user", editor.username)
    assert "3 new point(s); 1 new draft series; 3 point(s) written." in out
    series = Series.objects.get(slug="scalerl-8b")
    assert series.status == "draft" and series.entered_by == editor
    assert series.points.count() == 3
    history = series.history.count(), Result.history.count()
    out, _ = run(path, "--apply")
    assert "3 unchanged" in out and "0 point(s) written" in out
    assert (series.history.count(), Result.history.count()) == history


def test_a_changed_value_is_an_update(tmp_path, sources):
    run(write(tmp_path, *good_rows()), "--apply")
    rows = good_rows()
    rows[1] = row(value="12.5", compute="100", location="Figure 1, point 1")
    out, _ = run(write(tmp_path, *rows), "--apply")
    assert "line 3: changed: value 11.0 → 12.5" in out
    assert Result.objects.get(location="Figure 1, point 1").value == 12.5


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"value": "lots"}, "line 3, column value: “lots” is not a number."),
        ({"value": ""}, "line 3, column value: is required."),
        ({"compute_unit": "watts"}, "line 3, column compute_unit: “watts” is not one of"),
        ({"compute_unit": ""}, "line 3, column compute_unit: Give the compute and its unit"),
        ({"compute": "-5"}, "line 3, column compute: Compute must be a positive number."),
        ({"location_kind": "poster"}, "line 3, column location_kind"),
        ({"benchmark": "nope"}, "line 3, column benchmark: no benchmark “nope”"),
        ({"paper": "nope"}, "line 3, column paper: no paper “nope”"),
        ({"series": "Not A Slug"}, "line 3, column series"),
        ({"steps": "1.5"}, "line 3, column steps: “1.5” is not a whole number."),
    ],
)
def test_a_bad_row_names_line_and_column_and_nothing_is_written(tmp_path, sources, bad, message):
    rows = good_rows()
    rows[1] = row(**{"location": "Figure 1, point 1", "compute": "100", **bad})
    with pytest.raises(CommandError, match="nothing was written"):
        _, err = run(write(tmp_path, *rows), "--apply")
    # The message is on stderr; run again capturing it.
    from io import StringIO

    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_results", write(tmp_path, *rows), "--apply", stderr=err)
    assert message in err.getvalue()
    assert not Series.objects.exists() and not Result.objects.exists()


def test_a_new_series_needs_a_name(tmp_path, sources):
    from io import StringIO

    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_results", write(tmp_path, row(series_name="")), stderr=err)
    assert "line 2, column series_name" in err.getvalue()


def test_an_existing_series_on_another_benchmark_is_refused(tmp_path, sources):
    from io import StringIO

    SeriesFactory(slug="scalerl-8b")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_results", write(tmp_path, row()), "--apply", stderr=err)
    assert "line 2, column benchmark: series “scalerl-8b” is on another benchmark" in err.getvalue()
    assert not Result.objects.exists()


def test_an_unknown_column_is_refused(tmp_path, sources):
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + ",colour\n" + row() + ",red\n", encoding="utf-8")
    from io import StringIO

    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_results", str(path), stderr=err)
    assert "unknown column(s) colour" in err.getvalue()


def test_an_export_imports_again_unchanged(tmp_path, sources, client):
    run(write(tmp_path, *good_rows()), "--apply")
    Series.objects.update(status="published")
    exported = client.get("/benchmarks/aime/results.csv").content.decode()
    path = tmp_path / "export.csv"
    path.write_text(exported, encoding="utf-8")
    out, _ = run(str(path))
    assert "3 unchanged" in out


def test_the_summary_counts_outcomes_not_series(tmp_path, sources):
    rows = [
        row(series=f"run-{s}", series_name=f"Run {s}", compute=str(10 ** (i + 1)))
        for s in range(2)
        for i in range(3)
    ]
    out, _ = run(write(tmp_path, *rows))
    assert "Dry run: 6 new point(s); 2 new draft series. Nothing written" in out


def test_an_import_writes_points_with_history_and_reviews_each_claim_once(
    tmp_path, sources, editor, monkeypatch, django_capture_on_commit_callbacks
):
    """Points are inserted in batches, not saved one by one: each still gets its history row
    (by the importing editor), its series one refit, and the claims on its benchmark one
    review against the new results (a review per point took most of a 100,000-row import)."""
    from evidence import receivers
    from tests.factories import ClaimFactory
    from tests.results.factories import ResultFactory

    aime = Benchmark.objects.get(slug="aime")
    own = ResultFactory(series=SeriesFactory(benchmark=aime), value=40.0)
    SeriesFactory(slug="scalerl-8b", benchmark=aime, paper=Paper.objects.get(slug="scalerl"))
    claim = ClaimFactory(statement="Forty on the benchmark.", tolerance=5)
    claim.papers.add(own.series.paper)
    claim.results.add(own)
    reviews = []
    review = receivers.review_claims_on
    monkeypatch.setattr(
        receivers, "review_claims_on", lambda ids: reviews.append(set(ids)) or review(ids)
    )
    rows = [row(value="50", compute="1000", location=f"Table 2, row {i}") for i in range(5)]
    with django_capture_on_commit_callbacks() as callbacks:
        run(write(tmp_path, *rows), "--apply", "--user", editor.username)
    assert Result.objects.filter(series__slug="scalerl-8b").count() == 5
    history = Result.history.filter(series__slug="scalerl-8b")
    assert history.count() == 5
    assert {entry.history_user for entry in history} == {editor}
    assert reviews == [{own.series.benchmark_id}]
    claim.refresh_from_db()
    assert claim.proposed_status == "contested"  # 50 against 40 with a 5% tolerance
    assert len(callbacks) == 1  # one refit of the one series
