"""Issue 13, points 1, 3 and 7: a citation edited on a paper's page follows its papers (public
when both are, unless held back), says so at the start of its row, cannot overwrite a newer
correction from a stale copy, and a hub with many edges opens with a bounded number of queries."""

import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from citations.admin.papers import INLINE_EDGE_LIMIT
from citations.models import Citation, CitationCount, Paper
from publishing.models import Status
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(paper):
    return reverse("admin:citations_paper_change", args=[paper.pk])


def open_form(client, paper):
    response = client.get(change_url(paper))
    assert response.status_code == 200
    return response, admin_form_data(response, Paper)


def add_row(form, prefix, row):
    number = int(form[f"{prefix}-TOTAL_FORMS"][0])
    form[f"{prefix}-{number}-id"] = [""]
    for name, value in row.items():
        form[f"{prefix}-{number}-{name}"] = [str(value)]
    form[f"{prefix}-TOTAL_FORMS"] = [str(number + 1)]
    return form


def test_a_new_inline_edge_follows_its_papers_and_moves_the_public_count(editor_client):
    hub, citing = PaperFactory(), PaperFactory()
    role, polarity = CitationRoleFactory(), CitationPolarityFactory()
    response, form = open_form(editor_client, hub)
    # The empty row a new edge starts from says "public with its papers", not draft.
    empty_row = response.context["inline_admin_formsets"][2].formset.empty_form
    assert empty_row["status"].value() == Status.PUBLISHED

    add_row(
        form,
        "citations_received",
        {
            "citing_paper": citing.pk,
            "role": role.pk,
            "polarity": polarity.pk,
            "status": "published",
        },
    )
    assert editor_client.post(change_url(hub), form).status_code == 302

    edge = Citation.objects.get()
    assert edge.status == Status.PUBLISHED
    assert Citation.objects.public().filter(pk=edge.pk).exists()
    assert CitationCount.objects.get(paper=hub).total == 1
    assert hub.citation_summary().total == 1


def test_the_inline_row_starts_with_its_status_in_plain_words(editor_client):
    hub = PaperFactory()
    CitationFactory(cited_paper=hub)
    response, _ = open_form(editor_client, hub)
    inline = response.context["inline_admin_formsets"][2]
    assert list(inline.fields())[0]["name"] == "status"
    page = response.content.decode()
    assert "Public when both papers are" in page
    assert "Held back" in page


def test_a_held_back_edge_stays_hidden_while_both_papers_are_public(db):
    edge = CitationFactory(status=Status.DRAFT, published_at=None)
    assert not Citation.objects.public().filter(pk=edge.pk).exists()
    assert CitationCount.objects.get(paper=edge.cited_paper).total == 0


def test_an_edge_follows_a_paper_published_later(db):
    citing = PaperFactory(draft=True)
    edge = CitationFactory(citing_paper=citing)
    assert CitationCount.objects.get(paper=edge.cited_paper).total == 0
    Paper.objects.filter(pk=citing.pk).publish()
    assert Citation.objects.public().filter(pk=edge.pk).exists()
    assert CitationCount.objects.get(paper=edge.cited_paper).total == 1


def test_saving_a_published_paper_with_held_back_edges_warns(editor_client):
    hub = PaperFactory()
    CitationFactory(cited_paper=hub, status=Status.DRAFT, published_at=None)
    _, form = open_form(editor_client, hub)
    response = editor_client.post(change_url(hub), form, follow=True)
    messages = [str(message) for message in response.context["messages"]]
    assert any("1 of its citation edges is held back" in message for message in messages)


@pytest.mark.parametrize("touched", [False, True], ids=["row untouched", "row changed"])
def test_a_stale_inline_row_does_not_overwrite_a_newer_correction(
    editor_client, second_editor, touched
):
    """Only the row both changed is refused (and said so), not the editor's whole save: the
    paper's own fields, which nobody else changed, are saved."""
    hub = PaperFactory()
    edge = CitationFactory(cited_paper=hub, context="Original sentence.")
    _, stale_copy = open_form(editor_client, hub)

    # Editor B corrects the citing sentence on the citation's own page.
    second = Client()
    second.force_login(second_editor)
    citation_url = reverse("admin:citations_citation_change", args=[edge.pk])
    data = admin_form_data(second.get(citation_url), Citation)
    data["context"] = ["Corrected sentence."]
    assert second.post(citation_url, data).status_code == 302

    # Editor A saves the paper from the older copy, which still holds the old sentence.
    stale_copy["summary"] = ["Editor A's summary."]
    if touched:
        stale_copy["citations_received-0-context"] = ["Editor A's sentence."]
    response = editor_client.post(change_url(hub), stale_copy, follow=True)

    assert response.status_code == 200
    refusals = [str(m) for m in response.context["messages"] if "Not saved" in str(m)]
    assert len(refusals) == int(touched)
    if touched:
        assert "“Editor A's sentence.”" in refusals[0]
        assert "“Corrected sentence.”" in refusals[0]
    assert Citation.objects.get(pk=edge.pk).context == "Corrected sentence."
    assert Paper.objects.get(pk=hub.pk).summary == "Editor A's summary."


def test_an_untouched_row_changed_elsewhere_does_not_block_the_save(editor_client):
    hub = PaperFactory()
    edge = CitationFactory(cited_paper=hub, context="Sentence.")
    _, form = open_form(editor_client, hub)
    Citation.objects.filter(pk=edge.pk).publish()  # bumps the version, same values
    form["summary"] = ["New summary."]
    assert editor_client.post(change_url(hub), form).status_code == 302
    assert Paper.objects.get(pk=hub.pk).summary == "New summary."


def hub_with_edges(count):
    hub = PaperFactory()
    role, polarity = CitationRoleFactory(), CitationPolarityFactory()
    citing = PaperFactory.create_batch(count)
    edges = [
        Citation(
            citing_paper=paper,
            cited_paper=hub,
            role=role,
            polarity=polarity,
            status=Status.PUBLISHED,
        )
        for paper in citing
    ]
    Citation.objects.bulk_create(edges)
    for paper in citing[:5]:
        CitationFactory(citing_paper=hub, cited_paper=paper, role=role, polarity=polarity)
    return hub


def change_form_queries(client, paper, django_assert_max_num_queries, ceiling):
    with django_assert_max_num_queries(ceiling) as captured:
        response = client.get(change_url(paper))
    assert response.status_code == 200
    return response, len(captured)


def test_a_big_hub_opens_in_a_constant_number_of_queries(
    editor_client, django_assert_max_num_queries
):
    small, big = hub_with_edges(3), hub_with_edges(INLINE_EDGE_LIMIT * 4)
    _, small_queries = change_form_queries(editor_client, small, django_assert_max_num_queries, 60)
    response, big_queries = change_form_queries(
        editor_client, big, django_assert_max_num_queries, small_queries
    )
    formset = response.context["inline_admin_formsets"][2].formset
    assert len(formset.initial_forms) == INLINE_EDGE_LIMIT
    page = response.content.decode()
    assert f"Showing {INLINE_EDGE_LIMIT} of {INLINE_EDGE_LIMIT * 4}" in page
    changelist = reverse("admin:citations_citation_changelist")
    assert f"{changelist}?cited_paper__id__exact={big.pk}" in page
    assert editor_client.get(f"{changelist}?cited_paper__id__exact={big.pk}").status_code == 200


def test_a_big_hub_saves_the_rows_it_showed(editor_client):
    hub = hub_with_edges(INLINE_EDGE_LIMIT + 10)
    _, form = open_form(editor_client, hub)
    form["citations_received-0-context"] = ["Edited inline."]
    assert editor_client.post(change_url(hub), form).status_code == 302
    edited = Citation.objects.get(pk=form["citations_received-0-id"][0])
    assert edited.context == "Edited inline."
    assert Citation.objects.filter(cited_paper=hub).count() == INLINE_EDGE_LIMIT + 10


def test_the_lists_show_what_editors_need(editor_client):
    edge = CitationFactory(context="x")
    page = editor_client.get(reverse("admin:citations_citation_changelist")).content.decode()
    for column in ("column-citing", "column-cited", "column-role", "column-polarity"):
        assert column in page
    assert "column-status" in page or "column-get_publication_state_display" in page
    papers = editor_client.get(reverse("admin:citations_paper_changelist"))
    columns = [str(column) for column in papers.context["cl"].list_display]
    status_column = next(c for c in columns if "status" in str(c) or "state" in str(c))
    assert columns.index(status_column) <= 2, "Status must show without scrolling at 1366 px"
    assert edge.citing_paper.title[:20] in page


def test_the_papers_list_says_scheduled(editor_client):
    later = timezone.now() + datetime.timedelta(days=3)
    PaperFactory(title="Coming soon", published_at=later)
    PaperFactory(title="Waiting", status=Status.REVIEW, published_at=None)
    response = editor_client.get(reverse("admin:citations_paper_changelist"))
    page = text_of(response)
    assert "Scheduled for" in page
    assert "Submitted for review" in page
