"""Tag pages, the error pages, and site-wide head tags and structure."""

import re

import pytest
from django.template.loader import render_to_string
from django.urls import path, reverse

from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import inline_scripts, text_of

pytestmark = pytest.mark.django_db

TAG_QUERY_CEILING = 9


def tag_url(slug):
    return reverse("tag-detail", kwargs={"slug": slug})


def test_tag_page_lists_published_papers_and_notes(client, demo):
    response = client.get(tag_url("grpo"))
    assert response.status_code == 200
    text = text_of(response)
    assert "When Do Larger Batches Help Scale LLM Reinforcement Learning?" in text  # note + paper
    assert "Process Supervision for Agentic Policy Optimization" in text
    assert "DAPO: An Open-Source LLM Reinforcement Learning System at Scale" in text
    assert "Zone of Proximal Policy Optimization" in text  # citation records have hubs too


def test_tag_page_hides_drafts_and_a_tag_only_on_drafts_is_404(client, db):
    PaperFactory(title="Public paper").tags.add("shared")
    PaperFactory(title="Draft paper", draft=True).tags.add("shared", "secret")
    ResearchNoteFactory(title="Draft note", draft=True).tags.add("secret")
    text = text_of(client.get(tag_url("shared")))
    assert "Public paper" in text and "Draft paper" not in text
    assert client.get(tag_url("secret")).status_code == 404
    assert client.get(tag_url("no-such-tag")).status_code == 404


def test_tag_page_is_paginated_with_a_flat_query_count(client, db, django_assert_max_num_queries):
    for _ in range(45):
        PaperFactory().tags.add("busy", "other")
    for _ in range(5):
        ResearchNoteFactory().tags.add("busy")
    with django_assert_max_num_queries(TAG_QUERY_CEILING):
        response = client.get(tag_url("busy"))
    assert "Page 1 of 3" in text_of(response)
    assert client.get(tag_url("busy"), {"page": 3}).status_code == 200
    assert client.get(tag_url("busy"), {"page": 4}).status_code == 404


def test_404_page_is_in_the_site_style(client, db):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "We could not find that page." in html
    assert 'href="/static/css/site.css"' in html
    assert '<nav class="site-nav" aria-label="Main">' in html


@pytest.mark.parametrize("name", ["500.html", "503.html"])
def test_500_and_503_render_without_a_request_or_the_database(name, django_assert_num_queries):
    with django_assert_num_queries(0):
        html = render_to_string(name)
    assert 'href="/static/css/site.css"' in html
    assert "RL Scaling" in html


def broken_view(request):
    raise RuntimeError("a bug")


urlpatterns = [path("broken/", broken_view)]


@pytest.mark.urls(__name__)
def test_server_errors_use_the_styled_500_page(client, db):
    client.raise_request_exception = False
    response = client.get("/broken/")
    assert response.status_code == 500
    assert "Something went wrong on our side." in response.content.decode()
    assert 'href="/static/css/site.css"' in response.content.decode()


def heading_levels(html):
    return [int(level) for level in re.findall(r"<h([1-6])[\s>]", html)]


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/research/",
        "/research/?q=zzzz",
        "/papers/the-art-of-scaling-reinforcement-learning-compute-for-llms/",
        "/notes/locked-at-the-entrance-open-inside/",
        "/bottlenecks/",
        "/bottlenecks/compute/",
        "/tags/grpo/",
    ],
)
def test_headings_start_at_one_h1_and_never_skip_a_level(client, demo, url):
    levels = heading_levels(client.get(url).content.decode())
    assert levels[0] == 1 and levels.count(1) == 1
    for previous, current in zip(levels, levels[1:], strict=False):
        assert current <= previous + 1, f"h{previous} is followed by h{current} on {url}"


@pytest.mark.parametrize(
    "url",
    ["/", "/research/", "/bottlenecks/", "/bottlenecks/compute/", "/tags/grpo/"],
)
def test_every_page_has_title_description_canonical_and_open_graph(client, demo, url):
    response = client.get(url)
    html = response.content.decode()
    assert "<title>" in html and "</title>" in html
    assert '<meta name="description" content="' in html
    assert f'<link rel="canonical" href="http://127.0.0.1:8000{url}">' in html
    assert '<meta property="og:title"' in html
    assert '<a class="skip-link" href="#content">Skip to content</a>' in html
    assert '<main id="content"' in html
    assert html.count("<h1") == 1
    assert ' style="' not in html
    assert inline_scripts(html) == []


@pytest.mark.parametrize("url", ["/", "/research/", "/bottlenecks/", "/robots.txt", "/sitemap.xml"])
def test_pages_answer_head_and_refuse_writes(client, demo, url):
    assert client.head(url).status_code == 200
    assert client.post(url).status_code == 405
