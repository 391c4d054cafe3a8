"""History is complete and readable (issue 13, points 4 and 5): many-to-many fields and child
rows are recorded and reverted, deleted items are recovered whole, any two revisions compare
side by side word by word, a save can say why, and an unchanged time is not a change."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from citations.models import Author, Authorship
from notes.models import ResearchNote
from tests.factories import LayerFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def url(obj, view, *args):
    return reverse(
        f"admin:{obj._meta.app_label}_{obj._meta.model_name}_{view}", args=[obj.pk, *args]
    )


def edit(client, obj, **changes):
    data = admin_form_data(client.get(url(obj, "change")), type(obj))
    data.update(
        {name: value if isinstance(value, list) else [value] for name, value in changes.items()}
    )
    response = client.post(url(obj, "change"), data)
    assert response.status_code == 302, text_of(response)[:1500]
    return data


def revert(client, obj, record):
    revert_url = url(obj, "simple_history", record.history_id)
    form = client.get(revert_url)
    assert form.status_code == 200
    response = client.post(revert_url, admin_form_data(form, type(obj)))
    assert response.status_code == 302, text_of(response)[:1500]
    return form


@pytest.fixture
def note(editor_client):
    """A note saved once through the admin with tags and a layer."""
    note = ResearchNoteFactory(title="A note with relations")
    first, second = LayerFactory(name="Rewards"), LayerFactory(name="Rollouts")
    note._layers = (first, second)
    edit(
        editor_client,
        note,
        tags="scaling laws, rewards",
        layers=[str(first.pk)],
    )
    return note


def latest_two(obj):
    return list(obj.history.order_by("-history_date", "-history_id")[:2])


def test_tags_and_layers_are_recorded_with_each_change(editor_client, note):
    recorded = latest_two(note)[0].related_snapshot
    assert recorded["m2m"]["tags"] == ["rewards", "scaling laws"]
    assert recorded["m2m"]["layers"] == [note._layers[0].pk]
    # A note's figures are claims now, with histories of their own (which notes they are on).
    assert recorded["children"] == {}


def test_revert_restores_tags_and_layers(editor_client, note):
    before = latest_two(note)[0]
    data = admin_form_data(editor_client.get(url(note, "change")), ResearchNote)
    data.update(
        {
            "tags": ["replaced"],
            "layers": [str(note._layers[1].pk)],
        }
    )
    assert editor_client.post(url(note, "change"), data).status_code == 302
    note.refresh_from_db()
    assert list(note.tags.names()) == ["replaced"]

    form = revert(editor_client, note, before)
    assert "scaling laws" in form.content.decode()  # the revert form shows the old tags

    note = ResearchNote.objects.get(pk=note.pk)
    assert sorted(note.tags.names()) == ["rewards", "scaling laws"]
    assert [layer.name for layer in note.layers.all()] == ["Rewards"]


def test_revert_restores_the_order_of_authors(editor_client):
    paper = PaperFactory()
    ada, bo = Author.objects.create(name="Ada"), Author.objects.create(name="Bo")
    Authorship.objects.create(paper=paper, author=ada, position=0)
    Authorship.objects.create(paper=paper, author=bo, position=1)
    edit(editor_client, paper, title="First title")
    before = latest_two(paper)[0]
    assert [row["author_id"] for row in before.related_snapshot["children"]["authorships"]] == [
        ada.pk,
        bo.pk,
    ]
    Authorship.objects.filter(paper=paper, author=ada).update(position=2)
    edit(editor_client, paper, title="Second title")
    assert paper.author_names == ["Bo", "Ada"]

    revert(editor_client, paper, before)
    paper.refresh_from_db()
    assert paper.title == "First title"
    assert paper.author_names == ["Ada", "Bo"]


def test_a_relation_changed_later_without_a_save_gets_its_own_record(editor, note):
    records = note.history.count()
    note = ResearchNote.objects.get(pk=note.pk)
    ResearchNote.history.filter(id=note.pk).update(
        history_date=timezone.now() - timezone.timedelta(hours=1)
    )
    note.tags.add("added from a shell")
    assert note.history.count() == records + 1
    latest = latest_two(note)[0]
    assert "added from a shell" in latest.related_snapshot["m2m"]["tags"]
    assert latest.history_change_reason == "Related items changed"


def test_a_deleted_note_is_listed_and_recovered_with_its_relations(editor_client, note):
    assert editor_client.post(url(note, "delete"), {"post": "yes"}).status_code == 302
    assert not ResearchNote.objects.filter(pk=note.pk).exists()

    changelist = editor_client.get(reverse("admin:notes_researchnote_changelist"))
    recover_url = reverse("admin:notes_researchnote_recover")
    assert recover_url in changelist.content.decode()
    listing = editor_client.get(recover_url)
    assert "A note with relations" in text_of(listing)
    deletion = ResearchNote.history.get(id=note.pk, history_type="-")
    revert_url = reverse(
        "admin:notes_researchnote_simple_history", args=[note.pk, deletion.history_id]
    )
    assert revert_url in listing.content.decode()

    form = editor_client.get(revert_url)
    assert form.status_code == 200
    response = editor_client.post(revert_url, admin_form_data(form, ResearchNote))
    assert response.status_code == 302, text_of(response)[:2000]  # not an empty error
    recovered = ResearchNote.objects.get(pk=note.pk)
    assert recovered.title == "A note with relations"
    assert sorted(recovered.tags.names()) == ["rewards", "scaling laws"]
    assert [layer.name for layer in recovered.layers.all()] == ["Rewards"]
    assert "No deleted research notes to recover." in text_of(editor_client.get(recover_url))


def test_any_two_revisions_compare_side_by_side_word_by_word(editor_client, note):
    first = latest_two(note)[0]
    edit(editor_client, note, body="The quick brown fox jumps over the lazy dog.")
    edit(editor_client, note, title="Renamed")
    edit(editor_client, note, body="The slow brown fox jumps over the lazy dog.", tags="rewards")
    last = latest_two(note)[0]

    history = editor_client.get(url(note, "history")).content.decode()
    assert 'name="old"' in history and 'name="new"' in history  # any two, not neighbours

    page = editor_client.get(url(note, "history_compare"), {"old": first.pk, "new": last.pk})
    assert page.status_code == 200
    html = page.content.decode()
    assert (
        '<ins class="diff-ins">slow</ins>' in html
        or '<ins class="diff-ins">The slow brown fox' in html
    )
    assert "chars]" not in html
    assert '<del class="diff-del">A note with relations</del>' in html
    assert '<ins class="diff-ins">Renamed</ins>' in html
    assert "scaling laws" in text_of(page)  # the tags, before and after
    main = html[html.index('id="content-main"') :]
    assert not re.search(r"\sstyle=", main)  # classes, no inline styles (CSP)

    middle = editor_client.get(
        url(note, "history_compare"),
        {"old": latest_two(note)[1].pk, "new": last.pk},
    ).content.decode()
    assert '<del class="diff-del">quick</del>' in middle
    assert '<ins class="diff-ins">slow</ins>' in middle
    assert editor_client.get(url(note, "history_compare"), {"old": "x"}).status_code == 404


def test_a_reason_for_change_is_recorded_and_shown(editor_client, note):
    edit(editor_client, note, title="Fixed title", change_reason="Typo in the title")
    assert latest_two(note)[0].history_change_reason == "Typo in the title"
    assert "Typo in the title" in text_of(editor_client.get(url(note, "history")))


def test_saving_unchanged_records_no_published_at_change(editor_client):
    """The form shows published_at without its microseconds: saving it back is no change."""
    note = ResearchNoteFactory(published_at=timezone.now().replace(microsecond=654321))
    records = note.history.count()
    edit(editor_client, note)  # untouched: nothing of it is written
    assert note.history.count() == records
    edit(editor_client, note, title="Another title")
    latest, previous = latest_two(note)
    assert latest.diff_against(previous).changed_fields == ["title"]


def test_an_api_edit_of_tags_and_layers_is_recorded_with_its_author(editor):
    from tests.helpers import token_client

    note = ResearchNoteFactory()
    layer = LayerFactory(slug="rewards-layer")
    response = token_client(editor).patch(
        f"/api/v1/notes/{note.slug}/",
        {"tags": ["api-tag"], "layers": ["rewards-layer"]},
        format="json",
    )
    assert response.status_code == 200, response.content
    latest = latest_two(note)[0]
    assert latest.history_user == editor
    assert latest.related_snapshot["m2m"]["tags"] == ["api-tag"]
    assert latest.related_snapshot["m2m"]["layers"] == [layer.pk]
