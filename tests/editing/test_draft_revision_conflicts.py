"""Draft revisions get the compare-and-swap of live saves: a draft revision saved from a form
opened before another editor's draft revision is refused with a message, the editor's own text
stays in the form, the other's version is shown beside it, and she can save hers after reading
it (nothing is lost without her seeing it)."""

import html

import pytest
from django.test import Client
from django.urls import reverse

from publishing.revisions import DraftRevision
from tests.factories import ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(obj):
    return reverse("admin:notes_researchnote_change", args=[obj.pk])


def opened_form(client, note):
    return admin_form_data(client.get(change_url(note)), type(note))


def save_as_draft(client, note, data, **changes):
    data = {**data, **{name: [value] for name, value in changes.items()}}
    data["_save_draft_revision"] = ["Save as draft revision"]
    return client.post(change_url(note), data)


def test_the_second_editors_stale_draft_revision_is_refused_and_kept_in_the_form(
    editor, second_editor
):
    note = ResearchNoteFactory(title="Live note", dek="The published standfirst.")
    first, second = Client(), Client()
    first.force_login(editor)
    second.force_login(second_editor)
    first_form, second_form = opened_form(first, note), opened_form(second, note)

    assert (
        save_as_draft(first, note, first_form, dek="The first editor's summary.").status_code == 302
    )
    response = save_as_draft(second, note, second_form, dek="The second editor's summary.")

    assert response.status_code == 200
    page = html.unescape(text_of(response))
    assert "saved a draft revision of this" in page
    kept = admin_form_data(response, type(note))
    assert kept["dek"] == ["The second editor's summary."]  # her text, still in the form
    assert "The first editor's summary." in page  # the other's version, to read
    revision = DraftRevision.objects.for_object(note).get()
    assert revision.data["dek"] == ["The first editor's summary."]

    # Having read it, she saves hers (the refused form carries the version she has seen).
    assert save_as_draft(second, note, kept).status_code == 302
    revision = DraftRevision.objects.for_object(note).get()
    assert revision.data["dek"] == ["The second editor's summary."]
    assert revision.revision == 2
