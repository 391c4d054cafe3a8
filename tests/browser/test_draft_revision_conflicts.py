"""Two editors on one live item, each in their own Chromium context: a stale draft revision
is refused with both versions shown, publishing a draft revision never reverts live edits
unasked, and a draft revision editing a citation row survives someone saving that edge."""

import pytest
from django.urls import reverse

from citations.models import Citation
from notes.models import ResearchNote
from publishing.revisions import DraftRevision
from tests.factories import CitationFactory, ResearchNoteFactory, UserFactory
from tests.helpers import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-draft-revision-conflicts")]


def signed_in(chromium, live_server, username):
    editor = UserFactory(editor=True, username=username)
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    return sign_in(context, live_server.url, editor).new_page()


def change_url(live_server, obj):
    name = f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change"
    return live_server.url + reverse(name, args=[obj.pk])


def messages_of(page):
    return page.locator(".messagelist").inner_text()


def test_a_stale_draft_revision_is_refused_and_both_are_kept(
    transactional_db, live_server, chromium
):
    note = ResearchNoteFactory(title="Live note", dek="The published standfirst.")
    first = signed_in(chromium, live_server, "first-editor")
    second = signed_in(chromium, live_server, "second-editor")
    first.goto(change_url(live_server, note))
    second.goto(change_url(live_server, note))

    first.fill("#id_dek", "The first editor's summary.")
    first.click("input[name=_save_draft_revision]")
    assert "Saved as a draft revision" in messages_of(first)
    second.fill("#id_dek", "The second editor's summary.")
    second.click("input[name=_save_draft_revision]")

    assert "saved a draft revision of this" in messages_of(second)
    assert second.locator("#id_dek").input_value() == "The second editor's summary."
    assert (
        "The first editor's summary."
        in second.locator(".draft-revision-note[role=alert]").inner_text()
    )
    assert DraftRevision.objects.for_object(note).get().data["dek"] == [
        "The first editor's summary."
    ]
    second.click("input[name=_save_draft_revision]")  # having read theirs
    assert "Saved as a draft revision" in messages_of(second)
    assert DraftRevision.objects.for_object(note).get().data["dek"] == [
        "The second editor's summary."
    ]


# slow (`make test-all`, CI's slow step): two editors' drafts in two Chromium contexts;
# tests/editing covers the rule.
@pytest.mark.slow
def test_publishing_a_draft_revision_keeps_live_edits_and_asks_on_both(
    transactional_db, live_server, chromium
):
    note = ResearchNoteFactory(title="Live title", dek="The published standfirst.")
    url = change_url(live_server, note)
    drafting = signed_in(chromium, live_server, "drafting-editor")
    correcting = signed_in(chromium, live_server, "correcting-editor")
    drafting.goto(url)
    drafting.fill("#id_dek", "The draft's standfirst.")
    drafting.click("input[name=_save_draft_revision]")
    correcting.goto(url + "?live=1")
    correcting.fill("#id_title", "Corrected live title")
    correcting.fill("#id_dek", "Corrected live standfirst.")
    correcting.locator("input[name=_save]").last.click()
    assert "was changed successfully" in messages_of(correcting)

    drafting.goto(url)
    assert drafting.locator("#id_title").input_value() == "Corrected live title"
    notes = drafting.locator(".draft-revision-note").all_inner_texts()
    assert any("Corrected live standfirst." in text and "The draft's" in text for text in notes)
    assert any("kept as published" in text and "title" in text for text in notes)
    drafting.click("input[name=_publish_draft_revision]")
    assert "Nothing was published" in messages_of(drafting)
    assert ResearchNote.objects.get(pk=note.pk).dek == "Corrected live standfirst."

    drafting.check("input[name=_conflict_dek][value=draft]")
    drafting.click("input[name=_publish_draft_revision]")
    assert "was changed successfully" in messages_of(drafting)
    note.refresh_from_db()
    assert note.dek == "The draft's standfirst." and note.title == "Corrected live title"


# slow (`make test-all`, CI's slow step): two editors' drafts in two Chromium contexts;
# tests/editing covers the rule.
@pytest.mark.slow
def test_a_draft_revision_of_a_citation_row_is_rebased_on_the_saved_edge(
    transactional_db, live_server, chromium
):
    edge = CitationFactory(context="The published sentence.")
    url = change_url(live_server, edge.citing_paper)
    drafting = signed_in(chromium, live_server, "drafting-editor")
    correcting = signed_in(chromium, live_server, "correcting-editor")
    drafting.goto(url)
    drafting.fill("#id_citations_made-0-context", "The draft's sentence.")
    drafting.click("input[name=_save_draft_revision]")
    assert "Saved as a draft revision" in messages_of(drafting)
    correcting.goto(url + "?live=1")
    correcting.check("#id_citations_made-0-is_representative")
    correcting.fill("#id_citations_made-0-representative_reason", "Chosen live.")
    correcting.locator("input[name=_save]").last.click()
    assert "was changed successfully" in messages_of(correcting)

    drafting.goto(url)
    assert drafting.locator(".errornote").count() == 0
    assert drafting.locator("#id_citations_made-0-context").input_value() == (
        "The draft's sentence."
    )
    drafting.click("input[name=_publish_draft_revision]")
    assert "was changed successfully" in messages_of(drafting)
    edge = Citation.objects.get(pk=edge.pk)
    assert edge.context == "The draft's sentence."
    assert edge.representative_reason == "Chosen live." and edge.is_representative


@pytest.mark.slow
def test_a_draft_revision_whose_edge_was_deleted_names_it_and_drops_it_on_request(
    transactional_db, live_server, chromium
):
    edge = CitationFactory(context="The published sentence.", publish_unclassified=True)
    paper = edge.citing_paper
    url = change_url(live_server, paper)
    drafting = signed_in(chromium, live_server, "drafting-editor")
    drafting.goto(url)
    drafting.fill("#id_title", "The draft's title")
    drafting.fill("#id_citations_made-0-context", "The draft's sentence.")
    drafting.click("input[name=_save_draft_revision]")
    assert "Saved as a draft revision" in messages_of(drafting)
    Citation.objects.get(pk=edge.pk).delete()  # another editor deletes the edge

    drafting.goto(url)
    note = drafting.locator(".draft-revision-note[role=alert]").first
    assert "deleted on the published version since" in note.inner_text()
    assert str(edge.cited_paper.title) in note.inner_text()
    drafting.click("input[name=_publish_draft_revision]")
    assert "Nothing was published" in messages_of(drafting)
    drafting.locator("input[type=radio][value=live]").check()
    drafting.click("input[name=_publish_draft_revision]")

    assert "was changed successfully" in messages_of(drafting)
    paper.refresh_from_db()
    assert paper.title == "The draft's title"
    assert not Citation.objects.filter(citing_paper=paper).exists()
    assert not DraftRevision.objects.for_object(paper).exists()
