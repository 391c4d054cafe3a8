"""Cache-Control is well formed on every answer, and nothing the site renders from editorial
content is kept by a shared cache beyond the page cache's rules: the page cache forgets a
page when content changes (its generation), a proxy or CDN cannot, so a withdrawn paper's
card or title stayed there for `max-age`. Anonymous HTML got `no-cache, private=None`."""

import re

import pytest
from django.test import Client

from tests.factories import PaperFactory
from tests.security.test_bad_input import public_urls

pytestmark = pytest.mark.django_db

DIRECTIVE = re.compile(r'^[a-z-]+(=(\d+|"[^"]*"|[a-z-]+))?$')


def directives(response):
    header = response.get("Cache-Control", "")
    return [part.strip() for part in header.split(",") if part.strip()]


def assert_well_formed_and_not_shared(response, what):
    parts = directives(response)
    for part in parts:
        assert DIRECTIVE.match(part), (what, response["Cache-Control"])
        assert not part.endswith("=None"), (what, response["Cache-Control"])
    names = {part.split("=")[0] for part in parts}
    if "public" in names or ("max-age" in names and "no-cache" not in names):
        # Whatever a browser may keep, a shared cache may not.
        assert names & {"private", "no-store"} or "s-maxage=0" in parts, (what, parts)


def test_anonymous_html_has_a_well_formed_cache_control():
    response = Client().get("/")
    assert response["Cache-Control"] == "no-cache"


def test_signed_in_html_is_private(client, editor):
    client.force_login(editor)
    parts = directives(client.get("/"))
    assert set(parts) == {"no-cache", "private"}


def test_a_papers_card_and_suggestions_are_not_kept_by_shared_caches():
    paper = PaperFactory(title="Scaling Withdrawal Study")
    card = Client().get(f"/papers/{paper.slug}/card.png")
    assert card.status_code == 200
    assert "public" not in card["Cache-Control"]
    assert_well_formed_and_not_shared(card, "card")
    suggestions = Client().get("/search/suggest/", {"q": "Withdrawal"})
    assert suggestions.status_code == 200
    assert "Scaling Withdrawal Study" in suggestions.content.decode()
    assert "public" not in suggestions["Cache-Control"]
    assert_well_formed_and_not_shared(suggestions, "suggest")
    # The page cache itself still serves the card (its rules forget it on a change).
    again = Client().get(f"/papers/{paper.slug}/card.png")
    assert again.status_code == 200 and again.content == card.content


def test_every_public_answer_has_well_formed_cache_control_kept_from_shared_caches(demo):
    for name, url in public_urls().items():
        response = Client().get(url)
        assert_well_formed_and_not_shared(response, name)
