"""Feeds of the browse pages /papers/ and /notes/, found from the pages (issue 16)."""

import re
import xml.etree.ElementTree as ET

import pytest

from citations.models import Paper
from notes.models import ResearchNote
from tests.factories import PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def entry_titles(response):
    root = ET.fromstring(response.content)
    return [entry.find(f"{ATOM}title").text for entry in root.iter(f"{ATOM}entry")]


@pytest.mark.parametrize("page", ["/papers/", "/notes/"])
def test_browse_pages_link_their_feed(client, demo, page):
    html = client.get(page).content.decode()
    link = re.search(r'<link rel="alternate" type="application/atom\+xml"[^>]*href="([^"]+)"', html)
    feeds = re.findall(
        r'<link rel="alternate" type="application/atom\+xml"[^>]*href="([^"]+)"', html
    )
    assert link and f"{page}feed.atom" in feeds
    response = client.get(f"{page}feed.atom")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")


def test_the_papers_feed_holds_papers_outside_the_index_and_no_drafts(client, db):
    PaperFactory(title="Only a citation record", in_research_index=False)
    PaperFactory(title="A draft paper", draft=True)
    titles = entry_titles(client.get("/papers/feed.atom"))
    assert "Only a citation record" in titles
    assert "A draft paper" not in titles


def test_the_notes_feed_holds_published_notes_only(client, db):
    ResearchNoteFactory(title="A published note")
    ResearchNoteFactory(title="A draft note", draft=True)
    assert entry_titles(client.get("/notes/feed.atom")) == ["A published note"]


def test_browse_feeds_are_newest_first_and_bounded(client, demo):
    titles = entry_titles(client.get("/papers/feed.atom"))
    newest = Paper.objects.published().order_by("-published_at", "-id")
    assert titles == [paper.title for paper in newest[:30]]
    notes = ResearchNote.objects.published().order_by("-published_at", "-id")
    assert entry_titles(client.get("/notes/feed.atom")) == [note.title for note in notes[:30]]
