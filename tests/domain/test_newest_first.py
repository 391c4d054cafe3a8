"""Papers newest first with undated ones last, the same on SQLite and PostgreSQL (a plain
descending sort puts NULLs first on PostgreSQL and last on SQLite), wherever papers are listed."""

import datetime

import pytest
from django.urls import reverse

from citations.models import Paper
from tests.factories import CitationFactory, LayerFactory, PaperFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def papers():
    """Three papers, created so that neither the id nor the insertion order gives the answer."""
    undated = PaperFactory(title="Zeta undated", publication_date=None)
    old = PaperFactory(title="Zeta 2020", publication_date=datetime.date(2020, 1, 1))
    new = PaperFactory(title="Zeta 2025", publication_date=datetime.date(2025, 1, 1))
    return new, old, undated


def test_the_default_order_and_newest_first_put_undated_papers_last(papers):
    new, old, undated = papers
    assert list(Paper.objects.all()) == [new, old, undated]
    assert list(Paper.objects.newest_first()) == [new, old, undated]
    assert list(Paper.objects.oldest_first()) == [old, new, undated]


TITLES = ["Zeta 2025", "Zeta 2020", "Zeta undated"]


def in_page_order(content, names=TITLES):
    return sorted(names, key=content.index)


def test_every_paper_list_puts_undated_papers_last(client, papers):
    new, old, undated = papers
    layer = LayerFactory()
    for paper in papers:
        paper.layers.add(layer)
        paper.tags.add("ordering")
    names = TITLES
    for url in [
        reverse("citations:research-index"),
        reverse("tag-detail", kwargs={"slug": "ordering"}),
        layer.get_absolute_url(),
    ]:
        assert in_page_order(client.get(url).content.decode()) == names, url


def test_a_hubs_lists_put_undated_papers_last(client, papers):
    hub = PaperFactory(title="Hub")
    for paper in papers:
        CitationFactory(citing_paper=paper, cited_paper=hub)
        CitationFactory(citing_paper=hub, cited_paper=paper)
    content = client.get(hub.get_absolute_url()).content.decode()
    explorer, cites = content.split('id="cites-heading"')
    assert in_page_order(explorer) == TITLES
    assert in_page_order(cites) == TITLES
