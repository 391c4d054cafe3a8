"""Issue 13, point 10: authors typed inline in order, tags that match their existing spelling,
too-long text refused instead of cut, Markdown or plain text said next to each field, and what
the sanitiser removes told to the editor."""

import pytest
from django.contrib import admin
from django.urls import reverse

from citations.models import Author, Paper
from core.markdown import MARKDOWN_HELP, PLAIN_TEXT_HELP
from notes.models import ResearchNote
from publishing.admin import PublishableAdmin
from tags.models import Tag
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, token_client

pytestmark = pytest.mark.django_db


def change_url(obj):
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def paper_form(client, paper):
    return admin_form_data(client.get(change_url(paper)), Paper)


def with_authors(form, names_and_positions):
    for number, (name, position) in enumerate(names_and_positions):
        form[f"authorships-{number}-id"] = [""]
        form[f"authorships-{number}-name"] = [name]
        form[f"authorships-{number}-position"] = [str(position)]
    form["authorships-TOTAL_FORMS"] = [str(len(names_and_positions))]
    return form


def test_authors_are_typed_inline_and_kept_in_order(editor_client):
    Author.objects.create(name="Ada Lovelace")
    paper = PaperFactory()
    form = with_authors(paper_form(editor_client, paper), [("ada lovelace", 1), ("Alan Turing", 0)])
    response = editor_client.post(change_url(paper), form)
    assert response.status_code == 302
    assert Paper.objects.get(pk=paper.pk).author_names == ["Alan Turing", "Ada Lovelace"]
    assert Author.objects.count() == 2  # the existing author was reused


def test_the_same_author_twice_is_a_form_error(editor_client):
    paper = PaperFactory()
    form = with_authors(paper_form(editor_client, paper), [("Alan Turing", 0), ("alan turing", 1)])
    response = editor_client.post(change_url(paper), form)
    assert response.status_code == 200
    assert "This author is already listed on this paper." in response.content.decode()
    assert not paper.authorships.exists()


def test_the_author_order_script_is_a_static_file(editor_client):
    paper = PaperFactory()
    page = editor_client.get(change_url(paper)).content.decode()
    assert "citations/admin/author_order.js" in page
    assert "<script>" not in page  # no inline script (strict CSP)


@pytest.mark.parametrize(
    "spelling", ["scaling laws", "Scaling Laws", "scaling_laws", "Scaling-Laws"]
)
def test_a_tag_spelled_differently_reuses_the_existing_tag(db, spelling):
    existing = Tag.objects.create(name="scaling-laws", slug="scaling-laws")
    paper = PaperFactory()
    paper.tags.add(spelling)
    assert list(paper.tags.all()) == [existing]
    assert Tag.objects.count() == 1


def test_tags_typed_in_the_admin_reuse_existing_ones(editor_client):
    existing = Tag.objects.create(name="Scaling laws", slug="scaling-laws")
    paper = PaperFactory()
    form = paper_form(editor_client, paper)
    form["tags"] = ['"scaling laws", scaling_laws, new tag']
    assert editor_client.post(change_url(paper), form).status_code == 302
    names = sorted(tag.name for tag in Paper.objects.get(pk=paper.pk).tags.all())
    assert names == sorted([existing.name, "new tag"])
    assert not Tag.objects.filter(slug__endswith="_1").exists()


def test_tags_sent_to_the_api_reuse_existing_ones(editor):
    Tag.objects.create(name="scaling-laws", slug="scaling-laws")
    note = ResearchNoteFactory(draft=True)
    response = token_client(editor).patch(
        f"/api/v1/notes/{note.slug}/", {"tags": ["Scaling Laws"]}, format="json"
    )
    assert response.status_code == 200, response.content
    assert [tag.slug for tag in note.tags.all()] == ["scaling-laws"]
    assert Tag.objects.count() == 1


def test_a_too_long_title_is_refused_not_cut(editor_client):
    paper = PaperFactory(title="Kept")
    response = editor_client.get(change_url(paper))
    assert 'maxlength="500"' not in response.content.decode()
    form = admin_form_data(response, Paper)
    form["title"] = ["x" * 639]
    response = editor_client.post(change_url(paper), form)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["title"]
    assert "Ensure this value has at most 500 characters (it has 639)." in errors
    assert Paper.objects.get(pk=paper.pk).title == "Kept"


def test_a_too_long_title_is_refused_by_the_api(editor):
    paper = PaperFactory(title="Kept")
    response = token_client(editor).patch(
        f"/api/v1/papers/{paper.slug}/", {"title": "x" * 639}, format="json"
    )
    assert response.status_code == 400
    assert "title" in response.json() or "title" in str(response.json())
    assert Paper.objects.get(pk=paper.pk).title == "Kept"


PUBLISHABLE_ADMINS = [
    model for model, model_admin in admin.site._registry.items()
    if isinstance(model_admin, PublishableAdmin)
]  # fmt: skip


@pytest.mark.parametrize("model", PUBLISHABLE_ADMINS, ids=lambda model: model.__name__)
def test_no_admin_form_cuts_text_in_the_browser(editor_client, model):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
    page = editor_client.get(url).content.decode()
    assert "maxlength=" not in page.replace('name="authorships', "")


def test_markdown_and_plain_text_fields_say_which_they_are(editor_client):
    note = ResearchNoteFactory()
    response = editor_client.get(change_url(note))
    form = response.context["adminform"].form
    assert MARKDOWN_HELP in form.fields["body"].help_text
    assert PLAIN_TEXT_HELP in form.fields["why_it_matters"].help_text
    assert PLAIN_TEXT_HELP in form.fields["caveat"].help_text
    assert MARKDOWN_HELP not in form.fields["dek"].help_text


def test_what_the_sanitiser_removes_is_told_to_the_editor(editor_client):
    note = ResearchNoteFactory()
    note.papers.add(PaperFactory())
    form = admin_form_data(editor_client.get(change_url(note)), ResearchNote)
    form["body"] = ['Text <script>alert(1)</script> and <a href="javascript:go()">a link</a>.']
    response = editor_client.post(change_url(note), form, follow=True)
    messages = " ".join(str(message) for message in response.context["messages"])
    assert "readers will not see the tag <script>" in messages
    assert "the link javascript:…" in messages


def test_clean_markdown_saves_without_a_warning(editor_client):
    note = ResearchNoteFactory()
    note.papers.add(PaperFactory())
    form = admin_form_data(editor_client.get(change_url(note)), ResearchNote)
    form["body"] = ["**Bold** and a [link](https://example.org)."]
    response = editor_client.post(change_url(note), form, follow=True)
    assert not [m for m in response.context["messages"] if "will not see" in str(m)]
