"""The research index (/research/): seed 000's list, filters, search, sorting, pagination."""

import datetime

import pytest
from django.core.cache import cache
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from citations import filters
from citations.filters import ResearchIndexFilter
from citations.models import Author, Authorship, Paper
from tests.factories import LayerFactory, PaperFactory
from tests.helpers import INDEX_QUERY_CEILING, text_of

pytestmark = pytest.mark.django_db


INDEX = reverse("citations:research-index")


def titles(response):
    return [paper.title for paper in response.context["page"].object_list]


def test_index_lists_the_eighteen_items_of_the_seed(client, demo):
    response = client.get(INDEX)
    assert response.status_code == 200
    text = text_of(response)
    assert "What is actually moving the frontier?" in text
    assert "Source-linked research notes with original summaries" in text
    assert "18 items" in text
    assert Paper.objects.in_research_index().count() == 18
    assert len(titles(response)) == 18
    assert "When Do Larger Batches Help Scale LLM Reinforcement Learning?" in text
    assert "Ziniu Li" in text
    assert "An empirical decomposition of LLM reinforcement-learning batch scaling" in text
    assert "The Art of Scaling Reinforcement Learning Compute for LLMs" in text
    # Citation records are not index items.
    assert "Zone of Proximal Policy Optimization" not in text


def test_index_is_newest_first_and_can_be_sorted_oldest_first(client, demo):
    newest = titles(client.get(INDEX))
    assert newest[0] == "When Do Larger Batches Help Scale LLM Reinforcement Learning?"
    assert newest[-1] == "Proximal Policy Optimization Algorithms"
    oldest = titles(client.get(INDEX, {"sort": "oldest"}))
    assert oldest == list(reversed(newest))


def test_each_item_links_to_its_hub_and_its_note(client, demo):
    html = client.get(INDEX).content.decode()
    assert 'href="/papers/the-art-of-scaling-reinforcement-learning-compute-for-llms/"' in html
    assert 'href="/notes/when-do-larger-batches-help-scale-llm-reinforcement-learning/"' in html


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"tag": "ppo"}, {"Proximal Policy Optimization Algorithms", "Performance Foundations"}),
        ({"layer": "rewards"}, {"GR2 Technical Report", "Scaling Laws for Reward Model"}),
        ({"year": "2025"}, {"The Art of Scaling", "DAPO", "Kimi k1.5"}),
        ({"q": "Larger Batches"}, {"When Do Larger Batches Help Scale"}),
        ({"q": "overoptimization"}, {"Scaling Laws for Reward Model Overoptimization"}),
        ({"tag": "reward-models", "year": "2022"}, {"Scaling Laws for Reward Model"}),
    ],
)
def test_filters_narrow_the_list(client, demo, params, expected):
    response = client.get(INDEX, params)
    assert response.status_code == 200
    found = titles(response)
    assert len(found) == len(expected)
    for prefix in expected:
        assert any(title.startswith(prefix) for title in found), (prefix, found)
    assert f"{len(found)} of 18 items" in text_of(response)


def test_search_matches_summaries_and_bylines(client, demo):
    assert "Dota 2 with Large Scale Deep Reinforcement Learning" in titles(
        client.get(INDEX, {"q": "self-play"})
    )
    assert {"GLM-5.3: Frontier Coding with Emergent Cyber Capabilities"} <= set(
        titles(client.get(INDEX, {"q": "Z.ai"}))
    )


def test_no_hits_shows_a_clear_empty_state(client, demo):
    response = client.get(INDEX, {"q": "quantum gravity hamster"})
    assert response.status_code == 200
    text = text_of(response)
    assert "No papers match these filters" in text
    assert "0 of 18 items" in text


@pytest.mark.parametrize(
    "params",
    [
        {"year": "abc"},
        {"year": "20260"},
        {"tag": "no-such-tag"},
        {"layer": "no-such-layer"},
        {"sort": "sideways"},
        {"q": "x" * 201},
    ],
)
def test_invalid_filter_values_are_a_400_with_the_form(client, demo, params):
    response = client.get(INDEX, params)
    assert response.status_code == 400
    assert "Some filters could not be used" in text_of(response)


def test_a_nul_in_the_search_is_a_400_naming_the_parameter(client, demo):
    # Refused before the view runs (core.middleware), as on every page.
    response = client.get(INDEX, {"q": "nul\x00byte"})
    assert response.status_code == 400
    assert "q : Control characters" in text_of(response)


@pytest.mark.parametrize("page", ["999", "0", "-1", "abc"])
def test_a_page_that_does_not_exist_is_a_404(client, demo, page):
    assert client.get(INDEX, {"page": page}).status_code == 404


def test_a_year_with_no_papers_is_an_empty_page_not_an_error(client, demo):
    response = client.get(INDEX, {"year": "1999"})
    assert response.status_code == 200
    assert "No papers match these filters" in text_of(response)


def test_drafts_and_future_publications_never_appear(client, demo):
    PaperFactory(title="Secret draft paper", draft=True)
    PaperFactory(
        title="Embargoed paper",
        published_at=datetime.datetime(2999, 1, 1, tzinfo=datetime.UTC),
    )
    response = client.get(INDEX, {"q": "paper"})
    assert "Secret draft paper" not in text_of(response)
    assert "Embargoed paper" not in text_of(response)
    assert "18 items" in text_of(client.get(INDEX))


def test_tag_and_layer_choices_come_from_published_content(client, demo):
    LayerFactory(name="Hidden layer", slug="hidden-layer", draft=True)
    response = client.get(INDEX)
    html = response.content.decode()
    assert '<option value="ppo">PPO</option>' in html  # the tag's display name
    assert '<option value="rewards">Rewards</option>' in html
    assert "Hidden layer" not in html
    assert '<option value="2017">2017</option>' in html
    assert client.get(INDEX, {"layer": "hidden-layer"}).status_code == 400


def test_a_layer_filter_reads_the_layers_once(
    client, demo, settings, django_assert_max_num_queries
):
    """The form validates the chosen layer and lists them all: one read of the layers (a
    second would be one more query)."""
    from django.db import connection

    settings.PAGE_CACHE_SECONDS = 0
    # On PostgreSQL one more statement sets the anonymous request's limits (session_limits.py).
    with django_assert_max_num_queries(8 + (connection.vendor == "postgresql")):
        response = client.get(INDEX, {"layer": "rewards"})
    assert response.status_code == 200
    assert '<option value="rewards" selected>Rewards</option>' in response.content.decode()


def test_pagination_keeps_the_filters(client, db):
    for number in range(25):
        PaperFactory(title=f"Batch study {number:02d}", byline="Lab")
    first = client.get(INDEX, {"q": "Batch study"})
    assert len(titles(first)) == 20
    html = first.content.decode()
    assert "Page 1 of 2" in text_of(first)
    assert 'href="?q=Batch+study&amp;page=2"' in html
    second = client.get(INDEX, {"q": "Batch study", "page": 2})
    assert len(titles(second)) == 5
    assert not set(titles(first)) & set(titles(second))


def test_a_search_counts_a_bounded_number_of_papers_and_says_more_than(
    client, db, monkeypatch, django_assert_max_num_queries
):
    """A search's matches are not stored: counting every one of tens of thousands at 100k
    papers is not paid for a page of twenty. It counts INDEX_COUNT_AHEAD past the page's start
    and says "more than"; each later page counts further, and the last one is exact."""
    monkeypatch.setattr("web.papers.INDEX_COUNT_AHEAD", 21)
    for number in range(65):
        PaperFactory(title=f"Batch study {number:02d}", byline="Lab")
    first = client.get(INDEX, {"q": "Batch study"})
    assert "more than 21 of 65 items" in text_of(first)
    assert "Page 1 of more than 2" in text_of(first)
    third = client.get(INDEX, {"q": "Batch study", "page": 3})
    assert "more than 61 of 65 items" in text_of(third)
    with django_assert_max_num_queries(INDEX_QUERY_CEILING):
        last = client.get(INDEX, {"q": "Batch study", "page": 4})
    assert "65 of 65 items" in text_of(last) and "more than" not in text_of(last)
    assert "Page 4 of 4" in text_of(last)
    assert len(titles(last)) == 5
    assert client.get(INDEX, {"q": "Batch study", "page": 5}).status_code == 404


def test_query_count_does_not_grow_with_the_items_shown(
    client, demo, django_assert_max_num_queries
):
    with django_assert_max_num_queries(INDEX_QUERY_CEILING):
        client.get(INDEX)
    layer = LayerFactory()
    for number in range(30):
        paper = PaperFactory()
        paper.tags.add(f"tag-{number}", "shared")
        paper.layers.add(layer)
        author = Author.objects.create(name=f"Author {number}")
        Authorship.objects.create(paper=paper, author=author)
    cache.clear()  # the new tag joins the cached tag choices within a minute
    with django_assert_max_num_queries(INDEX_QUERY_CEILING):
        response = client.get(INDEX, {"tag": "shared"})
    assert len(titles(response)) == 20
    with django_assert_max_num_queries(INDEX_QUERY_CEILING):
        client.get(INDEX, {"q": "Scaling", "sort": "oldest", "page": 2})


def test_a_new_tag_is_listed_at_once(client, demo):
    # The tag choices are a cheap semi-join now, read afresh; the tag's m2m change also
    # invalidates the cached index page.
    client.get(INDEX)
    PaperFactory(title="Newly tagged").tags.add("brand-new")
    response = client.get(INDEX, {"tag": "brand-new"})
    assert titles(response) == ["Newly tagged"]


def test_choices_stay_current_after_the_filterset_class_is_inspected(client, db):
    for query_filter in ResearchIndexFilter.base_filters.values():
        query_filter.field  # noqa: B018 - what schema and fuzzing tools do; it caches the field
    layer = LayerFactory(slug="brand-new-layer", published_at=timezone.now())
    PaperFactory(title="On the new layer").layers.add(layer)
    response = client.get(INDEX, {"layer": "brand-new-layer"})
    assert response.status_code == 200
    assert titles(response) == ["On the new layer"]


def test_the_header_search_box_is_labelled_and_targets_the_site_search(client, demo):
    html = client.get("/").content.decode()
    assert '<label class="visually-hidden" for="site-search-q">' in html
    assert 'action="/search/" method="get"' in html


def test_the_research_index_shows_one_search_box_its_own(client, demo):
    html = client.get(INDEX).content.decode()
    assert html.count('type="search"') == 1
    assert 'id="site-search-q"' not in html


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranked on PostgreSQL only")
def test_best_match_ranks_only_the_newest_matches_and_lists_the_older_ones_after_them(
    client, db, monkeypatch
):
    """Ranking every match of a common word read each one's document (issue 15): the newest
    RANKED_MATCHES are ranked, every older match follows, newest first, however well it
    matches."""
    monkeypatch.setattr(filters, "RANKED_MATCHES", 2)
    for title, year in [
        ("Walrus walrus walrus", 2010),
        ("Walrus walrus", 2020),
        ("A walrus study", 2024),
        ("Walrus notes", 2025),
    ]:
        PaperFactory(title=title, publication_date=datetime.date(year, 1, 1))
    listed = titles(client.get(INDEX, {"q": "walrus"}))
    assert sorted(listed[:2]) == ["A walrus study", "Walrus notes"]
    assert listed[2:] == ["Walrus walrus", "Walrus walrus walrus"]
    assert titles(client.get(INDEX, {"q": "walrus", "sort": "relevance"})) == listed


def test_an_option_an_editor_adds_and_the_value_a_reader_chose_show_at_once(client, settings):
    settings.PAGE_CACHE_SECONDS = 0  # every request runs the view, as a page-cache miss does
    for n in range(3):
        PaperFactory(title=f"Indexed {n}", in_research_index=True).tags.add("grpo", f"tag-{n}")
    assert '<option value="tag-2">' in client.get("/research/").content.decode()
    PaperFactory(title="New", in_research_index=True).tags.add("brand-new-tag")
    assert '<option value="brand-new-tag">' in client.get("/research/").content.decode()
    html = client.get("/research/?tag=tag-1").content.decode()
    assert '<option value="tag-1" selected>' in html
    html = client.get("/research/?tag=tag-2").content.decode()
    assert '<option value="tag-2" selected>' in html and '"tag-1" selected' not in html
