"""Publishing an item asks about the rows submitted for review that hang on it (a paper's
citation edges): publish them with it, or leave them in review knowingly; never silently."""

import pytest
from django.urls import reverse

from citations.models import Citation, Paper
from publishing.models import Status
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:citations_paper_changelist")


@pytest.fixture
def submitted():
    hub = PaperFactory(
        status=Status.REVIEW,
        published_at=None,
        title="The hub paper",
        url="https://example.org/hub",
    )
    citing = PaperFactory(title="The citing paper")
    edge = CitationFactory(
        citing_paper=citing,
        cited_paper=hub,
        status=Status.REVIEW,
        published_at=None,
        role=CitationRoleFactory(),
        polarity=CitationPolarityFactory(),
    )
    return hub, edge


def publish(client, hub, **extra):
    data = {"action": "publish_selected", "_selected_action": [hub.pk], **extra}
    return client.post(CHANGELIST, data, follow=True)


def test_publishing_a_paper_asks_about_its_submitted_edges(editor_client, submitted):
    hub, edge = submitted
    response = publish(editor_client, hub)
    assert "Publish them too" in text_of(response)
    assert "The citing paper" in text_of(response)
    hub.refresh_from_db()
    assert hub.status == Status.REVIEW  # nothing done before the editor answers


def test_publish_them_too_publishes_the_edge_and_moves_the_hub_count(editor_client, submitted):
    hub, edge = submitted
    response = publish(editor_client, hub, post="yes", submitted_children="publish")
    assert "Published 1 submitted" in text_of(response)
    assert Paper.objects.get(pk=hub.pk).status == Status.PUBLISHED
    assert Citation.objects.get(pk=edge.pk).status == Status.PUBLISHED
    assert Paper.objects.get(pk=hub.pk).citation_summary().total == 1


def test_leaving_them_says_what_stays_in_review(editor_client, submitted):
    hub, edge = submitted
    response = publish(editor_client, hub, post="yes", submitted_children="leave")
    assert "Left in review, not public: 1" in text_of(response)
    assert Paper.objects.get(pk=hub.pk).status == Status.PUBLISHED
    assert Citation.objects.get(pk=edge.pk).status == Status.REVIEW


def test_unpublishing_asks_first_and_names_what_readers_lose(editor_client):
    live = PaperFactory(title="A live paper")
    draft = PaperFactory(title="Already a draft", draft=True)
    data = {"action": "unpublish_selected", "_selected_action": [live.pk, draft.pk]}

    asked = editor_client.post(CHANGELIST, data)

    assert asked.status_code == 200
    assert "Yes, unpublish them" in text_of(asked)
    assert "A live paper (public now)" in text_of(asked)
    assert "Already a draft (public now)" not in text_of(asked)
    assert Paper.objects.get(pk=live.pk).status == Status.PUBLISHED  # nothing done yet

    done = editor_client.post(CHANGELIST, {**data, "post": "yes"}, follow=True)

    assert "back to draft." in text_of(done)
    assert Paper.objects.get(pk=live.pk).status == Status.DRAFT
