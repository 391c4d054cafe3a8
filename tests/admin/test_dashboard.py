"""Issue 13, point 11: the admin's first page says what needs attention, each line a link to
the filtered list, in a number of queries that does not grow with the content."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from citations.models import Paper
from rlscaling.publishing import Status
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
    from rlscaling.publishing.dashboard import editor_dashboard

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
