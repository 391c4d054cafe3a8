"""Every editorial model keeps its history; an editor sees it in the admin and reverts from it."""

import pytest
from django.contrib import admin
from django.urls import reverse
from simple_history.admin import SimpleHistoryAdmin
from simple_history.models import HistoricalChanges

from publishing.models import Publishable
from tests.helpers import admin_form_data

pytestmark = pytest.mark.django_db

EDITORIAL_APPS = {"bottlenecks", "citations", "notes"}
HISTORY_ADMINS = [
    model
    for model, model_admin in admin.site._registry.items()
    if model._meta.app_label in EDITORIAL_APPS and isinstance(model_admin, SimpleHistoryAdmin)
]
# A plain text field each model's change form has, to edit and then revert.
EDITED_FIELD = {
    "Paper": "title",
    "Author": "name",
    "Citation": "context",
    "CitationRole": "description",
    "CitationPolarity": "description",
    "ResearchNote": "title",
    "CommunityPost": "summary",
    "Question": "answer",
    "GuideSection": "heading",
    "Dimension": "description",
    "LoopStage": "description",
    "Layer": "description",
    "Analysis": "dek",
    "AnalysisStep": "title",
    "Claim": "statement",
    "FailureSignal": "text",
    "DiscriminatingTest": "procedure",
}
# Edited inline on their paper, recorded in the paper's history (its related snapshot).
WITHOUT_HISTORY = {"Authorship"}
# Bookkeeping beside a paper: its other identifiers and old slugs (changed by imports and
# merges, each recorded in the paper's history), edges waiting for a paper, and the logs of
# imports and merges themselves (a merge is undone from its log, not reverted).
WITHOUT_HISTORY |= {"PaperIdentifier", "PaperSlugAlias", "PendingCitation", "ImportRun"}
WITHOUT_HISTORY |= {"ImportChunk"}  # the pieces of an import's text
WITHOUT_HISTORY |= {"PaperMerge"}
# An author's old slugs and the author merge log, the merge recorded in both authors' history.
WITHOUT_HISTORY |= {"AuthorSlugAlias", "AuthorMerge"}
# Derived from the edges and recounted on every change (citations/stats/counts.py), never edited.
WITHOUT_HISTORY |= {"CitationCount", "CitingTimelineCount"}
# A paper's place in the stored facet counts (citations/stats/facet_counts.py), recounted on change.
WITHOUT_HISTORY |= {"PaperFacetCount"}
# Possible duplicates found by a scan, and the scans (citations/duplicates.py).
WITHOUT_HISTORY |= {"DuplicateScan", "PossibleDuplicatePair"}
# Readers' suggestions: an accepted one is recorded, with its reason, in the edge's history.
WITHOUT_HISTORY |= {"CorrectionSuggestion"}
# Tag rows of a paper or note: recorded in the item's own history (its related snapshot).
WITHOUT_HISTORY |= {"TaggedPaper", "TaggedNote"}


def url(obj, view, *args):
    name = f"admin:{obj._meta.app_label}_{obj._meta.model_name}_{view}"
    return reverse(name, args=[obj.pk, *args])


def test_every_editorial_model_has_history_and_a_history_admin():
    from django.apps import apps

    for app_label in EDITORIAL_APPS:
        for model in apps.get_app_config(app_label).get_models():
            if issubclass(model, HistoricalChanges) or model.__name__ in WITHOUT_HISTORY:
                continue
            assert hasattr(model, "history"), model
            if model.__name__ not in {"SignalLayer", "TestOutcome"}:  # edited inline
                assert model in HISTORY_ADMINS, model
                assert model.__name__ in EDITED_FIELD, model


@pytest.mark.parametrize("model", HISTORY_ADMINS, ids=lambda m: m.__name__)
def test_an_editor_sees_an_edit_in_history_and_reverts_it(demo, editor, editor_client, model):
    field = EDITED_FIELD[model.__name__]
    obj = model.objects.order_by("pk").first()
    original = getattr(obj, field)
    records_before = obj.history.count()

    data = admin_form_data(editor_client.get(url(obj, "change")), model)
    data[field] = ["Edited by the history test"]
    response = editor_client.post(url(obj, "change"), data)
    assert response.status_code == 302, response.content.decode()[:2000]

    # The edit is recorded, with who made it, and the history page shows it.
    assert obj.history.count() == records_before + 1
    latest, previous = obj.history.order_by("-history_date", "-history_id")[:2]
    assert latest.history_user == editor
    assert getattr(latest, field) == "Edited by the history test"
    history_page = editor_client.get(url(obj, "history"))
    assert history_page.status_code == 200
    page = history_page.content.decode()
    assert "editor" in page
    assert url(obj, "simple_history", previous.history_id) in page

    # The revert form shows the earlier version; saving it restores that version.
    revert_url = url(obj, "simple_history", previous.history_id)
    revert_form = editor_client.get(revert_url)
    assert revert_form.status_code == 200
    revert_data = admin_form_data(revert_form, model)
    assert revert_data[field] == [original]
    response = editor_client.post(revert_url, revert_data)
    assert response.status_code == 302

    obj.refresh_from_db()
    assert getattr(obj, field) == original
    assert obj.history.count() == records_before + 2  # the revert is itself history
    if isinstance(obj, Publishable):
        assert obj.version == previous.version + 2  # an edit, then a revert


def test_history_survives_deletion_and_shows_who_deleted(demo, editor, editor_client):
    from notes.models import ResearchNote

    note = ResearchNote.objects.first()
    response = editor_client.post(url(note, "delete"), {"post": "yes"})
    assert response.status_code == 302
    deleted = ResearchNote.history.filter(id=note.pk, history_type="-").get()
    assert deleted.history_user == editor
    assert deleted.title == note.title


def test_a_staff_user_outside_the_editors_group_cannot_see_history(demo, client, reader):
    from citations.models import Paper

    reader.is_staff = True
    reader.save()
    client.force_login(reader)
    paper = Paper.objects.first()
    assert client.get(url(paper, "history")).status_code == 403
    record = paper.history.first()
    assert client.get(url(paper, "simple_history", record.history_id)).status_code == 403


def test_the_history_list_names_relation_changes_and_no_empty_reason(editor_client):
    """A change of only a paper's tags is a record of its own; the list's Changes column
    names it (tags are no field, so simple-history's own delta left it empty), and a record
    without a reason shows nothing, not "None"."""
    import datetime

    from django.utils import timezone

    from tests.factories import PaperFactory

    paper = PaperFactory(title="A tagged paper")
    paper.history.update(history_date=timezone.now() - datetime.timedelta(hours=1))
    paper.tags.add("grpo-scaling")

    html = editor_client.get(
        reverse("admin:citations_paper_history", args=[paper.pk])
    ).content.decode()

    assert "<strong>Tags:</strong>" in html and "grpo-scaling" in html
    assert "Related items changed" in html
    assert "<td>\n          None\n        </td>" not in html
