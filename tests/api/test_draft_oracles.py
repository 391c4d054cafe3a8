"""Filters that take a reference answer a draft exactly as a row that does not exist, for
anyone who may not see drafts (issue 11, point 7): no count, status or body tells them apart."""

import pytest
from rest_framework.test import APIClient

from tests.factories import (
    CitationFactory,
    ClaimFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)
from tests.helpers import token_client

pytestmark = pytest.mark.django_db

DRAFT = "secret-draft"
MISSING = "made-up-slug"

# (list endpoint, reference parameter): every filter that names another editorial row.
REFERENCE_FILTERS = [
    ("/api/v1/notes/", "paper"),
    ("/api/v1/notes/", "layer"),
    ("/api/v1/papers/", "cited_by"),
    ("/api/v1/papers/", "cites"),
    ("/api/v1/papers/", "layer"),
    ("/api/v1/citations/", "citing"),
    ("/api/v1/citations/", "cited"),
    ("/api/v1/claims/", "layer"),
    ("/api/v1/claims/", "paper"),
]


@pytest.fixture
def drafts():
    """A draft paper and a draft layer, each linked to published rows in every direction."""
    public = PaperFactory(slug="public-paper")
    paper = PaperFactory(draft=True, slug=DRAFT)
    layer = LayerFactory(draft=True, slug=DRAFT)
    public.layers.add(layer)
    note = ResearchNoteFactory()
    note.papers.add(paper)
    note.layers.add(layer)
    CitationFactory(citing_paper=paper, cited_paper=public)
    CitationFactory(citing_paper=public, cited_paper=paper)
    claim = ClaimFactory()
    claim.papers.add(paper)
    claim.layers.add(layer)


def shape(response):
    body = response.json()
    return response.status_code, body.get("count"), len(body.get("results", [])), body.get("errors")


def without_value(response, value):
    return response.content.decode().replace(value, "<slug>")


@pytest.mark.parametrize(("endpoint", "parameter"), REFERENCE_FILTERS)
def test_a_draft_reference_answers_like_a_missing_one(drafts, endpoint, parameter):
    client = APIClient()
    draft = client.get(endpoint, {parameter: DRAFT})
    missing = client.get(endpoint, {parameter: MISSING})
    assert shape(draft) == shape(missing)
    assert without_value(draft, DRAFT) == without_value(missing, MISSING)


@pytest.mark.parametrize(("endpoint", "parameter"), REFERENCE_FILTERS)
def test_editors_do_find_the_draft(drafts, editor, endpoint, parameter):
    response = token_client(editor).get(endpoint, {parameter: DRAFT})
    assert response.status_code == 200
    assert response.json()["results"], response.json()


def test_a_signed_in_reader_without_view_rights_sees_no_difference_either(drafts, reader):
    client = token_client(reader)
    draft = client.get("/api/v1/notes/", {"paper": DRAFT})
    missing = client.get("/api/v1/notes/", {"paper": MISSING})
    assert shape(draft) == shape(missing)
