"""Stored citing counts (citations/counts.py) equal a fresh count of the public edges after
every kind of change: edits, moves, deletes, publish/unpublish one by one and in bulk,
merges' and importers' paths (through save/delete or recount_citations) and generate_corpus."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Count

from citations.models import Citation, CitationCount, Paper
from rlscaling.publishing import Status, published_q
from tests.factories import CitationFactory, CitationRoleFactory, PaperFactory

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


def test_generate_corpus_and_a_full_recount_agree():
    call_command("generate_corpus", papers=60, citations=300, seed=3, hubs=2, stdout=StringIO())
    assert_counts_are_true()
    CitationCount.objects.all().delete()
    call_command("recount_citations", stdout=StringIO())
    assert_counts_are_true()
