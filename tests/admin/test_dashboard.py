"""Issue 13, point 11: the admin's first page says what needs attention, each line a link to
the filtered list, in a number of queries that does not grow with the content."""

import datetime

import pytest
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone

from citations.models import Paper
from publishing.models import Status, format_moment
from publishing.revisions import DraftRevision
from tests.factories import (
    CitationFactory,
    CitationRoleFactory,
    PaperFactory,
    ResearchNoteFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

INDEX = reverse("admin:index")


def content(count, arxiv_id="2501.00001"):
    hub = PaperFactory(title="Hub paper", arxiv_id=arxiv_id)
    CitationFactory.create_batch(count, cited_paper=hub)  # no role, no polarity
    ResearchNoteFactory.create_batch(count, draft=True)
    ResearchNoteFactory.create_batch(count, status=Status.REVIEW, published_at=None)
    later = timezone.now() + datetime.timedelta(days=2)
    ResearchNoteFactory(title="Scheduled note", published_at=later)
    PaperFactory.create_batch(count, published_at=later)
    past = timezone.localdate() - datetime.timedelta(days=3)
    ResearchNoteFactory.create_batch(count, review_by=past)
    for item in [*ResearchNoteFactory.create_batch(count), *PaperFactory.create_batch(count)]:
        DraftRevision.store(item, QueryDict("title=Work+in+progress"), author=None)
    return hub


def test_the_dashboard_lists_what_needs_attention_with_links(editor_client):
    hub = content(3)
    response = editor_client.get(INDEX)
    assert response.status_code == 200
    page = text_of(response)
    assert "Needs attention" in page
    assert "Submitted for review 3 research notes" in page
    assert "Hub paper: 3 unclassified" in page
    assert "Scheduled note" in page
    assert "papers with no arXiv id, DOI or URL" in page
    assert "papers with no authors" in page
    html = response.content.decode()
    citations = reverse("admin:citations_citation_changelist")
    unclassified = f"{citations}?cited_paper__id__exact={hub.pk}&amp;classified=no"
    assert unclassified in html
    notes = reverse("admin:notes_researchnote_changelist")
    assert f"{notes}?status__exact=review" in html


def test_every_dashboard_link_answers_with_the_filtered_list(editor_client):
    hub = content(2)
    CitationFactory(cited_paper=hub, role=CitationRoleFactory())  # polarity still missing
    from web.dashboard import editor_dashboard

    request = editor_client.get(INDEX).wsgi_request
    for section in editor_dashboard(request):
        for line in section.lines:
            response = editor_client.get(line.url)
            assert response.status_code == 200, line.url
            if line.count is not None:
                assert response.context["cl"].result_count == line.count, line.url
    listed = editor_client.get(
        reverse("admin:citations_citation_changelist") + f"?cited_paper__id__exact={hub.pk}"
        "&classified=no"
    )
    assert listed.context["cl"].result_count == 3
    missing = editor_client.get(reverse("admin:citations_paper_changelist") + "?missing=authors")
    assert missing.context["cl"].result_count == Paper.objects.count()


def test_the_dashboard_needs_the_same_queries_for_more_content(
    editor_client, django_assert_max_num_queries
):
    content(2)
    with django_assert_max_num_queries(200) as few:
        editor_client.get(INDEX)
    content(12, arxiv_id="2501.00002")
    with django_assert_max_num_queries(len(few)):
        editor_client.get(INDEX)


def test_live_items_with_a_draft_revision_are_listed_with_links(editor, editor_client):
    note = ResearchNoteFactory(title="Live note")
    paper = PaperFactory(title="Live paper")
    DraftRevision.store(note, QueryDict("dek=Half+written"), author=editor)
    DraftRevision.store(paper, QueryDict("summary=Half+written"), author=editor)
    response = editor_client.get(INDEX)
    page = text_of(response)
    assert "Draft revisions of live items" in page
    assert "1 research note with a draft revision" in page
    assert "1 paper with a draft revision" in page
    assert "“Live note” by editor" in page
    html = response.content.decode()
    notes = reverse("admin:notes_researchnote_changelist")
    assert f'href="{notes}?draft_revision=yes"' in html
    assert f'href="{reverse("admin:notes_researchnote_change", args=[note.pk])}"' in html
    listed = editor_client.get(f"{notes}?draft_revision=yes")
    assert [row.pk for row in listed.context["cl"].result_list] == [note.pk]


def test_no_draft_revisions_says_so(editor_client):
    ResearchNoteFactory()
    assert "No draft revisions are waiting." in text_of(editor_client.get(INDEX))


def test_scheduled_items_are_counted_with_a_link_and_listed_with_their_times(editor_client):
    when = timezone.now().replace(microsecond=0) + datetime.timedelta(days=2)
    ResearchNoteFactory(title="Scheduled note", published_at=when)
    ResearchNoteFactory(title="Live note")
    response = editor_client.get(INDEX)
    page = text_of(response)
    assert "1 research note scheduled" in page
    assert f"Scheduled note — {format_moment(when)}" in page
    notes = reverse("admin:notes_researchnote_changelist")
    assert f'href="{notes}?state=scheduled"' in response.content.decode()


def test_notes_due_for_review_are_counted_and_listed(editor_client):
    today = timezone.localdate()
    ResearchNoteFactory(title="Overdue note", review_by=today - datetime.timedelta(days=10))
    ResearchNoteFactory(title="Due today", review_by=today)
    ResearchNoteFactory(title="Not yet", review_by=today + datetime.timedelta(days=1))
    ResearchNoteFactory(title="No date")
    response = editor_client.get(INDEX)
    page = text_of(response)
    assert "2 research notes due for review" in page
    overdue = (today - datetime.timedelta(days=10)).strftime("%-d %b %Y")
    assert f"Overdue note — {overdue}" in page
    assert "Not yet" not in page and "No date" not in page
    notes = reverse("admin:notes_researchnote_changelist")
    assert f'href="{notes}?review=due"' in response.content.decode()
    listed = editor_client.get(f"{notes}?review=due")
    assert sorted(str(row) for row in listed.context["cl"].result_list) == [
        "Due today",
        "Overdue note",
    ]


def test_a_user_who_cannot_view_notes_sees_no_notes_on_the_dashboard(client):
    from tests.factories import UserFactory

    ResearchNoteFactory(title="Overdue note", review_by=timezone.localdate())
    user = UserFactory(is_staff=True)
    client.force_login(user)
    page = text_of(client.get(INDEX))
    assert "Due for review" not in page
    assert "Overdue note" not in page
