"""Cards rendered once per content generation (rlscaling/fragments.py, issue 15): a page the
page cache does not answer (another filter or page number, a session, an entry past its
time) reads the cards it shares with other pages in one round trip, and neither renders them
nor loads what they show again; every editorial change is on every card at once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rlscaling.fragments import card_keys, render_cards
from rlscaling.publishing import Status
from tests.factories import LayerFactory, PaperFactory, ResearchNoteFactory, UserFactory
from tests.helpers import templates_rendered

pytestmark = pytest.mark.django_db

TAGS_OF_PAPERS = 'INNER JOIN "citations_taggedpaper"'
NOTES_OF_PAPERS = 'INNER JOIN "notes_researchnote_papers"'
PAPERS_OF_NOTES = 'FROM "citations_paper" INNER JOIN "notes_researchnote_papers"'


@pytest.fixture(autouse=True)
def no_page_cache(settings):
    """Every request renders its page, as a page-cache miss does."""
    settings.PAGE_CACHE_SECONDS = 0


@pytest.fixture
def papers():
    layer = LayerFactory(slug="reward-layer", name="Reward layer")
    papers = [PaperFactory(title=f"Card paper {n}", in_research_index=True) for n in range(3)]
    for paper in papers:
        paper.tags.add("grpo")
        paper.layers.add(layer)
    ResearchNoteFactory(title="A published note").papers.add(papers[0])
    return papers


def get(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode(), [query["sql"] for query in queries.captured_queries]


def cards_html(html):
    start = html.index('<ul class="paper-list">')
    return html[start : html.index("</ul>", html.index("paper-list__foot", start))]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("/research/", "/research/?sort=newest"),
        ("/papers/", "/papers/?page=1"),
        ("/notes/", "/notes/?sort=newest"),
    ],
)
def test_a_page_that_shares_its_cards_with_a_rendered_one_does_not_load_them_again(
    client, papers, first, second
):
    first_html, first_queries = get(client, first)
    second_html, second_queries = get(client, second)
    card_reads = (TAGS_OF_PAPERS, NOTES_OF_PAPERS, PAPERS_OF_NOTES)
    assert any(read in sql for sql in first_queries for read in card_reads), first_queries
    assert not [sql for sql in second_queries if any(read in sql for read in card_reads)]
    assert len(second_queries) < len(first_queries)
    if "/notes/" not in first:
        assert cards_html(second_html) == cards_html(first_html)
        assert 'href="/tags/grpo/"' in second_html and "Read the research note" in second_html
    else:
        assert "Card paper 0" in second_html


def test_an_edited_title_is_on_every_card_at_once(client, papers):
    get(client, "/research/")
    papers[1].title = "A retitled paper"
    papers[1].save()
    for url in ("/research/", "/papers/", "/tags/grpo/", "/bottlenecks/reward-layer/"):
        html, _ = get(client, url)
        assert "A retitled paper" in html and "Card paper 1" not in html, url


def test_a_tag_added_and_a_note_unpublished_are_on_the_cards_at_once(client, papers):
    get(client, "/papers/")
    papers[2].tags.add("reward-models")
    html, _ = get(client, "/papers/")
    assert 'href="/tags/reward-models/"' in html
    note = papers[0].notes.get()
    note.status = Status.DRAFT
    note.save()
    html, _ = get(client, "/papers/")
    assert "Read the research note" not in html


def test_a_card_shows_what_its_list_asks_for_in_the_same_generation(client, papers):
    """The same paper is a card with its citing count on /papers/ and without it elsewhere."""
    papers_html, _ = get(client, "/papers/")
    index_html, _ = get(client, "/research/")
    tag_html, _ = get(client, "/tags/grpo/")
    assert "Cited by 0 papers" in papers_html
    assert "Cited by" not in index_html
    assert "Cited by" not in tag_html and "paper-list__foot" not in tag_html


def test_an_editor_and_a_reader_see_the_same_cards(client, papers):
    reader_html, _ = get(client, "/research/?sort=newest")
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    editor_html, editor_queries = get(client, "/research/")
    assert cards_html(editor_html) == cards_html(reader_html)
    assert not [sql for sql in editor_queries if TAGS_OF_PAPERS in sql]


def test_with_no_fragment_cache_every_page_loads_its_cards(client, papers, settings):
    settings.FRAGMENT_CACHE_SECONDS = 0
    get(client, "/research/")
    html, queries = get(client, "/research/?sort=newest")
    assert [sql for sql in queries if TAGS_OF_PAPERS in sql]
    assert "Card paper 0" in html


def test_an_unreachable_cache_renders_the_cards_from_the_database(papers, monkeypatch):
    from redis.exceptions import ConnectionError as RedisConnectionError

    def unreachable(*args, **kwargs):
        raise RedisConnectionError("down")

    monkeypatch.setattr("rlscaling.fragments.cache.get_many", unreachable)
    monkeypatch.setattr("rlscaling.fragments.cache.set_many", unreachable)
    html = render_cards(
        papers, "citations/includes/paper_item.html", "paper", show_foot=True, show_cited=False
    )
    assert html.count("<li>") >= 3 and "Card paper 2" in html and "/tags/grpo/" in html


def test_cards_keep_the_order_of_their_list(papers):
    listed = [papers[2], papers[0], papers[1]]
    render_cards(listed[:1], "citations/includes/paper_item.html", "paper")
    html = render_cards(listed, "citations/includes/paper_item.html", "paper")
    positions = [html.index(f"Card paper {n}") for n in (2, 0, 1)]
    assert positions == sorted(positions)


def test_an_edited_card_template_or_one_it_includes_is_a_new_card(papers, settings, tmp_path):
    """As under runserver: an edited file empties the template loaders' cache (autoreload's
    `reset_loaders`), and the cards' keys change with it. Until then the loaded template's
    digest is kept, as the loaded template itself is."""
    from django.template.autoreload import reset_loaders
    from django.template.loader import get_template

    card, part = tmp_path / "card.html", tmp_path / "card_part.html"
    card.write_text('{{ paper.title }}{% include "card_part.html" %}')
    part.write_text("part")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    before = card_keys(papers, get_template("card.html"), {})

    part.write_text("part, edited")
    assert card_keys(papers, get_template("card.html"), {}) == before
    reset_loaders()
    included_edited = card_keys(papers, get_template("card.html"), {})
    assert set(included_edited).isdisjoint(before)

    card.write_text('{{ paper.title }}, edited{% include "card_part.html" %}')
    reset_loaders()
    assert set(card_keys(papers, get_template("card.html"), {})).isdisjoint(included_edited)


def test_a_card_templates_includes_are_read_once_per_loaded_template(papers, monkeypatch):
    from django.template.loader import get_template

    from rlscaling import fragments

    card = get_template("citations/includes/paper_item.html")
    card_keys(papers, card, {})
    walks = []
    monkeypatch.setattr(fragments, "template_sources", lambda template: walks.append(template))
    card_keys(papers, card, {"show_foot": True})
    card_keys(papers, get_template("citations/includes/paper_item.html"), {})
    assert walks == []


@pytest.fixture
def claims():
    from bottlenecks.evidence import EvidenceStatus
    from tests.factories import ClaimFactory

    source = PaperFactory(title="Claim source")
    claims = [
        ClaimFactory(statement=f"Claim {n}", evidence_status=EvidenceStatus.REPORTED)
        for n in range(3)
    ]
    for claim in claims:
        claim.papers.add(source)
    return claims


def test_the_claims_page_shares_its_claim_cards_across_its_filters(client, claims):
    get(client, "/claims/")
    html, queries = get(client, "/claims/?status=reported")
    assert not [sql for sql in queries if 'INNER JOIN "bottlenecks_claim_papers"' in sql]
    assert html.count('class="claim"') == 3 and "Claim source" in html
    claims[0].statement = "A restated claim"
    claims[0].save()
    html, _ = get(client, "/claims/")
    assert "A restated claim" in html and "Claim 0" not in html


def test_a_claim_card_says_its_review_is_overdue_from_the_day_it_is(client, claims, monkeypatch):
    import datetime

    from django.utils import timezone

    today = timezone.localdate()
    claims[0].last_reviewed = today - datetime.timedelta(days=30)
    claims[0].review_due = today + datetime.timedelta(days=1)
    claims[0].save()
    assert "review due" in get(client, "/claims/")[0]
    monkeypatch.setattr(timezone, "localdate", lambda: today + datetime.timedelta(days=2))
    assert "review overdue since" in get(client, "/claims/")[0]


def test_a_hubs_explorer_rows_and_what_it_cites_are_cards(client):
    from tests.factories import CitationFactory

    hub, cited = PaperFactory(title="The hub"), PaperFactory(title="Cited by the hub")
    edges = [
        CitationFactory(cited_paper=hub, citing_paper=PaperFactory(title=f"Citer {n}"))
        for n in range(3)
    ]
    CitationFactory(citing_paper=hub, cited_paper=cited)
    url = hub.get_absolute_url()
    first, rows = templates_rendered(client, url, "citations/includes/citing_item.html")
    assert rows == 4
    again, rows = templates_rendered(client, url, "citations/includes/citing_item.html")
    assert rows == 0 and again.count("Citer ") == first.count("Citer ") >= 3
    assert "Cited by the hub" in again
    edges[1].context = "As the hub shows, scaling holds."
    edges[1].save()
    html, rows = templates_rendered(client, url, "citations/includes/citing_item.html")
    assert "As the hub shows, scaling holds." in html and rows == 4
