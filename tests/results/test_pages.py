"""The results pages: what they show, that drafts never show, bad filters are 400s, and their
query counts do not grow with the rows."""

import csv
import io
import json

import pytest

from results.tasks import refit
from tests.factories import PaperFactory
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory, curve_points

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    return BenchmarkFactory(name="AIME 2024", slug="aime-2024")


def fitted_series(benchmark, **kwargs):
    series = SeriesFactory(benchmark=benchmark, **kwargs)
    curve_points(series)
    refit(series)
    return series


def hidden_series(benchmark):
    """Series that must never show: a draft, one on a draft paper."""
    draft = fitted_series(benchmark, draft=True, name="Secret draft run", slug="secret-draft")
    on_draft_paper = fitted_series(
        benchmark, paper=PaperFactory(draft=True), name="Secret paper run", slug="secret-paper"
    )
    return [draft, on_draft_paper]


def test_the_benchmark_page_charts_every_public_series_with_its_fit(client, benchmark):
    first = fitted_series(benchmark, name="Recipe one")
    fitted_series(benchmark, name="Recipe two")
    hidden_series(benchmark)
    response = client.get("/benchmarks/aime-2024/")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count("<svg viewBox") == 1
    assert 'role="img"' in html and "log scale" in html
    assert html.count('class="chart-series"') == 2
    assert f'id="series-{first.slug}"' in html
    assert "A (asymptote)" in html and "90%:" in html
    assert "Secret" not in html
    data = json.loads(html.split('<script type="application/ld+json">')[1].split("</script>")[0])
    assert data["@type"] == "Dataset"
    assert data["distribution"][0]["contentUrl"].endswith("/benchmarks/aime-2024/results.csv")
    assert len(data["isBasedOn"]) == 2


def test_a_refused_fit_says_why(client, benchmark):
    series = SeriesFactory(benchmark=benchmark)
    for i in range(3):
        ResultFactory(series=series, compute_reported=10 ** (i + 1), value=i)
    refit(series)
    html = client.get("/benchmarks/aime-2024/").content.decode()
    assert "Not fitted: Too few points" in html


def test_a_draft_benchmark_is_not_found(client):
    BenchmarkFactory(slug="hidden", name="Secret benchmark", draft=True)
    assert client.get("/benchmarks/hidden/").status_code == 404
    assert client.get("/benchmarks/hidden/results.csv").status_code == 404
    assert "Secret" not in client.get("/benchmarks/").content.decode()


def test_the_csv_holds_the_public_points_only(client, benchmark):
    shown = fitted_series(benchmark)
    hidden_series(benchmark)
    response = client.get("/benchmarks/aime-2024/results.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 10
    assert {row["series"] for row in rows} == {shown.slug}
    assert rows[0]["compute_unit"] == "gpu_hours" and rows[0]["gpu_hours"]


def test_the_result_list_filters_and_hides_drafts(client, benchmark):
    fitted_series(benchmark, task_family="code", name="Code run")
    fitted_series(BenchmarkFactory(), task_family="math", name="Math run")
    hidden_series(benchmark)
    html = client.get("/results/").content.decode()
    assert "20 results" in html and "Secret" not in html
    html = client.get("/results/?task_family=code").content.decode()
    assert "10 results" in html and "Math run" not in html
    assert "10 results" in client.get("/results/?benchmark=aime-2024").content.decode()


@pytest.mark.parametrize(
    "query", ["task_family=poetry", "benchmark=nope", "paper=nope", "sort=random", "tag=nope"]
)
def test_a_bad_filter_is_a_400_with_the_reason(client, query):
    response = client.get(f"/results/?{query}")
    assert response.status_code == 400
    assert b'class="errorlist"' in response.content


def test_a_draft_benchmark_is_not_a_filter(client):
    BenchmarkFactory(slug="hidden", draft=True)
    assert client.get("/results/?benchmark=hidden").status_code == 400


def test_compare_shows_parameters_side_by_side_and_labels_extrapolation(client, benchmark):
    one = fitted_series(benchmark, name="Recipe one")
    two = fitted_series(benchmark, name="Recipe two")
    response = client.get(f"/results/compare/?series={one.slug}&series={two.slug}")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Recipe one" in html and "Recipe two" in html
    assert "C<sub>mid</sub>" in html and "extrapolated" in html


def test_compare_needs_two_series(client, benchmark):
    assert (
        client.get(f"/results/compare/?series={fitted_series(benchmark).slug}").status_code == 400
    )


def test_compare_with_nothing_chosen_says_how_to_choose(client):
    response = client.get("/results/compare/")
    assert response.status_code == 200
    assert "Choose two or more runs" in response.content.decode()


def test_compare_does_not_show_a_draft(client, benchmark):
    shown = fitted_series(benchmark)
    draft, on_draft_paper = hidden_series(benchmark)
    for hidden in (draft, on_draft_paper):
        response = client.get(f"/results/compare/?series={shown.slug}&series={hidden.slug}")
        assert response.status_code == 400
        assert "Secret" not in response.content.decode()


def test_pages_keep_their_query_count_as_rows_grow(
    client, benchmark, django_assert_max_num_queries
):
    def counts():
        pages = ["/results/", "/benchmarks/", "/benchmarks/aime-2024/"]
        slugs = list(benchmark.series.values_list("slug", flat=True)[:3])
        pages.append("/results/compare/?" + "&".join(f"series={s}" for s in slugs))
        return pages

    for _ in range(3):
        fitted_series(benchmark)
    for url in counts():
        with django_assert_max_num_queries(8):
            assert client.get(url).status_code == 200
    for _ in range(5):
        fitted_series(benchmark)
    for url in counts():
        with django_assert_max_num_queries(8):
            assert client.get(url).status_code == 200


def test_a_paper_hub_lists_the_runs_it_reports_with_their_fits(client, benchmark):
    paper = PaperFactory(title="A paper with runs")
    fitted_series(benchmark, paper=paper, name="Recipe on the hub")
    fitted_series(benchmark, paper=paper, draft=True, name="Secret draft run")
    html = client.get(paper.get_absolute_url()).content.decode()

    assert "Results it reports" in html
    assert "Recipe on the hub" in html and "Secret draft run" not in html
    assert "50 to 20,000 GPU-hours" in html  # curve_points' compute range
    assert "(90%:" in html  # the asymptote with its interval
    assert f"?paper={paper.slug}" in html


def test_a_hub_without_runs_says_nothing_of_results_and_its_queries_stay_flat(
    client, benchmark, django_assert_max_num_queries
):
    bare = PaperFactory()
    assert "Results it reports" not in client.get(bare.get_absolute_url()).content.decode()
    paper = PaperFactory()
    fitted_series(benchmark, paper=paper)
    client.get(paper.get_absolute_url())  # warm
    with django_assert_max_num_queries(30) as one:
        client.get(f"{paper.get_absolute_url()}?page=1")
    for n in range(5):
        fitted_series(benchmark, paper=paper, name=f"More {n}")
    with django_assert_max_num_queries(len(one.captured_queries)):
        assert client.get(f"{paper.get_absolute_url()}?page=1").status_code == 200


def test_the_csv_columns_are_read_from_one_map():
    from results.exports import CSV_COLUMNS, SOURCES

    assert [*SOURCES, "conversion"] == CSV_COLUMNS


def test_many_fitted_runs_are_drawn_as_curves_without_their_bands(
    client, benchmark, monkeypatch, settings
):
    """Beyond BAND_LIMIT fitted runs the chart draws each curve from its parameters and shades
    no band (the stored bands are not even read); the caption says so. At or under it, bands."""
    settings.PAGE_CACHE_SECONDS = 0  # both requests render
    first = fitted_series(benchmark, name="Recipe one")
    fitted_series(benchmark, name="Recipe two")
    html = client.get(f"/benchmarks/{benchmark.slug}/").content.decode()
    assert html.count('fill-opacity="0.15"') == 2 and "without its 90% band" not in html

    monkeypatch.setattr("results.charts.BAND_LIMIT", 1)
    monkeypatch.setattr("results.views.BAND_LIMIT", 1)
    html = client.get(f"/benchmarks/{benchmark.slug}/").content.decode()

    assert 'fill-opacity="0.15"' not in html
    assert "without its 90% band" in html
    curves = html.count('fill="none" stroke="#')
    assert curves >= 2  # both fitted curves, from their parameters
    assert first.fits.get(kind="sigmoid").params["A"] > 0


def test_the_curve_from_parameters_is_the_fitted_sigmoid():
    import math

    from results.charts import sigmoid_value
    from results.fits import sigmoid

    params = {"R0": 10.0, "A": 60.0, "B": 1.5, "C_mid": 1000.0}
    for compute in (10.0, 1000.0, 123456.0):
        fitted = sigmoid(math.log10(compute), 10.0, 60.0, 1.5, math.log10(1000.0))
        assert sigmoid_value(params, compute) == pytest.approx(float(fitted))


def test_past_the_band_limit_each_run_is_one_titled_marker_path(
    client, benchmark, monkeypatch, settings
):
    """Under the limit every point is its own element titled with its value; past it each run's
    points are one path titled with the run, and the legend and compare form still list every
    run with its link."""
    settings.PAGE_CACHE_SECONDS = 0
    runs = [fitted_series(benchmark, name=f"Recipe {n}") for n in range(3)]
    points = sum(run.points.count() for run in runs)
    html = client.get(f"/benchmarks/{benchmark.slug}/").content.decode()
    assert html.count("<title>Recipe 0: ") == runs[0].points.count()

    monkeypatch.setattr("results.charts.BAND_LIMIT", 1)
    monkeypatch.setattr("results.views.BAND_LIMIT", 1)
    html = client.get(f"/benchmarks/{benchmark.slug}/").content.decode()

    for run in runs:
        count = run.points.count()
        assert html.count(f"<title>{run.name}: ") == 1
        assert f"<title>{run.name}: {count} points</title></path>" in html
        assert f'href="#series-{run.slug}">{run.name}</a>' in html  # the legend
        assert f'name="series" value="{run.slug}"> {run.name}</label>' in html  # compare
    chart = html[html.index("<svg viewBox") : html.index("</svg>", html.index("<svg viewBox"))]
    assert chart.count("<circle") + chart.count("<rect") == 0  # no element per point
    assert points > len(runs)
