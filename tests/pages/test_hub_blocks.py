"""The blocks of a hub page that follow from the published content (its summary and role ×
polarity matrix, its citing timeline, its JSON-LD, its representative citing papers) show on
every render, to readers and editors alike, and an editorial change is on them at once."""

import re

import pytest

from citations.models import Citation
from tests.factories import UserFactory, timeline_hub
from tests.helpers import get_rendering

pytestmark = pytest.mark.django_db

TIMELINE = "citations/includes/citing_timeline.html"
MATRIX = "citations/includes/role_polarity_matrix.html"
NONCE = re.compile(r'nonce="[^"]*"')


@pytest.fixture(autouse=True)
def no_page_cache(settings):
    """Every request renders its page, as a page-cache miss does."""
    settings.PAGE_CACHE_SECONDS = 0


@pytest.fixture
def hub():
    hub = timeline_hub()
    edge = Citation.objects.public().filter(cited_paper=hub).order_by("pk").first()
    edge.is_representative, edge.representative_reason = True, "The first to scale it"
    edge.save()
    return hub


def hub_page(client, url):
    """The page without its per-request nonce, and how often it rendered the timeline and the
    role × polarity matrix."""
    response, rendered = get_rendering(client, url)
    html = NONCE.sub("", response.content.decode())
    return html, rendered.count(TIMELINE), rendered.count(MATRIX)


def test_a_hub_shows_its_blocks_on_every_render(client, hub):
    url = hub.get_absolute_url()
    first, timelines, matrices = hub_page(client, url)
    assert timelines == matrices == 1
    assert "The first to scale it" in first
    assert '<script type="application/ld+json">' in first
    again, timelines, matrices = hub_page(client, url)
    assert again == first and timelines == matrices == 1
    filtered, _, _ = hub_page(client, f"{url}?role=method")
    assert "The first to scale it" in filtered


def test_an_edit_is_on_the_hubs_blocks_at_once(client, hub):
    url = hub.get_absolute_url()
    hub_page(client, url)
    edge = Citation.objects.get(is_representative=True)
    edge.representative_reason = "The one that settled it"
    edge.save()
    html, _, _ = hub_page(client, url)
    assert "The one that settled it" in html and "The first to scale it" not in html


def test_an_editor_and_a_reader_see_the_same_blocks(client, hub):
    url = hub.get_absolute_url()
    reader_html, _, _ = hub_page(client, url)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    editor_html, timelines, _ = hub_page(client, url)
    assert timelines == 1 and "The first to scale it" in editor_html
    for start, end in [
        ('<script type="application/ld+json">', "</script>"),
        ('<section aria-labelledby="summaries-heading">', "</section>"),
        ('<section class="aside-block" aria-labelledby="representative-heading">', "</section>"),
    ]:
        assert block(editor_html, start, end) == block(reader_html, start, end), start


def block(html, start, end):
    begin = html.index(start)
    return html[begin : html.index(end, begin)]
