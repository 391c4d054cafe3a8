"""Query ceilings of a page-cache miss: with nothing kept below the page cache, each page loads
what its list items and blocks show through its view's queryset (select_related,
prefetch_related), a fixed number of queries however many items it lists. The ceilings are
the demo's counts in render mode; more items on the same pages must not add a query (no
N+1)."""

import pytest

from evidence.models import EvidenceStatus
from tests.factories import (
    CitationFactory,
    ClaimFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)
from tests.helpers import ART_OF_SCALING

# slow (`make test-all`, CI's slow step): each page rendered at two corpus sizes.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]

LAYER = "compute"
TAG = "grpo"

# (path, ceiling): the demo's count of each page in render mode.
CEILINGS = [
    ("/", 13),
    ("/research/", 7),
    ("/papers/", 4),
    ("/notes/", 3),
    # A claim list: the claims, and one query each for their papers, contesting citations and
    # the results that carry their figures.
    ("/claims/", 5),
    (f"/bottlenecks/{LAYER}/", 11),
    (f"/tags/{TAG}/", 3),
    # The hub: 15, one read of its stored similar papers, prior and derivative works, one of
    # its claims' results and one of the runs it reports (their fits when it has any).
    (f"/papers/{ART_OF_SCALING}/", 18),
]


@pytest.fixture(autouse=True)
def render_mode(settings):
    """Every request renders its page, as a page-cache miss does."""
    settings.PAGE_CACHE_SECONDS = 0


def rendered(client, path, django_assert_max_num_queries, ceiling):
    client.get(path)  # per-process first-use lookups (content types, ...) are not counted
    with django_assert_max_num_queries(ceiling):
        response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


@pytest.mark.parametrize(("path", "ceiling"), CEILINGS)
def test_a_page_miss_stays_under_its_query_ceiling(
    client, demo, django_assert_max_num_queries, path, ceiling
):
    rendered(client, path, django_assert_max_num_queries, ceiling)


def more_of_everything():
    """Enough items on each page to fill a page of its lists, each with what its list item shows:
    tags and published notes on papers, published papers on notes, papers and contesting
    citations on claims, citing papers with labels on the hub."""
    from bottlenecks.models import Layer
    from citations.models import Paper

    layer = Layer.objects.get(slug=LAYER)
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    for n in range(25):
        paper = PaperFactory(title=f"Extra paper {n}", in_research_index=True)
        paper.tags.add(TAG, f"extra-{n}")
        paper.layers.add(layer)
        note = ResearchNoteFactory(title=f"Extra note {n}")
        note.papers.add(paper)
        note.tags.add(TAG)
        note.layers.add(layer)
        claim = ClaimFactory(statement=f"Extra claim {n}", evidence_status=EvidenceStatus.CONTESTED)
        claim.papers.add(paper)
        claim.layers.add(layer)
        edge = CitationFactory(citing_paper=paper, cited_paper=hub, context=f"Extra {n}")
        claim.contrasting_citations.add(edge)
    LayerFactory(slug="extra-layer", name="Extra layer")


@pytest.mark.parametrize(("path", "ceiling"), CEILINGS)
def test_more_items_add_no_query(client, demo, django_assert_max_num_queries, path, ceiling):
    more_of_everything()
    html = rendered(client, path, django_assert_max_num_queries, ceiling)
    if path in ("/research/", "/papers/", f"/tags/{TAG}/", f"/bottlenecks/{LAYER}/"):
        assert "Extra paper" in html, path
    if path in ("/notes/", f"/tags/{TAG}/", f"/bottlenecks/{LAYER}/"):
        assert "Extra note" in html, path
    if path == "/claims/":
        assert html.count("Extra claim") == 25 and "Contested by" in html
    if path == f"/papers/{ART_OF_SCALING}/":
        assert "Extra paper" in html


def test_a_hub_reads_its_stored_citing_groups_once_per_render(client, demo):
    """The timeline and the summary add up the same stored groups: the page reads them once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    path = f"/papers/{ART_OF_SCALING}/"
    client.get(path)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    stored_groups = '"citations_citingtimelinecount"'
    assert sum(stored_groups in query["sql"] for query in queries.captured_queries) == 1
