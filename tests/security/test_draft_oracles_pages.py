"""The public pages' reference parameters answer a draft exactly as a row that does not exist
(issue 11, point 7, the HTML side of tests/api/test_draft_oracles.py): the same status and the
same page, but for the slug itself, so a guessed draft slug tells a reader nothing."""

import pytest
from django.test import Client

from tests.factories import (
    ClaimFactory,
    FailureSignalFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)

pytestmark = pytest.mark.django_db

DRAFT = "secret-draft"
MISSING = "made-up-slug"

# Every public URL that takes a reference to another editorial row, with `{}` for the slug.
REFERENCE_URLS = [
    "/research/?tag={}",
    "/research/?layer={}",
    "/claims/?layer={}",
    "/diagnose/?signal={}",
    "/diagnose/bottlenecks/?signal=public-signal&layer={}",
    "/diagnose/tests/?signal=public-signal&layer={}",
    "/tags/{}/",
    "/papers/{}/",
    "/papers/{}.bib",
    "/notes/{}/",
    "/bottlenecks/{}/",
]


@pytest.fixture
def drafts(demo):
    """A draft of every kind a public URL names, each linked to published rows, and a tag
    used only by drafts."""
    public = PaperFactory(slug="public-paper")
    paper = PaperFactory(draft=True, slug=DRAFT)
    paper.tags.add(DRAFT)
    layer = LayerFactory(draft=True, slug=DRAFT)
    public.layers.add(layer)
    note = ResearchNoteFactory(draft=True, slug=DRAFT)
    note.tags.add(DRAFT)
    FailureSignalFactory(slug="public-signal").layers.add(layer)
    FailureSignalFactory(draft=True, slug=DRAFT)
    ClaimFactory().layers.add(layer)


def page(response, slug):
    return response.status_code, response.content.decode().replace(slug, "<slug>")


@pytest.mark.parametrize("url", REFERENCE_URLS)
def test_a_draft_reference_answers_like_a_missing_one(drafts, url):
    client = Client()
    draft = client.get(url.format(DRAFT))
    missing = client.get(url.format(MISSING))
    assert draft.status_code in (200, 302, 400, 404)
    assert page(draft, DRAFT) == page(missing, MISSING)


def test_the_fixture_really_makes_the_drafts_findable_for_editors(drafts, editor_client):
    assert editor_client.get(f"/papers/{DRAFT}/").status_code == 200
    assert editor_client.get(f"/notes/{DRAFT}/").status_code == 200
