"""An editor works on a live note in a real browser (issue 13, points 2, 4 and 5): edits it as a
draft revision while readers keep the published version, previews it in a new tab, publishes
it, compares two revisions, reverts including tags, and recovers the note after deleting it
(headless Chromium, under the admin's CSP)."""

import pytest
from django.urls import reverse

from notes.models import ResearchNote
from tests.factories import ResearchNoteFactory, UserFactory
from tests.helpers import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-editor-history-journey")]


# slow (`make test-all`, CI's slow step): a long walk of an editor's day
# (draft, preview, publish, compare, revert, recover).
@pytest.mark.slow
def test_draft_revision_preview_publish_compare_revert_and_recover(
    transactional_db, live_server, chromium
):
    editor = UserFactory(editor=True, username="history-editor")
    note = ResearchNoteFactory(title="Live browser note", dek="The published standfirst.")
    note.tags.add("original-tag")
    change_url = live_server.url + reverse("admin:notes_researchnote_change", args=[note.pk])
    public_url = live_server.url + note.get_absolute_url()

    context = sign_in(
        chromium.new_context(viewport={"width": 1366, "height": 900}), live_server.url, editor
    )
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console",
        lambda message: (
            problems.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    reader = chromium.new_page()  # another browser context: an anonymous reader

    # 1. A draft revision of the live note: readers still see the published version.
    page.goto(change_url)
    page.fill("#id_dek", "A rewritten standfirst, still in progress.")
    page.click("input[name=_save_draft_revision]")
    assert "Saved as a draft revision" in page.locator(".messagelist").inner_text()
    assert "You are editing a draft revision" in page.locator(".draft-revision-note").inner_text()
    assert page.locator("#id_dek").input_value() == "A rewritten standfirst, still in progress."
    reader.goto(public_url)
    assert "The published standfirst." in reader.content()
    assert "still in progress" not in reader.content()

    # 2. Preview it in a new tab, exactly as readers will see it, with a way back.
    with context.expect_page() as opened:
        page.locator("a.draft-revision-preview").first.click()
    preview = opened.value
    preview.wait_for_load_state()
    assert "Draft revision preview." in preview.locator(".status-banner").inner_text()
    assert "A rewritten standfirst, still in progress." in preview.content()
    preview.click("text=Back to editing")
    preview.wait_for_url(change_url)
    preview.close()

    # 3. Publish it: now readers see it.
    page.click("input[name=_publish_draft_revision]")
    assert "was changed successfully" in page.locator(".messagelist").inner_text()
    reader.goto(public_url)
    assert "A rewritten standfirst, still in progress." in reader.content()

    # 4. Change the tags, then compare the first and the latest revision side by side.
    page.goto(change_url)
    page.fill("#id_tags", "replaced-tag")
    page.fill("#id_change_reason", "Retagged")
    page.locator("input[name=_save]").last.click()
    page.goto(change_url.replace("/change/", "/history/"))
    assert "Retagged" in page.locator("#change-history").inner_text()
    page.locator("input[name=old]").last.check()
    page.locator("input[name=new]").first.check()
    page.click("input[value='Compare selected versions']")
    table = page.locator("table.history-compare")
    assert "The published standfirst." in table.locator(".diff-old").nth(2).inner_text() or (
        "The published standfirst." in table.inner_text()
    )
    assert page.locator("ins.diff-ins").count() > 0
    assert page.locator("del.diff-del").count() > 0
    assert "original-tag" in table.inner_text() and "replaced-tag" in table.inner_text()

    # 5. Revert to the version before the retagging: the tags come back too.
    page.goto(change_url.replace("/change/", "/history/"))
    page.locator("#change-history tbody tr").nth(1).locator("a").first.click()
    assert page.locator("#id_tags").input_value() == "original-tag"
    page.click("input[type=submit][value='Revert']")
    note = ResearchNote.objects.get(pk=note.pk)
    assert list(note.tags.names()) == ["original-tag"]
    assert note.dek == "A rewritten standfirst, still in progress."

    # 6. Delete the note, then recover it from the list of deleted notes.
    page.goto(change_url.replace("/change/", "/delete/"))
    page.click("input[type=submit]")
    assert not ResearchNote.objects.filter(pk=note.pk).exists()
    page.goto(live_server.url + reverse("admin:notes_researchnote_changelist"))
    page.click("text=Recover deleted research notes")
    page.click("text=Live browser note")
    page.click("input[type=submit][value='Revert']")
    recovered = ResearchNote.objects.get(pk=note.pk)
    assert list(recovered.tags.names()) == ["original-tag"]
    reader.goto(public_url)
    assert "A rewritten standfirst, still in progress." in reader.content()
    assert not problems, problems
