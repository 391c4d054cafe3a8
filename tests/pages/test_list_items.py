"""The items of a list page (papers, notes, claims, a hub's citing and cited papers) show what
their list asks for, as published now: an edit, a tag added or a note withdrawn is on every
list at the next request, and readers and editors see the same items."""

import datetime

import pytest
from django.utils import timezone

from publishing.models import Status
from tests.factories import (
    CitationFactory,
    ClaimFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_page_cache(settings):
    """Every request renders its page, as a page-cache miss does."""
    settings.PAGE_CACHE_SECONDS = 0


@pytest.fixture
def papers():
    layer = LayerFactory(slug="reward-layer", name="Reward layer")
    papers = [PaperFactory(title=f"Listed paper {n}", in_research_index=True) for n in range(3)]
    for paper in papers:
        paper.tags.add("grpo")
        paper.layers.add(layer)
    ResearchNoteFactory(title="A published note").papers.add(papers[0])
    return papers


def get(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def items_html(html):
    start = html.index('<ul class="paper-list">')
    return html[start : html.index("</ul>", html.index("paper-list__foot", start))]


def test_an_edited_title_is_on_every_list_at_once(client, papers):
    get(client, "/research/")
    papers[1].title = "A retitled paper"
    papers[1].save()
    for url in ("/research/", "/papers/", "/tags/grpo/", "/bottlenecks/reward-layer/"):
        html = get(client, url)
        assert "A retitled paper" in html and "Listed paper 1" not in html, url


def test_a_tag_added_and_a_note_unpublished_are_on_the_list_at_once(client, papers):
    get(client, "/papers/")
    papers[2].tags.add("reward-models")
    assert 'href="/tags/reward-models/"' in get(client, "/papers/")
    note = papers[0].notes.get()
    note.status = Status.DRAFT
    note.save()
    assert "Read the research note" not in get(client, "/papers/")


def test_an_item_shows_what_its_list_asks_for(client, papers):
    """The same paper shows its citing count on /papers/ and not elsewhere; its foot (tags,
    notes) on the index and /papers/, not on a tag's page."""
    assert "Cited by 0 papers" in get(client, "/papers/")
    index_html = get(client, "/research/")
    assert "Cited by" not in index_html and "paper-list__foot" in index_html
    tag_html = get(client, "/tags/grpo/")
    assert "Cited by" not in tag_html and "paper-list__foot" not in tag_html


def test_items_keep_the_order_of_their_list(client, papers):
    html = get(client, "/papers/?sort=title")
    positions = [html.index(f"Listed paper {n}") for n in range(3)]
    assert positions == sorted(positions)


def test_an_editor_and_a_reader_see_the_same_items(client, papers):
    reader_html = get(client, "/research/")
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert items_html(get(client, "/research/")) == items_html(reader_html)


@pytest.fixture
def claims():
    from evidence.models import EvidenceStatus

    source = PaperFactory(title="Claim source")
    claims = [
        ClaimFactory(statement=f"Claim {n}", evidence_status=EvidenceStatus.REPORTED)
        for n in range(3)
    ]
    for claim in claims:
        claim.papers.add(source)
    return claims


def test_the_claims_page_shows_each_claim_with_its_source_as_it_is_now(client, claims):
    html = get(client, "/claims/?status=reported")
    assert html.count('class="claim"') == 3 and "Claim source" in html
    claims[0].statement = "A restated claim"
    claims[0].save()
    html = get(client, "/claims/")
    assert "A restated claim" in html and "Claim 0" not in html


def test_a_claim_says_its_review_is_overdue_from_the_day_it_is(client, claims, monkeypatch):
    today = timezone.localdate()
    claims[0].last_reviewed = today - datetime.timedelta(days=30)
    claims[0].review_due = today + datetime.timedelta(days=1)
    claims[0].save()
    assert "review due" in get(client, "/claims/")
    monkeypatch.setattr(timezone, "localdate", lambda: today + datetime.timedelta(days=2))
    assert "review overdue since" in get(client, "/claims/")


def test_a_hub_lists_its_citing_papers_and_what_it_cites_as_they_are_now(client):
    hub, cited = PaperFactory(title="The hub"), PaperFactory(title="Cited by the hub")
    edges = [
        CitationFactory(cited_paper=hub, citing_paper=PaperFactory(title=f"Citer {n}"))
        for n in range(3)
    ]
    CitationFactory(citing_paper=hub, cited_paper=cited)
    html = get(client, hub.get_absolute_url())
    assert all(f"Citer {n}" in html for n in range(3)) and "Cited by the hub" in html
    edges[1].context = "As the hub shows, scaling holds."
    edges[1].save()
    assert "As the hub shows, scaling holds." in get(client, hub.get_absolute_url())
