"""Draft revisions of live items (issue 13, point 2): an editor saves changes to a published
note or paper as a draft revision, readers keep seeing the published version, the change form
loads the draft revision back, the preview shows it as readers will see it, and publishing it
goes through the ordinary save (history records it)."""

import pytest
from django.test import Client
from django.urls import reverse

from citations.models import Paper
from notes.models import ResearchNote
from publishing.revisions import DraftRevision
from tests.factories import CitationFactory, LayerFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def url(obj, view):
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_{view}", args=[obj.pk])


def form_data(client, obj, **changes):
    data = admin_form_data(client.get(url(obj, "change")), type(obj))
    data.update(
        {name: value if isinstance(value, list) else [value] for name, value in changes.items()}
    )
    return data


@pytest.fixture
def note():
    note = ResearchNoteFactory(title="Live note", dek="The published standfirst.")
    note.tags.add("live-tag")
    return note


def save_draft_revision(client, obj, **changes):
    data = form_data(client, obj, **changes)
    data["_save_draft_revision"] = ["Save as draft revision"]
    response = client.post(url(obj, "change"), data)
    assert response.status_code == 302, text_of(response)[:2000]
    return response


def test_a_draft_revision_leaves_the_published_note_up(editor, editor_client, note):
    version = note.version
    save_draft_revision(
        editor_client, note, dek="A half-written summary", tags="live-tag, draft-tag"
    )
    note.refresh_from_db()
    assert note.dek == "The published standfirst."
    assert note.version == version  # the live row was not saved
    assert list(note.tags.names()) == ["live-tag"]
    public = text_of(Client().get(note.get_absolute_url()))
    assert "The published standfirst." in public
    assert "half-written" not in public
    revision = DraftRevision.objects.for_object(note).get()
    assert revision.author == editor
    assert revision.data["dek"] == ["A half-written summary"]


def test_the_change_form_loads_the_draft_revision(editor_client, note):
    save_draft_revision(editor_client, note, dek="A half-written summary", tags="draft-tag")
    page = editor_client.get(url(note, "change"))
    html = page.content.decode()
    assert "You are editing a draft revision" in text_of(page)
    assert "A half-written summary" in html
    assert "draft-tag" in html
    assert url(note, "draft_revision_preview") in html
    assert 'target="_blank"' in html
    assert "Please correct" not in text_of(page)
    live = editor_client.get(url(note, "change") + "?live=1").content.decode()
    assert "A half-written summary" not in live
    assert "The published standfirst." in live


def test_the_preview_shows_the_draft_revision_as_readers_will_see_it(editor_client, note):
    layer = LayerFactory(name="Reward layer")
    save_draft_revision(
        editor_client,
        note,
        title="Retitled note",
        body="A **new** paragraph.",
        layers=[str(layer.pk)],
    )
    preview = editor_client.get(url(note, "draft_revision_preview"))
    assert preview.status_code == 200
    text = text_of(preview)
    assert "Draft revision preview." in text
    assert "Retitled note" in text
    assert "Reward layer" in text  # and relations
    assert "<strong>new</strong>" in preview.content.decode()  # rendered as on the site
    assert url(note, "change") in preview.content.decode()  # the link back
    assert "no-store" in preview["Cache-Control"]
    # Nothing of the preview's save survives it.
    note.refresh_from_db()
    assert note.title == "Live note"
    assert note.layers.count() == 0
    assert "Retitled" not in text_of(Client().get(note.get_absolute_url()))


def test_publishing_the_draft_revision_applies_it_and_records_history(editor, editor_client, note):
    save_draft_revision(editor_client, note, dek="Finished summary", tags="live-tag, new-tag")
    records = note.history.count()
    data = admin_form_data(editor_client.get(url(note, "change")), ResearchNote)
    data["_publish_draft_revision"] = ["Publish draft revision"]
    response = editor_client.post(url(note, "change"), data)
    assert response.status_code == 302, text_of(response)[:2000]
    note.refresh_from_db()
    assert note.dek == "Finished summary"
    assert sorted(note.tags.names()) == ["live-tag", "new-tag"]
    assert not DraftRevision.objects.for_object(note).exists()
    assert note.history.count() == records + 1
    assert note.history.first().history_user == editor
    assert "Finished summary" in text_of(Client().get(note.get_absolute_url()))


def test_a_draft_revision_of_a_paper_and_discarding_it(editor_client):
    paper = PaperFactory(title="Live paper", summary="Published summary.")
    save_draft_revision(editor_client, paper, summary="Draft summary.")
    preview = editor_client.get(url(paper, "draft_revision_preview"))
    assert "Draft summary." in text_of(preview)
    assert Paper.objects.get(pk=paper.pk).summary == "Published summary."
    data = admin_form_data(editor_client.get(url(paper, "change")), Paper)
    data["_discard_draft_revision"] = ["Discard draft revision"]
    assert editor_client.post(url(paper, "change"), data).status_code == 302
    assert not DraftRevision.objects.for_object(paper).exists()
    assert Paper.objects.get(pk=paper.pk).summary == "Published summary."


def test_an_invalid_draft_revision_is_refused_with_the_errors(editor_client, note):
    data = form_data(editor_client, note, title="")
    data["_save_draft_revision"] = ["Save as draft revision"]
    response = editor_client.post(url(note, "change"), data)
    assert response.status_code == 200
    assert "This field is required" in text_of(response)
    assert not DraftRevision.objects.for_object(note).exists()


def test_drafts_are_saved_as_before_and_readers_cannot_preview(client, reader, editor_client):
    draft = ResearchNoteFactory(draft=True)
    page = editor_client.get(url(draft, "change")).content.decode()
    assert "_save_draft_revision" not in page  # a draft is private already
    client.force_login(reader)
    assert client.get(url(draft, "draft_revision_preview")).status_code in (302, 403, 404)


@pytest.mark.django_db(transaction=True)
def test_the_change_form_loads_a_draft_revision_outside_a_test_transaction(editor_client, note):
    """As a real request runs: no surrounding transaction, so the stale-edit check's row lock
    (SELECT ... FOR UPDATE, refused by PostgreSQL outside one) needs the view's own."""
    save_draft_revision(editor_client, note, dek="A half-written summary")
    response = editor_client.get(url(note, "change"))
    assert response.status_code == 200
    assert "A half-written summary" in text_of(response)


@pytest.mark.parametrize("reader_first", [False, True])
def test_a_preview_neither_shares_nor_reuses_what_readers_get(
    editor_client, settings, reader_first
):
    """The preview renders inside a transaction rolled back after it, under the same content
    generation: nothing below the page cache may keep the draft's content for readers or show
    the preview what readers were shown."""
    settings.PAGE_CACHE_SECONDS = 0  # the reader's page is rendered, as on a page-cache miss
    paper = PaperFactory(title="Live paper")
    cited = PaperFactory(title="A paper it cites")
    CitationFactory(citing_paper=paper, cited_paper=cited)
    save_draft_revision(editor_client, paper, title="Retitled paper")
    if reader_first:
        Client().get(paper.get_absolute_url())
    preview = editor_client.get(url(paper, "draft_revision_preview")).content.decode()
    json_ld = preview.split('<script type="application/ld+json">')[1].split("</script>")[0]
    assert "Retitled paper" in json_ld
    public = Client().get(paper.get_absolute_url()).content.decode()
    assert "Retitled" not in public
    assert "Live paper" in public and "A paper it cites" in public
