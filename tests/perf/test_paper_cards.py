"""Lists of paper cards (the research index, /papers/, a tag's and a layer's page) load what a
card shows and nothing else (issue 15: an uncached page's time went mostly to prefetching and
to building a queryset per prefetched paper and relation). A card shows its tags and its
published research notes where the list shows a card's foot; no list shows authors or layers."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import LayerFactory, PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def cards():
    layer = LayerFactory(slug="reward-layer", name="Reward layer")
    papers = [PaperFactory(title=f"Card paper {n}") for n in range(3)]
    for paper in papers:
        paper.tags.add("grpo", "reward-models")
        paper.layers.add(layer)
        paper.authorships.create(author=author(f"Author of {paper.title}"), position=1)
    ResearchNoteFactory(title="Published note").papers.add(papers[0])
    ResearchNoteFactory(title="Draft note", draft=True).papers.add(papers[0])
    return papers, layer


def author(name):
    from citations.models import Author

    return Author.objects.create(name=name)


def tables_read(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return response, [query["sql"] for query in queries.captured_queries]


@pytest.mark.parametrize(
    "url", ["/research/", "/papers/", "/tags/grpo/", "/bottlenecks/reward-layer/"]
)
def test_a_list_of_cards_reads_no_authors_and_no_layers_of_its_papers(client, cards, url):
    response, queries = tables_read(client, url)
    assert not [sql for sql in queries if "citations_authorship" in sql]
    # The layer page filters its papers through the join table; no list reads papers' layers.
    layers_of_papers = 'FROM "bottlenecks_layer" INNER JOIN "citations_paper_layers"'
    assert not [sql for sql in queries if layers_of_papers in sql]
    assert "Card paper 0" in response.content.decode()


@pytest.mark.parametrize("url", ["/research/", "/papers/"])
def test_a_card_foot_shows_the_tags_and_only_the_published_notes(client, cards, url):
    html = client.get(url).content.decode()
    assert 'href="/tags/grpo/"' in html and 'href="/tags/reward-models/"' in html
    assert html.count("Read the research note") == 1


@pytest.mark.parametrize("url", ["/tags/grpo/", "/bottlenecks/reward-layer/"])
def test_a_card_without_its_foot_reads_no_tags_or_notes_of_its_papers(client, cards, url):
    _, queries = tables_read(client, url)
    assert not [sql for sql in queries if "notes_researchnote_papers" in sql]
    assert not [sql for sql in queries if 'FROM "taggit_tag" INNER JOIN' in sql]


NOTE_TAGS = 'FROM "rlscaling_tag" INNER JOIN "notes_taggednote"'  # the notes' tags, prefetched


@pytest.fixture
def note_cards(cards):
    papers, layer = cards
    notes = [ResearchNoteFactory(title=f"Card note {n}") for n in range(3)]
    for note in notes:
        note.tags.add("grpo")
        note.layers.add(layer)
        note.papers.add(papers[1], PaperFactory(title="Draft paper", draft=True))
    return notes


def test_the_notes_list_reads_only_the_published_papers_of_its_cards(client, note_cards):
    response, queries = tables_read(client, "/notes/")
    html = response.content.decode()
    assert html.count("Card paper 1") == 3 and "Draft paper" not in html
    assert not [sql for sql in queries if "bottlenecks_claim" in sql]  # cards show no figures
    assert not [sql for sql in queries if NOTE_TAGS in sql]
    assert not [sql for sql in queries if 'FROM "bottlenecks_layer"' in sql]


@pytest.mark.parametrize("url", ["/tags/grpo/", "/bottlenecks/reward-layer/"])
def test_a_note_card_without_its_papers_reads_nothing_more(client, note_cards, url):
    response, queries = tables_read(client, url)
    assert "Card note 0" in response.content.decode()
    assert not [sql for sql in queries if NOTE_TAGS in sql]
    assert not [sql for sql in queries if "notes_researchnote_papers" in sql]


def test_feed_entries_hold_their_tags_as_plain_lists(client, cards):
    """Django's default prefetch built one queryset per entry just to hold its tags (a third
    of a feed's time); the feeds read them into lists."""
    from web.feeds import LatestFeed, NoteListFeed, PaperListFeed

    for feed in (LatestFeed(), PaperListFeed(), NoteListFeed()):
        items = feed.items()
        assert items
        for item in items:
            assert "tag_list" in item.__dict__
            assert "tags" not in getattr(item, "_prefetched_objects_cache", {})
    html = client.get("/papers/feed.atom").content.decode()
    assert 'term="grpo"' in html and 'term="reward-models"' in html


def test_papers_with_authors_hold_their_authorships_as_plain_lists(client, cards):
    """A list download of 1,000 papers built 1,000 querysets just to hold the authorships;
    with_authors() reads them into lists, and author_names reads the list."""
    from citations.models import Paper

    papers = list(Paper.objects.published().with_authors())
    assert papers
    for paper in papers:
        assert "authorship_list" in paper.__dict__
        assert "authorships" not in getattr(paper, "_prefetched_objects_cache", {})
    with CaptureQueriesContext(connection) as queries:
        names = [paper.author_names for paper in papers]
    assert not queries.captured_queries
    assert ["Author of Card paper 0"] in names
    bibtex = client.get("/tags/grpo/papers.bib").content.decode()
    assert "author = {of Card paper 0, Author}" in bibtex
