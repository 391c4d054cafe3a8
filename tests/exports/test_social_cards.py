"""OpenGraph tags and a social card (og:image) per paper and note, drawn by the site (issue 17)."""

import io
import re

import pytest
from django.test import Client
from PIL import Image

from citations.models import Paper
from notes.models import ResearchNote
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


def og_image(html):
    match = re.search(r'<meta property="og:image" content="http://127\.0\.0\.1:8000([^"]+)">', html)
    assert match, "no og:image"
    return match.group(1)


def test_every_paper_and_note_has_a_png_card(demo):
    client = Client()
    pages = [paper.get_absolute_url() for paper in Paper.objects.published()[:5]]
    pages += [note.get_absolute_url() for note in ResearchNote.objects.published()[:3]]
    for page in pages:
        html = client.get(page).content.decode()
        assert '<meta property="og:image:width" content="1200">' in html
        card = client.get(og_image(html))
        assert card.status_code == 200
        assert card["Content-Type"] == "image/png"
        image = Image.open(io.BytesIO(card.content))
        assert image.size == (1200, 630)


def test_paper_pages_carry_article_tags(demo):
    html = Client().get(f"/papers/{ART_OF_SCALING}/").content.decode()
    assert '<meta property="og:type" content="article">' in html
    assert '<meta property="article:published_time" content="2025-10-15">' in html
    assert '<meta property="article:author" content="Devvrit Khatri">' in html
    assert '<meta property="article:tag" content="' in html


def test_a_draft_has_no_card(demo):
    Paper.objects.filter(slug=ART_OF_SCALING).update(status="draft")
    assert Client().get(f"/papers/{ART_OF_SCALING}/card.png").status_code == 404


@pytest.mark.parametrize("kind", ["paper", "note"])
def test_a_card_shows_what_it_shows_now(demo, settings, kind):
    """A page-cache miss draws the card from the item as it is: the same card until an edit,
    and an edited title at once."""
    settings.PAGE_CACHE_SECONDS = 0  # every request runs the view, as a page-cache miss does
    item = (Paper if kind == "paper" else ResearchNote).objects.published().first()
    url = f"{item.get_absolute_url()}card.png"
    client = Client()
    first = client.get(url).content
    assert client.get(url).content == first
    item.title = "A title of its own"
    item.save()
    assert client.get(url).content != first
