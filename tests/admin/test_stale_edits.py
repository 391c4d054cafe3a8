"""Two editors on one item: the later save of a stale copy is refused, nothing is overwritten."""

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from citations.models import Paper
from notes.models import ResearchNote
from publishing.admin import PublishableAdmin
from publishing.models import StaleEditError
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data

pytestmark = pytest.mark.django_db

PUBLISHABLE_MODELS = [
    model
    for model, model_admin in admin.site._registry.items()
    if isinstance(model_admin, PublishableAdmin)
]


def change_url(obj):
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


@pytest.fixture
def second_editor_client(second_editor):
    second = Client()
    second.force_login(second_editor)
    return second


def open_form(client, obj):
    response = client.get(change_url(obj))
    assert response.status_code == 200
    return admin_form_data(response, type(obj))


def test_saving_a_fresh_copy_works_and_bumps_the_version(editor_client):
    note = ResearchNoteFactory(title="Before")
    data = open_form(editor_client, note)
    assert data["edit_version"] == [str(note.version)]

    data["title"] = ["After"]
    response = editor_client.post(change_url(note), {**data, "_save": "Save"})

    assert response.status_code == 302
    note_after = ResearchNote.objects.get(pk=note.pk)
    assert note_after.title == "After"
    assert note_after.version == note.version + 1


def test_the_later_save_of_a_stale_copy_is_refused_with_a_clear_message(
    editor_client, second_editor_client
):
    note = ResearchNoteFactory(title="Original title", body="Original body")
    history_before = note.history.count()
    first_copy = open_form(editor_client, note)
    second_copy = open_form(second_editor_client, note)

    first_copy["title"] = ["First editor's title"]
    assert editor_client.post(change_url(note), first_copy).status_code == 302

    second_copy["body"] = ["Second editor's body"]
    response = second_editor_client.post(change_url(note), second_copy)

    assert response.status_code == 200  # the form again, with the error
    page = response.content.decode()
    assert "Someone else saved this research note while you were editing it" in page
    assert f"your copy is version {note.version}" in page
    assert "Nothing was changed" in page
    stored = ResearchNote.objects.get(pk=note.pk)
    assert stored.title == "First editor's title"
    assert stored.body == "Original body"
    assert stored.version == note.version + 1
    assert stored.history.count() == history_before + 1  # only the first save


def test_a_stale_copy_of_a_paper_with_inlines_changes_nothing(editor_client, second_editor_client):
    paper = PaperFactory(title="Paper title")
    first_copy = open_form(editor_client, paper)
    second_copy = open_form(second_editor_client, paper)
    assert "edit_version" in second_copy  # also on admins with declared fieldsets

    first_copy["summary"] = ["Updated by the first editor."]
    assert editor_client.post(change_url(paper), first_copy).status_code == 302
    second_copy["title"] = ["Overwritten title"]
    second_copy["summary"] = ["Updated by the second editor."]
    response = second_editor_client.post(change_url(paper), second_copy)

    assert response.status_code == 200
    assert "Someone else saved this paper" in response.content.decode()
    stored = Paper.objects.get(pk=paper.pk)
    assert (stored.title, stored.summary) == ("Paper title", "Updated by the first editor.")


def test_a_save_without_the_version_is_refused(editor_client):
    note = ResearchNoteFactory(title="Kept")
    data = open_form(editor_client, note)
    del data["edit_version"]
    data["title"] = ["Blind overwrite"]

    response = editor_client.post(change_url(note), data)

    assert response.status_code == 200
    assert ResearchNote.objects.get(pk=note.pk).title == "Kept"


def test_a_stale_revert_from_history_is_refused(editor_client, second_editor_client):
    note = ResearchNoteFactory(title="Version one")
    note.title = "Version two"
    note.save()
    oldest = note.history.earliest()
    revert_url = reverse(
        "admin:notes_researchnote_simple_history", args=[note.pk, oldest.history_id]
    )
    response = editor_client.get(revert_url)
    assert response.status_code == 200
    revert_copy = admin_form_data(response, ResearchNote)
    # The revert form starts from the stored version, not the old copy's.
    assert revert_copy["edit_version"] == [str(note.version)]

    concurrent = open_form(second_editor_client, note)
    concurrent["title"] = ["Version three"]
    assert second_editor_client.post(change_url(note), concurrent).status_code == 302

    response = editor_client.post(revert_url, revert_copy)

    assert response.status_code == 200
    assert "Someone else saved this research note" in response.content.decode()
    assert ResearchNote.objects.get(pk=note.pk).title == "Version three"


@pytest.mark.parametrize("model", PUBLISHABLE_MODELS, ids=lambda m: m.__name__)
def test_every_publishable_change_form_carries_the_stored_version(demo, editor_client, model):
    obj = model.objects.first()
    data = open_form(editor_client, obj)
    assert data["edit_version"] == [str(obj.version)]


def test_save_if_version_lets_only_the_first_of_two_copies_win(db):
    note = ResearchNoteFactory(title="Start")
    first, second = ResearchNote.objects.get(pk=note.pk), ResearchNote.objects.get(pk=note.pk)

    first.title = "First"
    first.save_if_version(note.version)
    second.title = "Second"
    with pytest.raises(StaleEditError) as refused:
        second.save_if_version(note.version)

    assert refused.value.current_version == note.version + 1
    stored = ResearchNote.objects.get(pk=note.pk)
    assert (stored.title, stored.version) == ("First", note.version + 1)


def test_a_bulk_publish_makes_an_open_copy_stale_and_is_in_history(
    editor, editor_client, second_editor_client
):
    note = ResearchNoteFactory(draft=True, title="Draft note")
    note.papers.add(PaperFactory())  # what a published note needs
    open_copy = open_form(editor_client, note)

    response = second_editor_client.post(
        reverse("admin:notes_researchnote_changelist"),
        {"action": "publish_selected", "_selected_action": [note.pk]},
    )
    assert response.status_code == 302
    published = ResearchNote.objects.get(pk=note.pk)
    assert published.is_published
    assert published.version == note.version + 1
    latest = published.history.latest()
    assert (latest.status, latest.history_user.username) == ("published", "second-editor")

    # The first editor's copy still says "draft": saving it must not unpublish silently.
    response = editor_client.post(change_url(note), open_copy)
    assert response.status_code == 200
    assert "Someone else saved this research note" in response.content.decode()
    assert ResearchNote.objects.get(pk=note.pk).is_published


def test_queryset_publish_and_unpublish_bump_the_version(db):
    note = ResearchNoteFactory(draft=True)
    ResearchNote.objects.filter(pk=note.pk).publish()
    assert ResearchNote.objects.get(pk=note.pk).version == note.version + 1
    ResearchNote.objects.filter(pk=note.pk).unpublish()
    assert ResearchNote.objects.get(pk=note.pk).version == note.version + 2
