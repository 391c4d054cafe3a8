"""A draft revision that edits an inline row (a paper's citation edge) is rebased on the row
as it is now when someone saves that row meanwhile: the draft's changes stay where the row did
not change, the row's live changes stay where the draft did not touch it, and a field changed
on both sides is shown with both values for the editor to choose. Never stuck."""

import html

import pytest
from django.urls import reverse

from citations.models import Citation, Paper
from publishing.revisions import DraftRevision
from tests.factories import CitationFactory, PaperFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(paper):
    return reverse("admin:citations_paper_change", args=[paper.pk])


@pytest.fixture
def edge(editor_client):
    """A live paper whose draft revision edits its citation row's sentence."""
    edge = CitationFactory(
        citing_paper=PaperFactory(title="Live paper"), context="The published sentence."
    )
    data = admin_form_data(editor_client.get(change_url(edge.citing_paper)), Paper)
    row = next(
        key for key, value in data.items() if key.endswith("-id") and value == [str(edge.pk)]
    )
    data[row.replace("-id", "-context")] = ["The draft's sentence."]
    data["_save_draft_revision"] = ["Save as draft revision"]
    assert editor_client.post(change_url(edge.citing_paper), data).status_code == 302
    edge.prefix = row.removesuffix("-id")
    return edge


def saved_live(edge, **values):
    live = Citation.objects.get(pk=edge.pk)
    for name, value in values.items():
        setattr(live, name, value)
    live.save()


def publish(client, paper, **choices):
    data = admin_form_data(client.get(change_url(paper)), Paper)
    data["_publish_draft_revision"] = ["Publish draft revision"]
    data.update({f"_conflict_{name}": [choice] for name, choice in choices.items()})
    return client.post(change_url(paper), data)


def test_a_row_saved_meanwhile_is_rebased_keeping_both_changes(editor_client, edge):
    saved_live(edge, is_representative=True, representative_reason="Chosen live.")
    page = editor_client.get(change_url(edge.citing_paper))
    assert "Please correct" not in text_of(page)
    form = admin_form_data(page, Paper)
    assert form[f"{edge.prefix}-context"] == ["The draft's sentence."]
    assert form[f"{edge.prefix}-representative_reason"] == ["Chosen live."]

    response = publish(editor_client, edge.citing_paper)

    assert response.status_code == 302, text_of(response)[:2000]
    live = Citation.objects.get(pk=edge.pk)
    assert live.context == "The draft's sentence." and live.is_representative
    assert live.representative_reason == "Chosen live."
    assert not DraftRevision.objects.for_object(edge.citing_paper).exists()


def test_a_row_field_changed_on_both_sides_is_shown_and_chosen(editor_client, edge):
    saved_live(edge, context="The corrected live sentence.")
    page = html.unescape(text_of(editor_client.get(change_url(edge.citing_paper))))
    assert "Changed since this draft revision was saved" in page
    assert "The corrected live sentence." in page and "The draft's sentence." in page

    asked = publish(editor_client, edge.citing_paper)
    assert asked.status_code == 200
    assert Citation.objects.get(pk=edge.pk).context == "The corrected live sentence."

    # Re-saving the draft revision is not refused either.
    data = admin_form_data(asked, Paper)
    data["_save_draft_revision"] = ["Save as draft revision"]
    assert editor_client.post(change_url(edge.citing_paper), data).status_code == 302

    response = publish(editor_client, edge.citing_paper, **{f"{edge.prefix}-context": "live"})
    assert response.status_code == 302, text_of(response)[:2000]
    assert Citation.objects.get(pk=edge.pk).context == "The corrected live sentence."
