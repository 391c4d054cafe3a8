"""Stored citing counts and citing timelines (citations/stats/counts.py) equal a fresh count of the
public edges after every kind of change: edits, moves, deletes, publish/unpublish one by one
and in bulk, a citing paper's new date, merges' and importers' paths (through save/delete or
recount_citations) and generate_corpus; the hub's figures are read from them, not counted."""

import datetime
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.db.models import Count, F
from django.db.models.functions import TruncQuarter
from django.test.utils import CaptureQueriesContext

from citations.merging import merge_papers
from citations.models import (
    Citation,
    CitationCount,
    CitingTimelineCount,
    DatePrecision,
    Paper,
    recount_citations,
)
from citations.models.papers import CITING_GROUP_FIELDS
from citations.stats.timeline import CitingTimeline
from publishing.models import Status, published_q
from tests.factories import CitationFactory, CitationRoleFactory, PaperFactory, timeline_hub

pytestmark = pytest.mark.django_db


def counted_edges():
    """Public edges, the cited paper's own status aside (the listing applies that)."""
    return Citation.objects.filter(published_q(), published_q("citing_paper__"))


def assert_counts_are_true():
    truth = {
        row["cited_paper"]: row["n"]
        for row in counted_edges().values("cited_paper").annotate(n=Count("*")).order_by()
    }
    role_truth = {
        (row["cited_paper"], str(row["role"])): row["n"]
        for row in counted_edges()
        .filter(role__isnull=False)
        .values("cited_paper", "role")
        .annotate(n=Count("*"))
        .order_by()
    }
    stored = {count.paper_id: count for count in CitationCount.objects.all()}
    assert set(stored) == set(Paper.objects.values_list("pk", flat=True))  # a row per paper
    for pk, count in stored.items():
        assert count.total == truth.get(pk, 0), pk
        for role, n in count.by_role.items():
            assert role_truth[(pk, role)] == n
    assert sum(sum(c.by_role.values()) for c in stored.values()) == sum(role_truth.values())
    assert_timelines_are_true()


def assert_timelines_are_true():
    keys = ("cited_paper", "quarter", "date_precision", "role", "polarity")
    truth = {
        tuple(row[key] for key in keys): row["n"]
        for row in counted_edges()
        .values(
            "cited_paper",
            "role",
            "polarity",
            date_precision=F("citing_paper__date_precision"),
            quarter=TruncQuarter("citing_paper__publication_date"),
        )
        .annotate(n=Count("*"))
        .order_by()
    }
    stored = {}
    for row in CitingTimelineCount.objects.values(*keys[1:], "paper", "count"):
        key = (row["paper"], *(row[key] for key in keys[1:]))
        assert key not in stored, key  # one row per group
        stored[key] = row["count"]
    assert stored == truth


def test_counts_follow_single_edits_moves_and_deletes():
    hub, other = PaperFactory(), PaperFactory()
    edges = [CitationFactory(cited_paper=hub) for _ in range(3)]
    assert_counts_are_true()
    assert hub.citation_count.total == 3

    edge = Citation.objects.get(pk=edges[0].pk)
    edge.role = CitationRoleFactory(slug="method")
    edge.save()
    assert_counts_are_true()

    edge.cited_paper = other  # moved to another paper: both recounted
    edge.save()
    assert_counts_are_true()

    Citation.objects.get(pk=edges[1].pk).delete()
    assert_counts_are_true()
    edges[2].citing_paper.delete()  # the cascade deletes its edge
    assert_counts_are_true()
    assert CitationCount.objects.get(paper=hub).total == 0


def test_deleting_cited_papers_leaves_no_count_row_behind():
    """The edges' own recounts run inside the paper's delete, after its count rows were
    collected: they must not write a row for a paper that is about to go."""
    hub, middle, leaf = PaperFactory(), PaperFactory(), PaperFactory()
    CitationFactory(citing_paper=hub, cited_paper=middle)
    CitationFactory(citing_paper=middle, cited_paper=leaf)
    CitationFactory(citing_paper=leaf, cited_paper=hub)
    middle.delete()
    assert_counts_are_true()
    Paper.objects.all().delete()
    assert not CitationCount.objects.exists()
    assert not CitingTimelineCount.objects.exists()
    connection.check_constraints()


def test_counts_follow_publication_of_edges_and_citing_papers():
    hub = PaperFactory()
    draft_edge = CitationFactory(cited_paper=hub, draft=True)
    edge = CitationFactory(cited_paper=hub)
    assert CitationCount.objects.get(paper=hub).total == 1

    citing = Paper.objects.get(pk=edge.citing_paper_id)
    citing.status = Status.DRAFT  # unpublishing the citing paper hides the edge
    citing.save()
    assert_counts_are_true()
    assert CitationCount.objects.get(paper=hub).total == 0

    Paper.objects.filter(pk=citing.pk).publish()  # bulk paths
    Citation.objects.filter(pk=draft_edge.pk).publish()
    assert_counts_are_true()
    assert CitationCount.objects.get(paper=hub).total == 2
    Citation.objects.filter(cited_paper=hub).unpublish()
    Paper.objects.filter(pk=hub.pk).unpublish()
    assert_counts_are_true()


def test_timelines_follow_held_back_edges_and_drafts_are_never_counted():
    hub = timeline_hub()  # with a draft edge and a draft citing paper
    assert_counts_are_true()
    assert hub.citing_timeline().total == 7
    public = Citation.objects.public().filter(cited_paper=hub)
    edge = Citation.objects.get(pk=public.values_list("pk", flat=True).first())
    edge.status = Status.DRAFT  # held back
    edge.save()
    assert_counts_are_true()
    cache.clear()
    assert hub.citing_timeline().total == hub.citation_summary().total == 6
    Paper.objects.filter(pk=hub.pk).unpublish()  # a draft hub has no public citing papers
    cache.clear()
    hub.refresh_from_db()
    assert hub.citing_groups() == []
    assert hub.citation_summary().total == 0


def test_timelines_follow_a_citing_papers_new_date():
    hub = PaperFactory()
    edge = CitationFactory(cited_paper=hub)
    citing = Paper.objects.get(pk=edge.citing_paper_id)
    citing.publication_date = datetime.date(2019, 8, 1)
    citing.save()
    assert_counts_are_true()
    citing.date_precision = DatePrecision.YEAR
    citing.save()
    assert_counts_are_true()
    cache.clear()
    assert hub.citing_timeline().year_only_total == 1


def test_timelines_follow_a_merge_of_two_hubs():
    keep, other = PaperFactory(), PaperFactory()
    both = PaperFactory()
    CitationFactory(cited_paper=keep, citing_paper=both)
    CitationFactory(cited_paper=other, citing_paper=both)  # clashes: deleted
    for _ in range(3):
        CitationFactory(cited_paper=other)  # moved to `keep`
    merge_papers(Paper.objects.get(pk=keep.pk), Paper.objects.get(pk=other.pk))
    assert_counts_are_true()
    assert CitationCount.objects.get(paper=keep).total == 4


def test_bulk_created_edges_are_counted_by_the_recount():
    hub = PaperFactory()
    Citation.objects.bulk_create(
        [Citation(citing_paper=PaperFactory(), cited_paper=hub, status=Status.PUBLISHED)]
    )
    recount_citations({hub.pk})  # what generate_corpus and the importers call
    assert_counts_are_true()
    recount_citations({hub.pk})  # again: replaced, not added
    assert_counts_are_true()


def test_the_hubs_figures_are_read_from_the_stored_timeline_not_counted_from_its_edges():
    hub = timeline_hub()
    counted = CitingTimeline(counted_groups(hub))
    with CaptureQueriesContext(connection) as queries:
        groups = hub.citing_groups()
        timeline, summary = hub.citing_timeline(groups), hub.citation_summary(groups)
    assert len(queries) == 1
    assert f'"{Citation._meta.db_table}"' not in queries[0]["sql"]  # no edge read
    assert timeline.as_data() == counted.as_data()
    assert (summary.total, summary.pairs) == (
        7,
        hub._count_citation_summary(counted_groups(hub)).pairs,
    )


def counted_groups(hub):
    """The hub's citing groups counted afresh from its public edges, as the stored ones read."""
    return list(
        Citation.objects.public()
        .filter(cited_paper=hub)
        .values(
            *CITING_GROUP_FIELDS[2:-1],
            date_precision=F("citing_paper__date_precision"),
            quarter=TruncQuarter("citing_paper__publication_date"),
        )
        .annotate(count=Count("*"))
        .order_by()
    )


def test_generate_corpus_and_a_full_recount_agree():
    call_command("generate_corpus", papers=60, citations=300, seed=3, hubs=2, stdout=StringIO())
    assert_counts_are_true()
    CitationCount.objects.all().delete()
    call_command("recount_citations", stdout=StringIO())
    assert_counts_are_true()
