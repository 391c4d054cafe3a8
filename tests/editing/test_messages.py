"""Refusals speak in sentences: two rows of a paper's edges naming the same paper say so in
words, not "Please correct the duplicate data for cited_paper."."""

import html

import pytest
from django.urls import reverse

from citations.models import Citation, Paper
from notes.models import ResearchNote
from publishing.models import format_moment
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def test_the_same_citing_paper_twice_is_named_in_words(editor_client):
    hub, citing = PaperFactory(), PaperFactory(title="The citing paper")
    url = reverse("admin:citations_paper_change", args=[hub.pk])
    data = admin_form_data(editor_client.get(url), Paper)
    data["citations_received-TOTAL_FORMS"] = ["2"]
    for row in ("0", "1"):
        data[f"citations_received-{row}-id"] = [""]
        data[f"citations_received-{row}-citing_paper"] = [str(citing.pk)]
        data[f"citations_received-{row}-status"] = ["draft"]
    response = editor_client.post(url, data)
    assert response.status_code == 200
    page = html.unescape(text_of(response))
    assert "duplicate data" not in page and "cited_paper" not in page
    assert "listed twice" in page
    assert not Citation.objects.exists()


def test_revert_and_recover_say_what_they_did(editor_client):
    note = ResearchNoteFactory(title="First title")
    note.title = "Second title"
    note.save()
    first = note.history.order_by("history_date", "history_id").first()

    def revert(record):
        revert_url = reverse(
            "admin:notes_researchnote_simple_history", args=[note.pk, record.history_id]
        )
        data = admin_form_data(editor_client.get(revert_url), ResearchNote)
        return html.unescape(text_of(editor_client.post(revert_url, data, follow=True)))

    page = revert(first)
    when = format_moment(first.history_date)
    assert f"Reverted “First title” to the version of {when}." in page  # saved by no editor
    editor_client.post(
        reverse("admin:notes_researchnote_change", args=[note.pk]),
        {
            **admin_form_data(
                editor_client.get(reverse("admin:notes_researchnote_change", args=[note.pk])),
                ResearchNote,
            ),
            "title": ["Third title"],
        },
    )
    by_editor = note.history.latest("history_date", "history_id")
    page = revert(by_editor)
    when = format_moment(by_editor.history_date)
    assert f"Reverted “Third title” to the version of {when} by editor." in page
    assert "changed successfully" not in page

    delete_url = reverse("admin:notes_researchnote_delete", args=[note.pk])
    editor_client.post(delete_url, {"post": "yes"})
    page = revert(ResearchNote.history.get(id=note.pk, history_type="-"))
    assert "Recovered “Third title”, as they were when deleted" in page
    assert "changed successfully" not in page
