"""Unpublishing an item keeps its draft revision as the editors' pending work: the change form
says the item was unpublished since the draft revision was saved; "Publish draft revision"
makes it public again, only for those who may publish, and says so; "Save" applies the draft
revision and keeps the item unpublished."""

import html

import pytest
from django.contrib.auth.models import Group
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from notes.models import ResearchNote
from publishing.editors import CONTRIBUTORS_GROUP
from publishing.models import Status
from publishing.revisions import DraftRevision
from tests.factories import PaperFactory, ResearchNoteFactory, UserFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(note):
    return reverse("admin:notes_researchnote_change", args=[note.pk])


@pytest.fixture
def note(editor_client):
    """A live note with a draft revision, unpublished (the admin's action) since."""
    note = ResearchNoteFactory(title="Live note", dek="The published standfirst.")
    note.papers.add(PaperFactory())  # what publishing a note needs
    data = admin_form_data(editor_client.get(change_url(note)), ResearchNote)
    data["dek"] = ["The draft revision's standfirst."]
    data["_save_draft_revision"] = ["Save as draft revision"]
    assert editor_client.post(change_url(note), data).status_code == 302
    changelist = reverse("admin:notes_researchnote_changelist")
    response = editor_client.post(
        changelist,
        {"action": "unpublish_selected", "_selected_action": [note.pk], "post": "yes"},
    )
    assert response.status_code == 302
    note.refresh_from_db()
    assert note.status == Status.DRAFT
    return note


def submit(client, note, button):
    data = admin_form_data(client.get(change_url(note)), ResearchNote)
    data[button] = ["go"]
    return client.post(change_url(note), data)


def test_the_draft_revision_stays_and_the_form_says_the_item_was_unpublished(editor_client, note):
    assert DraftRevision.objects.for_object(note).exists()
    page = editor_client.get(change_url(note))
    text = html.unescape(text_of(page))
    assert "Unpublished since this draft revision was saved" in text
    assert 'name="_publish_draft_revision"' in page.content.decode()
    assert admin_form_data(page, ResearchNote)["dek"] == ["The draft revision's standfirst."]


def test_publishing_it_makes_the_item_public_again_and_says_so(editor_client, note):
    response = submit(editor_client, note, "_publish_draft_revision")

    assert response.status_code == 302, text_of(response)[:2000]
    note.refresh_from_db()
    assert note.status == Status.PUBLISHED
    assert note.dek == "The draft revision's standfirst."
    said = " ".join(str(message) for message in get_messages(response.wsgi_request))
    assert "was unpublished after its draft revision was saved" in said
    assert not DraftRevision.objects.for_object(note).exists()
    assert Client().get(note.get_absolute_url()).status_code == 200


def test_saving_it_keeps_the_item_unpublished(editor_client, note):
    response = submit(editor_client, note, "_save")

    assert response.status_code == 302, text_of(response)[:2000]
    note.refresh_from_db()
    assert note.status == Status.DRAFT
    assert note.dek == "The draft revision's standfirst."
    assert not DraftRevision.objects.for_object(note).exists()


def test_without_the_publish_permission_it_is_not_published_again(note):
    contributor = UserFactory(is_staff=True, username="contributor")
    contributor.groups.add(Group.objects.get(name=CONTRIBUTORS_GROUP))
    client = Client()
    client.force_login(contributor)

    page = client.get(change_url(note))
    assert page.status_code == 200
    assert "Only an editor who may publish" in html.unescape(text_of(page))
    assert 'name="_publish_draft_revision"' not in page.content.decode()

    data = admin_form_data(page, ResearchNote)
    data["_publish_draft_revision"] = ["go"]
    assert client.post(change_url(note), data).status_code == 403
    note.refresh_from_db()
    assert note.status == Status.DRAFT
    assert note.dek == "The published standfirst."
    assert DraftRevision.objects.for_object(note).exists()
