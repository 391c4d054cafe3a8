"""The bulk refresh (discovery/bulk.py: every paper from the graph in memory) stores exactly
what the per-paper refresh of the task queue (discovery/neighbours.py) stores, and marks
every published paper as computed; a paper never computed says so on its pages."""

import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from citations.models import Citation, Paper, recount_citations
from discovery import bulk, neighbours
from discovery.models import Neighbour, NeighboursComputed
from publishing.models import Status
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db


def random_graph(seed, papers=40, edges=300):
    """A skewed random graph with draft papers and draft edges; a few hubs."""
    rng = random.Random(seed)
    made = [PaperFactory(slug=f"p{n}", draft=rng.random() < 0.08) for n in range(papers)]
    now = timezone.now()
    weights = [1 / (rank + 1) for rank in range(papers)]
    pairs = set()
    while len(pairs) < edges:
        citing = rng.randrange(papers)
        cited = rng.choices(range(papers), weights=weights)[0]
        if citing != cited:
            pairs.add((citing, cited))
    rows = []
    for citing, cited in sorted(pairs):
        draft = rng.random() < 0.05
        rows.append(
            Citation(
                citing_paper=made[citing],
                cited_paper=made[cited],
                status=Status.DRAFT if draft else Status.PUBLISHED,
                published_at=None if draft else now,
            )
        )
    Citation.objects.bulk_create(rows)
    recount_citations()
    return made


def stored(rows):
    return sorted(
        (
            row.paper_id,
            row.relation,
            row.rank,
            row.other_id,
            row.score,
            row.shared_references,
            row.co_citations,
            row.neighbourhood_links,
        )
        for row in rows
    )


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_the_bulk_refresh_stores_what_the_per_paper_refresh_stores(seed, monkeypatch):
    # Small limits so that a 40-paper graph reaches every cut: the coupling fan-out, the
    # candidates kept, and the lengths of the lists.
    for module in (neighbours, bulk):
        monkeypatch.setattr(module, "COUPLING_FANOUT", 12)
        monkeypatch.setattr(module, "CANDIDATES", 15)
        monkeypatch.setattr(module, "SIMILAR_KEPT", 6)
        monkeypatch.setattr(module, "LINEAGE_KEPT", 4)
        monkeypatch.setattr(module, "GRAPH_KEPT", 5)
    papers = random_graph(seed)
    neighbours.refresh([paper.pk for paper in papers])
    one_by_one = stored(Neighbour.objects.all())
    assert len({row[1] for row in one_by_one}) == 5  # every relation is exercised
    Neighbour.objects.all().delete()
    NeighboursComputed.objects.all().delete()

    assert bulk.refresh_all() == Paper.objects.published().count()
    assert stored(Neighbour.objects.all()) == one_by_one
    published = set(Paper.objects.published().values_list("pk", flat=True))
    assert set(NeighboursComputed.objects.values_list("paper", flat=True)) == published


def test_the_bulk_refresh_drops_the_rows_of_papers_no_longer_published():
    papers = random_graph(3, papers=20, edges=80)
    bulk.refresh_all()
    gone = papers[0]
    gone.status = Status.DRAFT
    gone.save()
    bulk.refresh_all()
    assert not Neighbour.objects.filter(paper=gone).exists()
    assert not Neighbour.objects.filter(other=gone).exists()
    assert not NeighboursComputed.objects.filter(paper=gone).exists()


def test_an_empty_database_refreshes_nothing():
    assert bulk.refresh_all() == 0
    assert not Neighbour.objects.exists()


PENDING_HUB = "not yet computed for this paper"
PENDING_GRAPH = "neighbourhood is not yet computed"


@pytest.fixture
def pages(settings):
    settings.PAGE_CACHE_SECONDS = 0


def test_a_paper_never_refreshed_says_its_neighbours_are_not_yet_computed(client, pages):
    """A database from before stored neighbours: the hub and the graph page say so rather than
    showing a paper with nothing around it, until `manage.py refresh_neighbours` runs."""
    papers = random_graph(4, papers=12, edges=40)
    Neighbour.objects.all().delete()
    NeighboursComputed.objects.all().delete()
    paper = max(papers, key=lambda p: Citation.objects.filter(cited_paper=p).count())
    paper.refresh_from_db()
    hub = client.get(paper.get_absolute_url())
    graph = client.get(f"/papers/{paper.slug}/graph/")
    assert hub.status_code == graph.status_code == 200
    assert PENDING_HUB in hub.content.decode()
    assert PENDING_GRAPH in graph.content.decode()

    call_command("refresh_neighbours", stdout=StringIO())
    hub = client.get(paper.get_absolute_url()).content.decode()
    graph = client.get(f"/papers/{paper.slug}/graph/").content.decode()
    assert PENDING_HUB not in hub and "Similar papers" in hub
    assert PENDING_GRAPH not in graph and "cites it" in graph


def test_a_refreshed_paper_with_nothing_around_it_is_not_pending(client, pages):
    alone = PaperFactory(slug="alone")
    bulk.refresh_all()
    assert not Neighbour.objects.filter(paper=alone).exists()
    assert PENDING_HUB not in client.get(alone.get_absolute_url()).content.decode()
    assert PENDING_GRAPH not in client.get("/papers/alone/graph/").content.decode()
    # The per-paper refresh of the task queue marks it too.
    NeighboursComputed.objects.all().delete()
    neighbours.refresh([alone.pk])
    assert PENDING_GRAPH not in client.get("/papers/alone/graph/").content.decode()
