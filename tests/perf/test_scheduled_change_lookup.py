"""The next scheduled publication change (rlscaling/publishing/schedule.py) is looked up by
whichever request finds nothing remembered: every 5 minutes on the benchmark's uncached server,
every PAGE_CACHE_SECONDS otherwise, and after every sweep. It must cost the same at any corpus
size: one index probe per field and model, not a scan of the million citations (issue 15)."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from citations.models import Citation, Paper
from rlscaling.publishing.schedule import find_next_scheduled_change
from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db

HOUR = datetime.timedelta(hours=1)


def test_the_next_change_is_the_earliest_published_appearance_or_expiry_after_the_sweep():
    now = timezone.now()
    PaperFactory(draft=True, published_at=now + HOUR)  # a draft's date is no schedule
    PaperFactory(published_at=now - HOUR)  # already handled
    expiry = CitationFactory(unpublish_at=now + 3 * HOUR).unpublish_at
    appearance = ResearchNoteFactory(published_at=now + 2 * HOUR).published_at
    assert find_next_scheduled_change(now) == appearance
    assert find_next_scheduled_change(appearance) == expiry
    assert find_next_scheduled_change(expiry) is None


def lookup_queries(table):
    with CaptureQueriesContext(connection) as queries:
        find_next_scheduled_change(timezone.now())
    lookups = [q["sql"] for q in queries.captured_queries if f'FROM "{table}"' in q["sql"]]
    assert lookups
    return lookups


@pytest.mark.parametrize("table", ["citations_citation", "citations_paper"])
def test_the_bound_is_in_the_where_clause_of_a_plain_minimum(table):
    for sql in lookup_queries(table):
        assert "FILTER" not in sql, sql  # an aggregate's FILTER reads every row
        assert sql.count("MIN(") == 1, sql


def published_rows(papers, edges_per_paper):
    """Published papers and edges written in bulk, then ANALYZEd: a table where every row is
    published and none is scheduled, as the corpus is, so the planner weighs the indexes on
    realistic statistics."""
    papers = Paper.objects.bulk_create(PaperFactory.build_batch(papers))
    Citation.objects.bulk_create(
        CitationFactory.build(citing_paper=citing, cited_paper=cited)
        for citing in papers
        for cited in papers[:edges_per_paper]
        if cited != citing
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE citations_paper, citations_citation")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL plans")
@pytest.mark.parametrize("table", ["citations_citation", "citations_paper"])
def test_the_lookup_probes_the_index_of_each_moment(table):
    published_rows(papers=300, edges_per_paper=10)
    plans = []
    with connection.cursor() as cursor:
        for sql in lookup_queries(table):
            cursor.execute(f"EXPLAIN {sql}")
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
    for field in ("published_at", "unpublish_at"):
        # The bound is the index scan's condition: the walk starts there and stops at the
        # first published row, instead of reading every row to filter the aggregate.
        assert any(f"Index Cond: ({field} > " in plan for plan in plans), plans
    assert not any("Seq Scan" in plan for plan in plans), plans
