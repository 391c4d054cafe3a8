"""Scheduling in the admin (issue 13, point 6): every publishable change form offers the expiry
and names the state readers see, "Scheduled for <time>" included."""

import datetime

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from publishing.admin import PublishableAdmin
from publishing.models import Publishable
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db

PUBLISHABLE_ADMINS = [
    model
    for model, model_admin in admin.site._registry.items()
    if issubclass(model, Publishable) and isinstance(model_admin, PublishableAdmin)
]


@pytest.mark.parametrize("model", PUBLISHABLE_ADMINS, ids=lambda m: m.__name__)
def test_every_publishable_form_has_the_expiry_and_the_state(editor_client, model):
    add = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
    page = editor_client.get(add).content.decode()
    assert 'name="unpublish_at_0"' in page
    assert "Publication state" in page


def test_a_scheduled_paper_says_scheduled_for_its_time_in_its_form(editor_client):
    due = datetime.datetime(2031, 5, 4, 9, 30, tzinfo=datetime.UTC)
    paper = PaperFactory(published_at=due)
    change = reverse("admin:citations_paper_change", args=[paper.pk])
    assert "Scheduled for 4 May 2031, 09:30 UTC" in text_of(editor_client.get(change))


def test_an_editor_sets_an_expiry_and_the_note_leaves_the_public_site(editor_client, client):
    note = ResearchNoteFactory()
    change = reverse("admin:notes_researchnote_change", args=[note.pk])
    data = admin_form_data(editor_client.get(change), type(note))
    past = timezone.now() - datetime.timedelta(minutes=1)
    data["published_at_0"], data["published_at_1"] = ["2020-01-01"], ["00:00:00"]
    data["unpublish_at_0"], data["unpublish_at_1"] = [f"{past:%Y-%m-%d}"], [f"{past:%H:%M:%S}"]
    response = editor_client.post(change, data)
    assert response.status_code == 302, text_of(response)[:1000]
    note.refresh_from_db()
    assert note.get_publication_state_display().startswith("Expired on ")
    assert Client().get(note.get_absolute_url()).status_code == 404


def test_an_expiry_before_the_publication_is_refused_next_to_the_field(editor_client):
    note = ResearchNoteFactory()
    change = reverse("admin:notes_researchnote_change", args=[note.pk])
    data = admin_form_data(editor_client.get(change), type(note))
    data["published_at_0"], data["published_at_1"] = ["2030-01-02"], ["00:00:00"]
    data["unpublish_at_0"], data["unpublish_at_1"] = ["2030-01-01"], ["00:00:00"]
    response = editor_client.post(change, data)
    assert response.status_code == 200
    assert "must come after the publication time" in text_of(response)


def test_every_list_filters_by_publication_state_scheduled_included(editor_client):
    scheduled = ResearchNoteFactory(
        title="Scheduled note", published_at=timezone.now() + datetime.timedelta(days=2)
    )
    ResearchNoteFactory(title="Live note")
    ResearchNoteFactory(
        title="Expired note",
        published_at=timezone.now() - datetime.timedelta(days=2),
        unpublish_at=timezone.now() - datetime.timedelta(days=1),
    )
    changelist = reverse("admin:notes_researchnote_changelist")
    page = text_of(editor_client.get(changelist, {"state": "scheduled"}))
    assert scheduled.title in page
    assert "Live note" not in page and "Expired note" not in page
    expired = text_of(editor_client.get(changelist, {"state": "expired"}))
    assert "Expired note" in expired and "Live note" not in expired
    for model in PUBLISHABLE_ADMINS:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert editor_client.get(url, {"state": "scheduled"}).status_code == 200, model
