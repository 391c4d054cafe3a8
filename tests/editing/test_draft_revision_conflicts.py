"""Draft revisions get the compare-and-swap of live saves: a draft revision saved from a form
opened before another editor's draft revision is refused with a message, the editor's own text
stays in the form, the other's version is shown beside it, and she can save hers after reading
it (nothing is lost without her seeing it)."""

import html

import pytest
from django.test import Client
from django.urls import reverse

from citations.models import Paper
from publishing.revisions import DraftRevision
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(obj):
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


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


def loaded_form(client, obj):
    """The change form with the item's draft revision loaded into it."""
    return admin_form_data(client.get(change_url(obj)), type(obj))


def press(client, obj, data, button):
    return client.post(change_url(obj), {**data, button: ["x"]})


@pytest.mark.parametrize(
    "button", ["_publish_draft_revision", "_discard_draft_revision", "_save", "_continue"]
)
def test_every_door_from_a_stale_draft_revision_is_refused(editor, second_editor, button):
    """Publishing, discarding or saving a form loaded from a draft revision another editor has
    since replaced would throw theirs away unseen: refused like a stale save."""
    note = ResearchNoteFactory(title="Live note", dek="The published standfirst.")
    first, second = Client(), Client()
    first.force_login(editor)
    second.force_login(second_editor)
    assert save_as_draft(first, note, opened_form(first, note), dek="First.").status_code == 302
    stale = loaded_form(first, note)  # the first editor has draft revision 1 loaded
    assert save_as_draft(second, note, loaded_form(second, note), dek="Second.").status_code == 302

    response = press(first, note, {**stale, "dek": ["First, finished."]}, button)

    assert response.status_code == 200
    page = html.unescape(text_of(response))
    assert "saved a draft revision of this" in page
    assert "Second." in page  # the other's version, to read
    assert admin_form_data(response, type(note))["dek"] == ["First, finished."]
    revision = DraftRevision.objects.for_object(note).get()
    assert revision.data["dek"] == ["Second."] and revision.revision == 2
    note.refresh_from_db()
    assert note.dek == "The published standfirst."


def test_a_draft_revision_posted_without_its_version_never_replaces_one(editor, second_editor):
    note = ResearchNoteFactory(title="Live note", dek="The published standfirst.")
    first, second = Client(), Client()
    first.force_login(editor)
    second.force_login(second_editor)
    form = opened_form(second, note)
    form.pop("_draft_revision_version")
    assert save_as_draft(first, note, opened_form(first, note), dek="First.").status_code == 302

    response = save_as_draft(second, note, form, dek="Second.")

    assert response.status_code == 200
    assert DraftRevision.objects.for_object(note).get().data["dek"] == ["First."]


def test_a_papers_stale_draft_revision_is_refused(editor, second_editor):
    paper = PaperFactory(title="Live paper", summary="Published summary.")
    first, second = Client(), Client()
    first.force_login(editor)
    second.force_login(second_editor)
    first_form, second_form = opened_form(first, paper), opened_form(second, paper)
    assert save_as_draft(first, paper, first_form, summary="First.").status_code == 302
    response = save_as_draft(second, paper, second_form, summary="Second.")
    assert response.status_code == 200
    assert admin_form_data(response, Paper)["summary"] == ["Second."]
    assert DraftRevision.objects.for_object(paper).get().data["summary"] == ["First."]
