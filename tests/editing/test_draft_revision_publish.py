"""Publishing a draft revision never writes over a field changed live since it was saved
without the editor choosing: a field changed only live keeps its live value; a field changed
on both sides is named with both values, and the editor picks one."""

import html

import pytest
from django.urls import reverse

from notes.models import ResearchNote
from tests.factories import ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(note):
    return reverse("admin:notes_researchnote_change", args=[note.pk])


@pytest.fixture
def diverged(editor_client):
    note = ResearchNoteFactory(title="Live title", dek="Published standfirst.")
    data = admin_form_data(editor_client.get(change_url(note)), ResearchNote)
    data.update(dek=["The draft's standfirst."], _save_draft_revision=["Save as draft revision"])
    assert editor_client.post(change_url(note), data).status_code == 302
    # Meanwhile, the live item is corrected on both fields.
    live = ResearchNote.objects.get(pk=note.pk)
    live.title, live.dek = "Corrected live title", "Corrected live standfirst."
    live.save()
    return note


def publish(client, note, **choices):
    data = admin_form_data(client.get(change_url(note)), ResearchNote)
    data["_publish_draft_revision"] = ["Publish draft revision"]
    data.update({f"_conflict_{name}": [choice] for name, choice in choices.items()})
    return client.post(change_url(note), data)


def test_a_field_changed_on_both_sides_is_named_with_both_values(editor_client, diverged):
    response = publish(editor_client, diverged)
    assert response.status_code == 200
    page = html.unescape(text_of(response))
    assert "Changed since this draft revision was saved" in page
    assert "Corrected live standfirst." in page and "The draft's standfirst." in page
    note = ResearchNote.objects.get(pk=diverged.pk)
    assert note.dek == "Corrected live standfirst."  # nothing written yet


def test_the_editor_chooses_and_a_live_only_change_is_kept(editor_client, diverged):
    response = publish(editor_client, diverged, dek="draft")
    assert response.status_code == 302, text_of(response)[:1500]
    note = ResearchNote.objects.get(pk=diverged.pk)
    assert note.dek == "The draft's standfirst."
    assert note.title == "Corrected live title"  # changed live only: never reverted


def test_keeping_the_live_value(editor_client, diverged):
    assert publish(editor_client, diverged, dek="live").status_code == 302
    note = ResearchNote.objects.get(pk=diverged.pk)
    assert note.dek == "Corrected live standfirst." and note.title == "Corrected live title"
