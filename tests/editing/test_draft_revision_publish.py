"""Publishing a draft revision never writes over a field changed live since it was saved
without the editor choosing: a field changed only live keeps its live value; a field changed
on both sides is named with both values, and the editor picks one."""

import html

import pytest
from django.urls import reverse

from notes.models import ResearchNote
from tests.factories import LayerFactory, ResearchNoteFactory
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


def test_the_loaded_draft_revision_names_what_changed_live_with_both_values(
    editor_client, diverged
):
    response = editor_client.get(change_url(diverged))
    page = html.unescape(text_of(response))
    assert "Changed since this draft revision was saved" in page
    conflict = page.split("Changed since this draft revision was saved")[1].split("Title")[0]
    assert "Corrected live standfirst." in conflict and "The draft's standfirst." in conflict
    assert "kept as published (the draft revision had not changed them): title." in page
    form = admin_form_data(response, ResearchNote)
    assert form["title"] == ["Corrected live title"]  # changed live only: the live value
    assert form["dek"] == ["The draft's standfirst."]  # the draft's, until the editor chooses


def test_the_preview_keeps_what_changed_live_only(editor_client, diverged):
    preview = text_of(
        editor_client.get(change_url(diverged).replace("change", "draft-revision/preview"))
    )
    assert "Draft revision preview." in preview
    assert "Corrected live title" in preview


def test_relations_changed_live_only_are_kept(editor_client):
    note = ResearchNoteFactory(title="Live title", dek="Published standfirst.")
    note.tags.add("live-tag")
    layer = LayerFactory(name="Reward layer")
    data = admin_form_data(editor_client.get(change_url(note)), ResearchNote)
    data.update(dek=["The draft's standfirst."], _save_draft_revision=["Save as draft revision"])
    assert editor_client.post(change_url(note), data).status_code == 302
    live = ResearchNote.objects.get(pk=note.pk)
    live.title = "Corrected live title"
    live.save()  # relations after the row, as the admin and the API save them
    live.layers.add(layer)
    live.tags.add("added-live")

    response = publish(editor_client, note)

    assert response.status_code == 302, text_of(response)[:1500]
    note = ResearchNote.objects.get(pk=note.pk)
    assert note.dek == "The draft's standfirst." and note.title == "Corrected live title"
    assert list(note.layers.all()) == [layer]
    assert sorted(note.tags.names()) == ["added-live", "live-tag"]


def test_a_save_as_draft_revision_keeps_unchosen_conflicts_for_publishing(editor_client, diverged):
    data = admin_form_data(editor_client.get(change_url(diverged)), ResearchNote)
    data["_save_draft_revision"] = ["Save as draft revision"]
    assert editor_client.post(change_url(diverged), data).status_code == 302
    response = publish(editor_client, diverged)
    assert response.status_code == 200  # still asked: the live standfirst is not overwritten
    assert ResearchNote.objects.get(pk=diverged.pk).dek == "Corrected live standfirst."
