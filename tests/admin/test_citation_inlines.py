"""Citation edges edited inline on a paper's admin page: a self-citation or an edge that already
exists comes back as an error on the form, with the editor's input kept, never a 500."""

import pytest
from django.urls import reverse

from citations.models import Citation, Paper
from tests.factories import CitationFactory, PaperFactory
from tests.helpers import admin_form_data

pytestmark = pytest.mark.django_db


def change_url(paper):
    return reverse("admin:citations_paper_change", args=[paper.pk])


def add_inline_rows(form, prefix, rows):
    """Add new rows to the inline formset `prefix` (e.g. citations_made) of an admin form."""
    total = int(form[f"{prefix}-TOTAL_FORMS"][0])
    for offset, row in enumerate(rows):
        number = total + offset
        form[f"{prefix}-{number}-id"] = [""]
        form[f"{prefix}-{number}-status"] = ["draft"]
        for name, value in row.items():
            form[f"{prefix}-{number}-{name}"] = [str(value)]
    form[f"{prefix}-TOTAL_FORMS"] = [str(total + len(rows))]
    return form


def submit_with_rows(client, paper, prefix, rows):
    form = admin_form_data(client.get(change_url(paper)), Paper)
    return client.post(change_url(paper), add_inline_rows(form, prefix, rows))


def inline_errors(response):
    """Every error message shown for the inline formsets (row and formset level)."""
    messages = []
    for formset in response.context["inline_admin_formsets"]:
        messages += formset.formset.non_form_errors()
        for errors in formset.formset.errors:
            messages += [message for field_errors in errors.values() for message in field_errors]
    return messages


@pytest.mark.parametrize(
    ("prefix", "other_end"),
    [("citations_made", "cited_paper"), ("citations_received", "citing_paper")],
)
def test_a_paper_citing_itself_inline_is_a_form_error(editor_client, prefix, other_end):
    paper = PaperFactory()
    response = submit_with_rows(editor_client, paper, prefix, [{other_end: paper.pk}])
    assert response.status_code == 200
    assert "A paper cannot cite itself." in inline_errors(response)
    assert not Citation.objects.exists()


def test_an_edge_that_already_exists_inline_is_a_form_error(editor_client):
    citing, cited = PaperFactory(slug="citing"), PaperFactory(slug="cited")
    CitationFactory(citing_paper=citing, cited_paper=cited)
    response = submit_with_rows(
        editor_client, citing, "citations_made", [{"cited_paper": cited.pk}]
    )
    assert response.status_code == 200
    assert inline_errors(response)  # the formset or the model names the duplicate
    assert Citation.objects.count() == 1


def test_the_same_edge_twice_in_one_inline_is_a_form_error(editor_client):
    citing, cited = PaperFactory(), PaperFactory()
    rows = [{"cited_paper": cited.pk}, {"cited_paper": cited.pk}]
    response = submit_with_rows(editor_client, citing, "citations_made", rows)
    assert response.status_code == 200
    assert inline_errors(response)
    assert not Citation.objects.exists()


def test_a_valid_inline_edge_is_saved(editor_client):
    citing, cited = PaperFactory(), PaperFactory()
    response = submit_with_rows(
        editor_client, citing, "citations_made", [{"cited_paper": cited.pk}]
    )
    assert response.status_code == 302
    assert Citation.objects.filter(citing_paper=citing, cited_paper=cited).exists()


def test_a_seventh_representative_in_the_change_form_is_refused(editor_client):
    cited = PaperFactory()
    for _ in range(6):
        CitationFactory(cited_paper=cited, is_representative=True, representative_reason="Why")
    edge = CitationFactory(cited_paper=cited)
    url = reverse("admin:citations_citation_change", args=[edge.pk])
    form = admin_form_data(editor_client.get(url), Citation)
    form |= {"is_representative": ["on"], "representative_reason": ["Also good"]}
    response = editor_client.post(url, form)
    assert response.status_code == 200
    assert "a hub has at most 6" in response.content.decode()
    assert not Citation.objects.get(pk=edge.pk).is_representative


def received_rows(client, cited):
    form = admin_form_data(client.get(change_url(cited)), Paper)
    count = int(form["citations_received-TOTAL_FORMS"][0])
    rows = {int(form[f"citations_received-{i}-id"][0]): i for i in range(count)}
    return form, rows


def test_inline_representatives_may_be_swapped_in_one_save_but_not_exceed_six(editor_client):
    cited = PaperFactory()
    edges = [
        CitationFactory(cited_paper=cited, is_representative=number < 6, representative_reason="R")
        for number in range(8)
    ]
    form, rows = received_rows(editor_client, cited)
    form.pop(f"citations_received-{rows[edges[0].pk]}-is_representative")
    form[f"citations_received-{rows[edges[6].pk]}-is_representative"] = ["on"]
    response = editor_client.post(change_url(cited), form)
    assert response.status_code == 302, inline_errors(response)
    flagged = set(cited.citations_received.filter(is_representative=True).values_list("pk"))
    assert flagged == {(edge.pk,) for edge in edges[1:7]}

    form, rows = received_rows(editor_client, cited)
    form[f"citations_received-{rows[edges[0].pk]}-is_representative"] = ["on"]
    response = editor_client.post(change_url(cited), form)
    assert response.status_code == 200
    assert any("a hub has at most 6" in message for message in inline_errors(response))
    assert cited.citations_received.filter(is_representative=True).count() == 6
