"""The results pages over a synthetic corpus: the query count stays put as series grow, and
the synthetic rows say what they are."""

import pytest
from django.core.management import call_command

from results.models import Benchmark, Result, Series
from results.tasks import refit
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus():
    PaperFactory.create_batch(3)
    call_command(
        "generate_results_corpus", benchmarks=2, series=80, points=800, widest=0, verbosity=0
    )
    for series in Series.objects.filter(benchmark__slug="synthetic-benchmark-0")[:5]:
        refit(series)


def test_the_widest_benchmark_holds_what_it_is_asked(client):
    PaperFactory.create_batch(3)
    call_command(
        "generate_results_corpus", benchmarks=3, series=30, points=60, widest=20, verbosity=0
    )
    sizes = sorted(b.series.count() for b in Benchmark.objects.all())
    assert sizes == [5, 5, 20]


def test_the_corpus_is_marked_synthetic(corpus):
    assert Series.objects.filter(synthetic=False).count() == 0
    assert Result.objects.count() == 800
    assert all(b.name.startswith("Synthetic") for b in Benchmark.objects.all())


def test_a_benchmark_with_many_series_keeps_its_query_count(
    corpus, client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        response = client.get("/benchmarks/synthetic-benchmark-0/")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('class="chart-series"') == 40
    slugs = list(
        Series.objects.filter(benchmark__slug="synthetic-benchmark-0").values_list(
            "slug", flat=True
        )
    )[:8]
    with django_assert_max_num_queries(8):
        response = client.get("/results/compare/?" + "&".join(f"series={s}" for s in slugs))
    assert response.status_code == 200
    with django_assert_max_num_queries(8):
        assert client.get("/results/?page=3").status_code == 200


def test_the_runs_are_paged_while_the_chart_shows_them_all(corpus, client):
    html = client.get("/benchmarks/synthetic-benchmark-0/?page=4").content.decode()
    assert html.count('class="chart-series"') == 40
    assert html.count('<section class="series"') == 10
    assert "Runs 31 to 40 of 40" in html
    assert 'href="?page=1#series-' in html and 'href="?page=4#series-' in html
    assert client.get("/benchmarks/synthetic-benchmark-0/?page=9").status_code == 404
