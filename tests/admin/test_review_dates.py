"""Issue 13, point 11: a research note may carry a review date; editors set it on the change
form, see it in the list, filter the notes due for review, and the dashboard lists them."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from notes.models import ResearchNote
from tests.factories import ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:notes_researchnote_changelist")


def test_an_editor_sets_a_review_date_on_the_change_form(editor_client):
    note = ResearchNoteFactory(title="A note")
    url = reverse("admin:notes_researchnote_change", args=[note.pk])
    response = editor_client.get(url)
    assert 'name="review_by"' in response.content.decode()
    form = admin_form_data(response, ResearchNote)
    form["review_by"] = ["2027-03-01"]
    response = editor_client.post(url, form)
    assert response.status_code == 302, text_of(response)[:2000]
    note.refresh_from_db()
    assert note.review_by == datetime.date(2027, 3, 1)
    assert note.history.first().review_by == datetime.date(2027, 3, 1)


def test_a_bad_review_date_is_refused_next_to_the_field(editor_client):
    note = ResearchNoteFactory(title="A note")
    url = reverse("admin:notes_researchnote_change", args=[note.pk])
    form = admin_form_data(editor_client.get(url), ResearchNote)
    form["review_by"] = ["31 February"]
    response = editor_client.post(url, form)
    assert response.status_code == 200
    assert "review_by" in response.context["adminform"].form.errors
    assert ResearchNote.objects.get(pk=note.pk).review_by is None


def test_the_list_shows_review_dates_and_filters_the_notes_due(editor_client):
    today = timezone.localdate()
    ResearchNoteFactory(title="Past", review_by=today - datetime.timedelta(days=1))
    ResearchNoteFactory(title="Ahead", review_by=today + datetime.timedelta(days=30))
    ResearchNoteFactory(title="Undated")
    response = editor_client.get(CHANGELIST)
    assert "column-review_by" in response.content.decode()

    def listed(query):
        response = editor_client.get(f"{CHANGELIST}?{query}")
        assert response.status_code == 200
        return sorted(str(note) for note in response.context["cl"].result_list)

    assert listed("review=due") == ["Past"]
    assert listed("review=later") == ["Ahead"]
    assert listed("review=none") == ["Undated"]
    assert listed("review=nonsense") == ["Ahead", "Past", "Undated"]


def test_due_for_review_includes_the_day_itself():
    today = datetime.date(2026, 12, 3)
    ResearchNoteFactory(title="Today", review_by=today)
    ResearchNoteFactory(title="Tomorrow", review_by=today + datetime.timedelta(days=1))
    due = ResearchNote.objects.due_for_review(today)
    assert [note.title for note in due] == ["Today"]
