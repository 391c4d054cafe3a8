"""Topic feeds (issue 17): new papers citing a paper, per tag, per layer, new contrasting
evidence, notes as they are updated; each found from its page, read by feedparser without a
complaint, and never showing a draft."""

import feedparser
import pytest
from django.test import Client

from citations.models import Citation, Paper
from notes.models import ResearchNote
from tests.factories import CitationFactory, CitationPolarityFactory, PaperFactory
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db

HUB = f"/papers/{ART_OF_SCALING}/"


def read(path):
    response = Client().get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, (path, feed.get("bozo_exception"))
    return feed


def feed_pages(demo_note_slug):
    """(page, feed) pairs: each page must announce its feed."""
    return [
        (HUB, f"/papers/{ART_OF_SCALING}/citing.atom"),
        (HUB, "/feeds/contrasting.atom"),
        ("/tags/grpo/", "/tags/grpo/feed.atom"),
        ("/bottlenecks/compute/", "/bottlenecks/compute/feed.atom"),
        ("/notes/", "/feeds/notes-updated.atom"),
        (f"/notes/{demo_note_slug}/", "/feeds/notes-updated.atom"),
        ("/about/data/", "/feeds/contrasting.atom"),
        ("/", "/feeds/latest.atom"),
        ("/papers/", "/papers/feed.atom"),
        ("/notes/", "/notes/feed.atom"),
        ("/search/?q=scaling", "/search/feed.atom?q=scaling"),
    ]


def atom_routes(patterns=None, prefix=""):
    """Every route of the site that answers a feed."""
    from django.urls import URLResolver, get_resolver

    routes = set()
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes |= atom_routes(pattern.url_patterns, route)
        elif route.endswith(".atom"):
            routes.add(route)
    return routes


def test_every_feed_of_the_site_is_read_by_feedparser_here():
    """A feed added later without a page announcing it and a feedparser check fails here."""
    from django.urls import resolve

    tested = {resolve(feed.split("?")[0]).route for _, feed in feed_pages("a-note")}
    assert tested == atom_routes()


def test_every_feed_is_announced_by_its_page_and_reads_cleanly(demo):
    note = ResearchNote.objects.published().first()
    for page, feed_path in feed_pages(note.slug):
        html = Client().get(page).content.decode()
        assert 'type="application/atom+xml"' in html
        assert f'href="{feed_path}"' in html, (page, feed_path)
        feed = read(feed_path)
        assert feed.entries or "contrasting" in feed_path, feed_path  # the demo has none
        assert feed.feed.title


def test_citing_feed_lists_the_papers_citing_the_paper(demo):
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    feed = read(f"/papers/{ART_OF_SCALING}/citing.atom")
    expected = set(
        Citation.objects.public()
        .filter(cited_paper=hub)
        .values_list("citing_paper__title", flat=True)
    )
    assert {entry.title for entry in feed.entries} <= expected
    assert len(feed.entries) == min(len(expected), 30)


def test_contrasting_feed_holds_only_contrasting_edges(db):
    contrasting = CitationPolarityFactory(slug="contrasting", name="Contrasting")
    supporting = CitationPolarityFactory(slug="supporting", name="Supporting")
    cited = PaperFactory(title="The claim")
    CitationFactory(
        citing_paper=PaperFactory(title="Disagrees"), cited_paper=cited, polarity=contrasting
    )
    CitationFactory(
        citing_paper=PaperFactory(title="Agrees"), cited_paper=cited, polarity=supporting
    )
    CitationFactory(
        citing_paper=PaperFactory(title="Draft disagreement", draft=True),
        cited_paper=cited,
        polarity=contrasting,
    )
    feed = read("/feeds/contrasting.atom")
    assert [entry.title for entry in feed.entries] == ["Disagrees"]
    assert "The claim" in feed.entries[0].summary


def test_drafts_never_appear_in_any_feed(demo):
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    draft = PaperFactory(title="Secret draft paper", draft=True)
    draft.tags.add("grpo")
    draft.layers.add(*hub.layers.all())
    CitationFactory(citing_paper=draft, cited_paper=hub)
    hidden_note = ResearchNote.objects.published().first()
    hidden_note.title, hidden_note.status = "Hidden draft note", "draft"
    hidden_note.save()
    note = ResearchNote.objects.published().first()
    for _, feed_path in feed_pages(note.slug):
        text = Client().get(feed_path).content.decode()
        assert "Secret draft paper" not in text
        assert hidden_note.title not in text


def test_a_feed_of_an_unknown_or_draft_topic_is_404(demo):
    draft = PaperFactory(draft=True)
    client = Client()
    assert client.get(f"/papers/{draft.slug}/citing.atom").status_code == 404
    assert client.get("/tags/no-such-tag/feed.atom").status_code == 404
    assert client.get("/bottlenecks/no-such-layer/feed.atom").status_code == 404
