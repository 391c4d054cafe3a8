"""Page-sized lists whose cost does not grow with the corpus (docs/decisions/0018): the points
and runs (pages and API), the authors. Each keeps its query count when the corpus grows, never
counts or lists a draft, and on PostgreSQL walks an index in its order instead of sorting every
row."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citations.models import Author, Authorship
from discovery import authors as author_views
from tests.factories import PaperFactory
from tests.perf.test_paper_lists import list_query, plan_without_scans
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory

# slow (`make test-all`, CI's slow step): each list at two corpus sizes.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]

postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL plans")

LISTS = [
    "/results/",
    "/results/?sort=compute",
    "/results/?sort=value",
    "/results/?task_family=math",
    "/api/v1/results/",
    "/api/v1/results/?ordering=value",
    "/api/v1/results/?ordering=-value",
    "/api/v1/results/?ordering=compute_sort",
    "/api/v1/results/?ordering=steps",
    "/api/v1/results/?search=table",
    "/api/v1/results/?task_family=math",
    "/api/v1/results/?compute_axis=gpu_hours",
    "/api/v1/series/",
    "/api/v1/series/?ordering=name",
    "/api/v1/series/?ordering=updated_at",
    "/api/v1/series/?task_family=math",
    "/authors/",
    "/authors/?q=a",
]


def add_points(runs, per_run, benchmarks=2, start=0):
    """`runs` public runs over `benchmarks` benchmarks, `per_run` points each (some without
    compute or steps), with an author on each run's paper."""
    made = []
    marks = [BenchmarkFactory(name=f"Bench {start + n}") for n in range(benchmarks)]
    for n in range(runs):
        paper = PaperFactory()
        author, _ = Author.objects.get_or_create(name=f"Author {start + n}")
        Authorship.objects.create(paper=paper, author=author)
        series = SeriesFactory(benchmark=marks[n % benchmarks], paper=paper)
        for i in range(per_run):
            compute = None if i == 0 else float(10 * i)
            made.append(
                ResultFactory(
                    series=series,
                    location=f"Table {i}",
                    value=float(i % 3),
                    compute_reported=compute,
                    compute_unit="gpu_hours" if compute else "",
                    steps=None if i % 2 else i,
                )
            )
    return made


def drafts():
    """A point of a draft run, of a published run on a draft benchmark, of a published run
    from a draft paper; an author named only on a draft paper."""
    hidden = [
        ResultFactory(series=SeriesFactory(draft=True)),
        ResultFactory(series=SeriesFactory(benchmark=BenchmarkFactory(draft=True))),
        ResultFactory(series=SeriesFactory(paper=PaperFactory(draft=True))),
    ]
    paper = PaperFactory(draft=True)
    Authorship.objects.create(paper=paper, author=Author.objects.create(name="Only Drafts"))
    return hidden


def queries_of(client, url):
    client.get(url)  # first-use lookups of the process are not the list's
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.content[:500])
    return len(queries)


@pytest.mark.parametrize("url", LISTS)
def test_a_list_keeps_its_query_count_as_the_corpus_grows(client, settings, url):
    settings.PAGE_CACHE_SECONDS = 0
    add_points(runs=3, per_run=4)
    small = queries_of(client, url)
    add_points(runs=30, per_run=6, benchmarks=5, start=100)
    assert queries_of(client, url) <= small <= 4, url


def test_every_api_cursor_page_counts_every_public_point(client, settings):
    # The v1 policy: `count` keeps its meaning (every row of the list) on cursor pages too.
    settings.PAGE_CACHE_SECONDS = 0
    points = add_points(runs=4, per_run=5)
    hidden = drafts()
    seen, url = [], "/api/v1/results/?page_size=6"
    while url:
        body = client.get(url).json()
        assert body["count"] == len(points)
        assert "count_is_bound" not in body
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    assert sorted(seen) == sorted(point.pk for point in points)
    assert not {point.pk for point in hidden} & set(seen)
    # Groupings need a benchmark (API 1.8.0): each benchmark's total counts its public points.
    slugs = [point.series.benchmark.slug for point in points]
    for slug in set(slugs):
        grouped = client.get(f"/api/v1/results/?benchmark={slug}&group_by=benchmark").json()
        assert grouped["total"] == slugs.count(slug)


def test_deprecated_page_numbers_still_count_every_public_row(client):
    points = add_points(runs=4, per_run=5)
    drafts()
    body = client.get("/api/v1/results/?page=2&page_size=6").json()
    assert body["count"] == len(points)


@pytest.mark.parametrize(
    "ordering", ["", "&ordering=value", "&ordering=-value", "&ordering=steps", "&ordering=-steps"]
)
def test_a_cursor_walk_in_each_ordering_lists_every_public_point_in_order(client, ordering):
    points = add_points(runs=3, per_run=5)
    hidden = drafts()
    seen, values, url = [], [], f"/api/v1/results/?page_size=4{ordering}"
    while url:
        body = client.get(url).json()
        seen += [row["id"] for row in body["results"]]
        values += [row["value"] for row in body["results"]]
        url = body["next"]
    assert sorted(seen) == sorted(point.pk for point in points)
    assert len(seen) == len(set(seen))
    assert not {point.pk for point in hidden} & set(seen)
    if "value" in ordering:
        assert values == sorted(values, reverse=ordering.endswith("-value"))


@pytest.mark.parametrize("sort", ["", "compute", "value"])
def test_the_results_page_lists_and_counts_public_points_only(client, sort):
    points = add_points(runs=3, per_run=5)
    hidden = drafts()
    response = client.get("/results/", {"sort": sort} if sort else {})
    page = response.context["page"]
    assert [p.pk for p in page.object_list] and page.paginator.count == len(points)
    assert {p.pk for p in page.object_list} == {point.pk for point in points}
    assert not {point.pk for point in hidden} & {p.pk for p in page.object_list}
    if sort:
        key = {"compute": "compute_sort", "value": "value"}[sort]
        shown = [getattr(p, key) for p in page.object_list if getattr(p, key) is not None]
        assert shown == sorted(shown, reverse=True)
        # Points without compute last when sorted by it.
        if sort == "compute":
            assert page.object_list[-1].compute_sort is None


def test_the_authors_list_counts_so_far_then_says_more(client, monkeypatch, settings):
    settings.PAGE_CACHE_SECONDS = 0
    add_points(runs=12, per_run=1)
    drafts()
    html = client.get("/authors/").content.decode()
    assert "12 authors" in html and "Only Drafts" not in html
    monkeypatch.setattr(author_views, "AUTHOR_LIST_PAGE_SIZE", 5)
    monkeypatch.setattr(author_views, "AUTHOR_LIST_COUNT_AHEAD", 3)
    response = client.get("/authors/")
    html = response.content.decode()
    assert "more than 6 authors" in html
    names = []
    for number in (1, 2, 3):
        page = client.get("/authors/", {"page": number}).context["page"]
        names += [author.name for author in page.object_list]
    assert names == sorted(f"Author {n}" for n in range(12))
    assert "Only Drafts" not in client.get("/authors/?q=only").content.decode()
    assert "0 authors" in client.get("/authors/?q=only").content.decode()


# PostgreSQL: each ordering's page is an index walk (the test tables are too small for the
# planner to prefer one, so the plan is asked for with full scans and sorts ruled out).


@pytest.mark.slow  # an EXPLAIN: guards the indexes (PostgreSQL, CI's slow step)
@postgresql_only
@pytest.mark.parametrize(
    "url, table, index",
    [
        ("/results/", "results_result", "result_series_compute"),
        ("/results/?sort=compute", "results_result", "result_compute"),
        ("/results/?sort=value", "results_result", "result_value"),
        ("/api/v1/results/", "results_result", "result_series_compute"),
        ("/api/v1/results/?ordering=value", "results_result", "result_value"),
        ("/api/v1/results/?ordering=-compute_sort", "results_result", "result_compute"),
        ("/api/v1/results/?ordering=steps", "results_result", "result_steps"),
        ("/api/v1/series/", "results_series", "benchmark_name"),
        ("/api/v1/series/?ordering=name", "results_series", "series_name"),
        ("/api/v1/series/?ordering=updated_at", "results_series", "series_updated"),
    ],
)
def test_each_ordering_walks_an_index(client, url, table, index):
    add_points(runs=3, per_run=4)
    plan = plan_without_scans(list_query(client, url, table), "hashjoin")
    assert index in plan, plan
    # The order comes from the indexes: no full sort of the points (at most an incremental
    # sort of the rows of one run).
    sorts = [line for line in plan.splitlines() if line.strip(" ->").startswith("Sort  (")]
    assert not sorts, plan
