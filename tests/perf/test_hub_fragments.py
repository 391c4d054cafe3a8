"""The blocks of a hub page that follow from the published content alone (its summary and role ×
polarity matrix, its citing timeline, its JSON-LD, its representative citing papers) are
rendered once per content generation (`{% fragment %}`, rlscaling/fragments.py, issue 15): a
page-cache miss of a hub (an explorer filter or page, a reader with a session) reuses them
instead of building the SVG charts, the JSON-LD and the representatives again; an editorial
change is on them at once."""

import re

import pytest
from django.db import connection
from django.template import TemplateSyntaxError, engines
from django.test.signals import template_rendered
from django.test.utils import CaptureQueriesContext

from citations.models import Citation
from tests.factories import UserFactory, timeline_hub

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


def reads_representatives(queries):
    return any('"is_representative"' in sql.partition(" WHERE ")[2] for sql in queries)


def hub_page(client, url):
    """The page without its per-request nonce, how often it rendered the timeline and the
    role × polarity matrix (each block is rendered whole or not at all), and the SQL it ran."""
    rendered = []

    def count(sender, template, context, **kwargs):
        rendered.append(template.name)

    template_rendered.connect(count)
    try:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
    finally:
        template_rendered.disconnect(count)
    assert response.status_code == 200
    assert rendered.count(TIMELINE) == rendered.count(MATRIX)
    html = NONCE.sub("", response.content.decode())
    return html, rendered.count(TIMELINE), [query["sql"] for query in queries]


def test_a_hubs_content_blocks_are_rendered_once_per_generation(client, hub):
    url = hub.get_absolute_url()
    first, timelines, queries = hub_page(client, url)
    assert timelines == 1
    assert reads_representatives(queries)
    assert "The first to scale it" in first
    assert '<script type="application/ld+json">' in first

    again, timelines, queries = hub_page(client, url)
    assert timelines == 0
    assert not reads_representatives(queries)
    assert again == first

    filtered, timelines, _ = hub_page(client, f"{url}?role=method")
    assert timelines == 0
    assert "The first to scale it" in filtered


def test_an_edit_is_on_the_hubs_blocks_at_once(client, hub):
    url = hub.get_absolute_url()
    hub_page(client, url)
    edge = Citation.objects.get(is_representative=True)
    edge.representative_reason = "The one that settled it"
    edge.save()
    html, timelines, _ = hub_page(client, url)
    assert "The one that settled it" in html and "The first to scale it" not in html
    assert timelines == 1


def test_an_editor_and_a_reader_share_the_hubs_blocks(client, hub):
    url = hub.get_absolute_url()
    hub_page(client, url)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    html, timelines, queries = hub_page(client, url)
    assert timelines == 0
    assert not reads_representatives(queries)
    assert "The first to scale it" in html


def test_with_no_fragment_cache_the_hub_renders_every_block(client, hub, settings):
    settings.FRAGMENT_CACHE_SECONDS = 0
    url = hub.get_absolute_url()
    hub_page(client, url)
    _, timelines, queries = hub_page(client, url)
    assert timelines == 1
    assert reads_representatives(queries)


def test_an_unreachable_cache_renders_the_blocks(client, hub, monkeypatch):
    from redis.exceptions import ConnectionError as RedisConnectionError

    def unreachable(*args, **kwargs):
        raise RedisConnectionError("down")

    monkeypatch.setattr("rlscaling.caching.cache.get", unreachable)
    html, timelines, _ = hub_page(client, hub.get_absolute_url())
    assert timelines == 1 and "The first to scale it" in html


def render(source, **context):
    return engines["django"].from_string("{% load fragments %}" + source).render(context)


def test_a_fragment_varies_with_its_values_and_nothing_else():
    block = '{% fragment "greeting" who %}Hello {{ who }}, {{ day }}{% endfragment %}'
    assert render(block, who="Ada", day="Monday") == "Hello Ada, Monday"
    assert render(block, who="Ada", day="Tuesday") == "Hello Ada, Monday"  # kept
    assert render(block, who="Grace", day="Tuesday") == "Hello Grace, Tuesday"


def test_an_edited_fragment_or_a_template_it_includes_is_a_new_fragment(settings, tmp_path):
    from django.template.autoreload import reset_loaders
    from django.template.loader import render_to_string

    page, part = tmp_path / "page.html", tmp_path / "part.html"
    page.write_text(
        '{% load fragments %}{% fragment "f" %}A{% include "part.html" %}{% endfragment %}'
    )
    part.write_text("B")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    assert render_to_string("page.html") == "AB"
    part.write_text("C")
    reset_loaders()  # as runserver does when a template changes
    assert render_to_string("page.html") == "AC"
    page.write_text(
        '{% load fragments %}{% fragment "f" %}D{% include "part.html" %}{% endfragment %}'
    )
    reset_loaders()
    assert render_to_string("page.html") == "DC"


@pytest.mark.parametrize(
    "source",
    [
        "{% fragment %}x{% endfragment %}",
        "{% fragment name %}x{% endfragment %}",
        '{% fragment "name %}x{% endfragment %}',
    ],
)
def test_a_fragment_needs_a_quoted_name(source):
    with pytest.raises(TemplateSyntaxError, match="quoted name"):
        render(source)
