"""The neighbourhood graph draws stored nodes: its most cited references and citers are kept
per paper by the refresh (with its similar papers), so a hub's graph reads a few stored rows
instead of sorting its citers in the request; the query count is the same for 3 citers and
for 300, and a paper unpublished since the refresh is never drawn."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from discovery.bulk import refresh_all
from discovery.graph import NeighbourhoodGraph
from discovery.models import Neighbour, Relation
from discovery.neighbours import refresh
from publishing.models import Status
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def render_mode(settings):
    settings.PAGE_CACHE_SECONDS = 0


def cite(citing, cited):
    return CitationFactory(citing_paper=citing, cited_paper=cited)


@pytest.fixture
def centre():
    """A paper citing two, cited by three; the first citer is itself cited twice (the most
    cited citer), a draft cites the centre."""
    paper = PaperFactory(slug="centre", title="The centre")
    for n in range(2):
        cite(paper, PaperFactory(slug=f"ref-{n}"))
    citers = [PaperFactory(slug=f"citer-{n}") for n in range(3)]
    for citer in citers:
        cite(citer, paper)
    cite(PaperFactory(), citers[0])
    cite(PaperFactory(), citers[0])
    cite(PaperFactory(slug="draft-citer", draft=True), paper)
    refresh_all()
    return paper


def slugs(graph):
    return {node.paper.slug for node in graph.nodes}


def test_the_refresh_stores_the_graphs_references_and_citers(centre):
    stored = Neighbour.objects.filter(paper=centre).select_related("other")
    citers = [row.other.slug for row in stored.filter(relation=Relation.CITER)]
    references = {row.other.slug for row in stored.filter(relation=Relation.REFERENCE)}
    assert citers[0] == "citer-0"  # the most cited first
    assert set(citers) == {"citer-0", "citer-1", "citer-2"}  # never the draft
    assert references == {"ref-0", "ref-1"}


def test_the_graph_draws_the_stored_nodes_only(centre):
    assert slugs(NeighbourhoodGraph.for_paper(centre)) == {
        "centre",
        "ref-0",
        "ref-1",
        "citer-0",
        "citer-1",
        "citer-2",
    }
    # A citer unpublished after the refresh is never drawn (read-time rule).
    citer = centre.__class__.objects.get(slug="citer-1")
    citer.status = Status.DRAFT
    citer.save()
    assert "citer-1" not in slugs(NeighbourhoodGraph.for_paper(centre))
    # Nothing stored (not yet refreshed): the request computes nothing itself.
    Neighbour.objects.filter(paper=centre).delete()
    assert slugs(NeighbourhoodGraph.for_paper(centre)) == {"centre"}


def same_queries(client, centre, path, citers):
    client.get(path)
    with CaptureQueriesContext(connection) as few:
        assert client.get(path).status_code == 200
    for n in range(citers - 3):
        cite(PaperFactory(slug=f"more-{n}"), centre)
    refresh([centre.pk])
    with CaptureQueriesContext(connection) as many:
        assert client.get(path).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)


def test_the_same_queries_for_3_and_30_citers(client, centre):
    same_queries(client, centre, "/papers/centre/graph/", 30)


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", ["/papers/centre/graph/", "/api/v1/papers/centre/graph/", "/papers/centre/"]
)
def test_the_same_queries_for_3_and_300_citers(client, centre, path):
    same_queries(client, centre, path, 300)
