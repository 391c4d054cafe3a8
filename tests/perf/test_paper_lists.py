"""Paper lists, identifier lookups and exports at 100k papers (issue 15): each list's ordering
and filter is served by an index on PostgreSQL (a walk that stops after one page, not a scan
and sort of every published paper), and the lists' contents stay what they were."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citations.identity import PaperIdentifier, Scheme
from citations.models import Paper
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL plans and partial indexes"
)


def list_query(client, url, table="citations_paper"):
    """The SQL of the request's page: the longest SELECT from `table` (papers unless told)
    with a LIMIT, not a count."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    pages = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].startswith(f'SELECT "{table}"."id"')
        and " LIMIT " in query["sql"]
        and "COUNT(" not in query["sql"]
    ]
    assert pages, url
    return max(pages, key=len)  # the page's rows, not a lookup on the way


def plan_without_scans(sql, *also_off):
    """The plan PostgreSQL picks when a full scan or a full sort is ruled out (and the plan
    methods in `also_off`, e.g. "hashjoin"): whether an index can serve the query's order and
    filter at all (the test tables are too small for the planner to prefer it by itself)."""
    with connection.cursor() as cursor:
        for method in ("seqscan", "sort", "bitmapscan", *also_off):
            cursor.execute(f"SET LOCAL enable_{method} = off")
        try:
            cursor.execute(f"EXPLAIN {sql}")
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET ALL")


def some_papers():
    old = PaperFactory(title="beta", publication_date=datetime.date(2020, 1, 2))
    new = PaperFactory(title="Alpha", publication_date=datetime.date(2025, 1, 2))
    undated = PaperFactory(title="Gamma", publication_date=None)
    PaperFactory(title="Draft", draft=True)
    CitationFactory(cited_paper=undated, citing_paper=old)
    CitationFactory(cited_paper=undated, citing_paper=new)
    return old, new, undated


@pytest.mark.slow  # an EXPLAIN: guards the index (PostgreSQL, CI's slow step)
@postgresql_only
@pytest.mark.parametrize(
    "url, index",
    [
        ("/api/v1/papers/?ordering=title", "paper_published_title"),
        ("/api/v1/papers/?ordering=-title", "paper_published_title"),
        ("/api/v1/papers/?ordering=-created_at", "paper_published_created"),
        ("/api/v1/papers/?ordering=-updated_at", "paper_published_updated"),
        ("/api/v1/papers/?ordering=-cited_by_count", "citation_count_total"),
        ("/papers/?sort=title", "paper_published_title_ci"),
        ("/papers/?sort=cited", "citation_count_total"),
    ],
)
def test_each_list_ordering_walks_an_index(client, url, index):
    some_papers()
    plan = plan_without_scans(list_query(client, url))
    assert index in plan, plan
    assert "Seq Scan" not in plan, plan
    # The order comes from the index (at most an incremental sort of the ties of one count).
    sorts = [line for line in plan.splitlines() if line.strip(" ->").startswith("Sort  (")]
    assert not sorts, plan


@pytest.mark.slow  # an EXPLAIN: guards the index (PostgreSQL, CI's slow step)
@postgresql_only
@pytest.mark.parametrize(
    "query", ["publication_date_before=2024-12-31", "publication_date_after=2024-01-01"]
)
def test_a_publication_date_range_bounds_the_walk_of_the_sort_index(client, query):
    some_papers()
    plan = plan_without_scans(list_query(client, f"/api/v1/papers/?{query}"))
    assert "paper_api_sort_date" in plan, plan
    # The range bounds the walk, rather than filtering every newer (or older) paper.
    assert "Index Cond: (COALESCE(publication_date" in plan, plan


def test_a_publication_date_range_lists_the_same_papers(client):
    old, new, undated = some_papers()

    def slugs(query):
        results = client.get(f"/api/v1/papers/?{query}").json()["results"]
        return [paper["slug"] for paper in results]

    assert slugs("publication_date_before=2024-12-31") == [old.slug]
    assert slugs("publication_date_after=2024-01-01") == [new.slug]
    assert slugs("publication_date_after=2019-01-01&publication_date_before=2026-01-01") == [
        new.slug,
        old.slug,
    ]


def test_most_cited_lists_every_published_paper_once_uncited_ones_too(client):
    old, new, undated = some_papers()
    results = client.get("/api/v1/papers/?ordering=-cited_by_count").json()["results"]
    assert [paper["slug"] for paper in results] == [undated.slug, new.slug, old.slug]
    page = client.get("/papers/", {"sort": "cited"}).context["page"]
    assert [paper.pk for paper in page] == [undated.pk, new.pk, old.pk]
    assert page.paginator.count == 3


def test_the_papers_page_total_is_the_stored_count_not_a_count_of_the_paper_table(client):
    """An index-only COUNT over every published paper took 10-13 ms at 100k papers; the
    stored total (citations/stats/facet_counts.py) is one row, whatever the corpus size."""
    some_papers()
    for sort in ("newest", "title", "cited"):
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/papers/", {"sort": sort})
        assert response.status_code == 200
        assert response.context["page"].paginator.count == 3
        assert "3 papers" in response.content.decode()
        counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"]]
        assert counts == [], counts


# Identifier lookups: exact matches on the unique indexes, never UPPER() or a join over every
# paper.

IDENTIFIER_URLS = [
    "/api/v1/papers/?doi=10.5555/Lookup.1",
    "/api/v1/papers/by-doi/10.5555/LOOKUP.1/",
    "/api/v1/papers/by-arxiv/2104.50001/",
    "/api/v1/papers/arxiv:2104.50001/",
    "/api/v1/papers/doi:10.5555/lookup.1/",
]


def lookup_papers():
    paper = PaperFactory(doi="10.5555/lookup.1", arxiv_id="2104.50001")
    PaperFactory(doi="10.5555/lookup.2")
    return paper


def paper_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code in (200, 302), url
    return [q["sql"] for q in queries.captured_queries if 'FROM "citations_paper"' in q["sql"]]


def test_a_doi_is_stored_in_lower_case_however_it_is_saved():
    paper = Paper.objects.create(title="Raw", slug="raw", doi="10.5555/MiXeD.Case")
    paper.refresh_from_db()
    assert paper.doi == "10.5555/mixed.case"


@pytest.mark.parametrize("url", IDENTIFIER_URLS)
def test_identifier_lookups_are_exact_matches_without_a_join(client, url):
    lookup_papers()
    for sql in paper_queries(client, url):
        assert "UPPER(" not in sql and "LOWER(" not in sql, sql
        assert "citations_paperidentifier" not in sql, sql


@pytest.mark.parametrize("url", IDENTIFIER_URLS)
def test_identifier_lookups_find_the_paper_by_any_spelling_or_other_identifier(client, url):
    paper = lookup_papers()
    response = client.get(url, follow=True)
    body = response.json()
    found = body["results"][0]["slug"] if "results" in body else body["slug"]
    assert found == paper.slug
    held = PaperFactory(title="Holder")
    PaperIdentifier.objects.create(paper=held, scheme=Scheme.DOI, value="10.9999/held")
    assert client.get("/api/v1/papers/by-doi/10.9999/HELD/").json()["slug"] == held.slug
    assert client.get("/api/v1/papers/doi:10.9999/held/", follow=True).json()["slug"] == held.slug


def test_papers_citing_a_hub_name_the_hub_by_its_id_and_list_only_public_citing_papers(client):
    old, new, undated = some_papers()
    draft_citing = PaperFactory(title="Draft citing", draft=True)
    CitationFactory(cited_paper=undated, citing_paper=draft_citing)
    CitationFactory(cited_paper=old, citing_paper=new, draft=True)
    sql = list_query(client, f"/api/v1/papers/?cites={undated.slug}")
    # A constant PostgreSQL can estimate the hub's edges by, not a join on the hub's slug.
    assert f'"cited_paper_id" = {undated.pk}' in sql and undated.slug not in sql, sql

    def citing(slug):
        return [p["slug"] for p in client.get(f"/api/v1/papers/?cites={slug}").json()["results"]]

    assert citing(undated.slug) == [new.slug, old.slug]
    assert citing(old.slug) == []  # a draft edge
    assert citing("no-such-paper") == []
    draft_hub = PaperFactory(title="Draft hub", draft=True)
    CitationFactory(cited_paper=draft_hub, citing_paper=new)
    assert citing(draft_hub.slug) == []
