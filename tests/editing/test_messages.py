"""Refusals and reports speak in sentences that name what they are about: two rows of a paper's
edges naming the same paper name it by title, not "Please correct the duplicate data for
cited_paper."; a unique rule names its field and the row holding the value, never "Constraint
“…” is violated."; a null character names its field; revert, recover, merge and undo say what
they did to which item, by title."""

import html
import re

import pytest
from django.contrib import admin
from django.db import models
from django.urls import reverse

from citations.identity import PaperMerge
from citations.models import Citation, Paper
from notes.models import ResearchNote
from publishing.models import format_moment
from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, linked_content, text_of, token_client

pytestmark = pytest.mark.django_db


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


@pytest.mark.parametrize(
    ("inline", "other_end"),
    [("citations_received", "citing_paper"), ("citations_made", "cited_paper")],
)
def test_the_same_paper_twice_in_either_inline_is_named_by_title(editor_client, inline, other_end):
    hub, other = PaperFactory(), PaperFactory(title="The other paper", slug="other-slug")
    url = reverse("admin:citations_paper_change", args=[hub.pk])
    data = admin_form_data(editor_client.get(url), Paper)
    data[f"{inline}-TOTAL_FORMS"] = ["2"]
    for row in ("0", "1"):
        data[f"{inline}-{row}-id"] = [""]
        data[f"{inline}-{row}-{other_end}"] = [str(other.pk)]
        data[f"{inline}-{row}-status"] = ["draft"]
    page = html.unescape(text_of(editor_client.post(url, data)))
    assert "“The other paper” is listed twice in these edges" in page
    assert "duplicate data" not in page and "other-slug" not in page
    assert not Citation.objects.exists()


def test_a_duplicate_edge_is_named_by_the_papers_titles(editor_client):
    citing = PaperFactory(title="The citing paper", slug="citing-slug")
    cited = PaperFactory(title="The cited paper", slug="cited-slug")
    CitationFactory(citing_paper=citing, cited_paper=cited)
    url = reverse("admin:citations_citation_add")
    data = admin_form_data(editor_client.get(url), Citation)
    data.update(citing_paper=[str(citing.pk)], cited_paper=[str(cited.pk)], status=["draft"])
    page = html.unescape(text_of(editor_client.post(url, data)))
    assert "“The citing paper” already cites “The cited paper”." in page
    assert "citing-slug" not in page


def test_a_datacite_doi_of_a_known_arxiv_id_is_one_sentence_naming_the_paper(editor_client):
    PaperFactory(title="The existing paper", arxiv_id="2510.13786", doi="")
    url = reverse("admin:citations_paper_add")
    data = admin_form_data(editor_client.get(url), Paper)
    data.update(title=["A second copy"], slug=["a-second-copy"], doi=["10.48550/arXiv.2510.13786"])
    response = editor_client.post(url, data)
    assert response.status_code == 200
    errors = error_lists(response)
    assert errors == ["The paper “The existing paper” already has this arXiv id."]
    assert Paper.objects.count() == 1


def test_a_null_character_is_refused_naming_the_field(editor_client, editor):
    note = ResearchNoteFactory()
    url = reverse("admin:notes_researchnote_change", args=[note.pk])
    data = admin_form_data(editor_client.get(url), ResearchNote)
    data["title"] = ["Before\x00after"]
    errors = error_lists(editor_client.post(url, data))
    assert any(error.startswith("Title contains a null character") for error in errors)
    assert "Null characters are not allowed." not in errors

    response = token_client(editor).patch(
        f"/api/v1/notes/{note.slug}/", {"title": "Before\x00after"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"]["title"][0].startswith("Title contains a null character")


def test_merge_and_undo_name_the_papers_by_title(editor_client):
    keep = PaperFactory(title="Proximal Policy Optimization", slug="ppo", publication_date=None)
    other = PaperFactory(title="Proximal policy optimization.", slug="ppo-2", publication_date=None)
    response = editor_client.post(
        "/admin/citations/papermerge/duplicates/", {"keep": keep.pk, "other": other.pk}, follow=True
    )
    page = html.unescape(text_of(response))
    assert "Merged “Proximal policy optimization.” into “Proximal Policy Optimization”" in page
    response = editor_client.post(
        "/admin/citations/papermerge/",
        {"action": "undo", "_selected_action": [PaperMerge.objects.get().pk]},
        follow=True,
    )
    page = html.unescape(text_of(response))
    assert "Undid the merge: “Proximal policy optimization.” is back as its own paper." in page
    assert "Ppo-2" not in page


def unique_specs(model):
    """Each set of fields that must be unique together: unique fields, unique constraints."""
    specs = [(field.name,) for field in model._meta.concrete_fields if field.unique]
    specs += [
        tuple(constraint.fields)
        for constraint in model._meta.constraints
        if isinstance(constraint, models.UniqueConstraint) and constraint.fields
    ]
    return [spec for spec in specs if model._meta.pk.name not in spec]


def test_every_unique_rule_in_the_admin_is_a_sentence_naming_the_field(admin_client):
    """A copy of an existing row of every model in the admin, posted to its add form: each
    unique field or constraint it breaks is refused with a sentence naming the field, never
    "Constraint “…” is violated."."""
    linked_content()
    checked = 0
    for model in list(admin.site._registry):
        specs = unique_specs(model)
        row = model._base_manager.order_by("pk").first()
        if not specs or row is None:
            continue
        opts = model._meta
        add_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
        change_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[row.pk])
        change = admin_client.get(change_url)
        if change.status_code != 200:
            continue
        data = admin_form_data(change, model)
        posted = set(data)
        specs = [spec for spec in specs if set(spec) <= posted]
        if not specs:
            continue
        for name in list(data):  # the inline rows are the original's: post none
            if name.endswith("-INITIAL_FORMS") or name.endswith("-TOTAL_FORMS"):
                data[name] = ["0"]
        response = admin_client.post(add_url, data)
        if response.status_code == 403:  # nobody adds these by hand (import runs, ...)
            continue
        assert response.status_code == 200, f"{opts.label}: a copy was saved"
        errors = error_lists(response)
        assert not [error for error in errors if "is violated" in error], (opts.label, errors)
        for spec in specs:
            labels = [str(opts.get_field(name).verbose_name).lower() for name in spec]
            assert any(any(label in error.lower() for label in labels) for error in errors), (
                opts.label,
                spec,
                errors,
            )
        checked += 1
    assert checked >= 10


def error_lists(response):
    """The text of each error the admin shows (field, form and inline errors)."""
    page = response.content.decode()
    lists = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)
    return [
        html.unescape(re.sub(r"<[^>]+>", "", item)).strip()
        for found in lists
        for item in re.findall(r"<li>(.*?)</li>", found, re.S)
    ]
