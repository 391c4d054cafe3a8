"""Research note pages (/notes/<slug>/)."""

import pytest
from django.test import Client
from django.urls import reverse

from notes.models import ResearchNote
from publishing.models import Status
from tests.factories import ClaimFactory, LayerFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

BATCHES = "when-do-larger-batches-help-scale-llm-reinforcement-learning"
NOTE_QUERY_CEILING = 11  # + the claims from the note (3)


def note_url(slug):
    return reverse("notes:note-detail", kwargs={"slug": slug})


def test_note_shows_title_dek_figures_body_and_why_it_matters(client, demo):
    response = client.get(note_url(BATCHES))
    assert response.status_code == 200
    text = text_of(response)
    html = response.content.decode()
    assert "When Do Larger Batches Help Scale LLM Reinforcement Learning?" in text
    assert "The authors separate sample efficiency from systems throughput." in text
    assert "<dt>2.29×</dt>" in html
    assert "<p>The paper treats batch size as two separate questions." in html  # Markdown
    assert "Why it matters" in text
    assert "more throughput becomes useful capability only when the optimization side" in text
    assert "Sep 1, 2026" in text
    assert "Caveat" not in text  # this note has none


def test_note_links_its_paper_layers_and_tags(client, demo):
    html = client.get(note_url(BATCHES)).content.decode()
    assert f'href="/papers/{BATCHES}/"' in html
    assert 'href="/bottlenecks/compute/"' in html and 'href="/bottlenecks/rollouts/"' in html
    assert 'href="/tags/grpo/"' in html and 'href="/tags/scaling-laws/"' in html


def test_caveat_is_shown_where_set(client, demo):
    text = text_of(client.get(note_url("process-supervision-for-agentic-policy-optimization")))
    assert "Caveat" in text
    assert "The authors describe this paper as work in progress." in text


def test_note_body_markdown_is_sanitised(client, db):
    note = ResearchNoteFactory(
        body="Fine **bold**.\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))"
        "\n\n<img src=x onerror=alert(1)>"
    )
    html = client.get(note.get_absolute_url()).content.decode()
    assert "<strong>bold</strong>" in html
    assert "<script>alert(1)" not in html
    assert "javascript:" not in html
    assert "onerror" not in html


def test_draft_note_is_404_for_the_public_and_previewable_by_editors(editor_client, db):
    note = ResearchNoteFactory(title="Unpublished note", draft=True)
    assert Client().get(note.get_absolute_url()).status_code == 404
    response = editor_client.get(note.get_absolute_url())
    assert response.status_code == 200
    assert "Draft preview." in text_of(response)
    assert "no-store" in response["Cache-Control"]


def test_draft_papers_and_layers_are_not_linked_from_a_note(client, db):
    note = ResearchNoteFactory()
    note.papers.add(PaperFactory(title="Hidden paper", draft=True), PaperFactory(title="Shown"))
    note.layers.add(LayerFactory(name="Hidden layer", draft=True))
    text = text_of(client.get(note.get_absolute_url()))
    assert "Shown" in text
    assert "Hidden paper" not in text and "Hidden layer" not in text


def test_unknown_note_is_404(client, db):
    assert client.get(note_url("no-such-note")).status_code == 404


def test_note_query_count_does_not_grow(client, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(NOTE_QUERY_CEILING):
        client.get(note_url(BATCHES))
    note = ResearchNote.objects.get(slug=BATCHES)
    for number in range(15):
        note.papers.add(PaperFactory())
        note.layers.add(LayerFactory())
        note.tags.add(f"extra-{number}")
        ClaimFactory(figure=f"{number}%", unit="a figure").notes.add(note)
    with django_assert_max_num_queries(NOTE_QUERY_CEILING):
        response = client.get(note_url(BATCHES))
    assert response.content.decode().count("<dd>a figure</dd>") == 15


def test_notes_are_listed_on_their_papers_hub(client, demo):
    html = client.get(reverse("citations:paper-detail", kwargs={"slug": BATCHES})).content
    assert f'href="/notes/{BATCHES}/"' in html.decode()
    note = ResearchNote.objects.get(slug=BATCHES)
    note.status = Status.DRAFT
    note.save()  # a save, as an editor makes it, invalidates the cached hub page
    html = client.get(reverse("citations:paper-detail", kwargs={"slug": BATCHES})).content
    assert f'href="/notes/{BATCHES}/"' not in html.decode()


def test_a_notes_markdown_body_is_rendered_sanitised_and_an_edit_shows_at_once(client, settings):
    settings.PAGE_CACHE_SECONDS = 0  # every request runs the view, as a page-cache miss does
    note = ResearchNoteFactory(body="## Where it breaks\n\nScaling **stops** <script>x()</script>")
    html = client.get(note.get_absolute_url()).content.decode()
    assert "<strong>stops</strong>" in html and "<script>x()" not in html
    note.body = "Scaling **holds** at the verifier."
    note.save()
    html = client.get(note.get_absolute_url()).content.decode()
    assert "<strong>holds</strong>" in html and "<strong>stops</strong>" not in html


@pytest.mark.parametrize("factory", [ResearchNoteFactory, PaperFactory, LayerFactory])
def test_every_preview_links_back_to_its_admin_form(editor_client, db, factory):
    item = factory(draft=True)
    html = editor_client.get(item.get_absolute_url()).content.decode()
    opts = item._meta
    change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[item.pk])
    assert f'<a href="{change}">Back to editing</a>' in html
