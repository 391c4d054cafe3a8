"""The editor dashboard (issue 13, point 11) in headless Chromium: the admin's first page says
what needs attention, and its links open the filtered lists. The screenshot is the README's
(docs/screenshots/editor-dashboard.png: `SCREENSHOT_DIR=docs/screenshots`)."""

import datetime
import os
from pathlib import Path

import pytest
from django.http import QueryDict
from django.utils import timezone

from notes.models import ResearchNote
from publishing.models import Status
from publishing.revisions import DraftRevision
from tests.factories import ResearchNoteFactory, UserFactory
from tests.helpers import sign_in

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("SCREENSHOT_DIR") or ROOT / "test-artifacts")

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-editor-dashboard")]


def needs_attention(editor):
    live = ResearchNote.objects.published().order_by("pk").first()
    DraftRevision.store(live, QueryDict("dek=A+corrected+standfirst"), author=editor)
    ResearchNoteFactory(title="GRPO ablations, draft", draft=True)
    ResearchNoteFactory(title="Reward models at scale", status=Status.REVIEW, published_at=None)
    ResearchNoteFactory(
        title="Next week's note", published_at=timezone.now() + datetime.timedelta(days=4)
    )
    today = timezone.localdate()
    ResearchNoteFactory(title="Compute plateaus, revisited", review_by=today)
    return live


def test_the_dashboard_shows_what_needs_attention_and_links_to_it(demo, live_server, chromium):
    from playwright.sync_api import expect

    editor = UserFactory(editor=True, username="dashboard-editor")
    live = needs_attention(editor)
    site = live_server.url
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    page = sign_in(context, site, editor).new_page()
    page.goto(f"{site}/admin/")

    dashboard = page.locator(".editor-dashboard")
    expect(dashboard.locator("h2")).to_have_text("Needs attention")
    review = dashboard.locator("a[href$='?status__exact=review']")
    expect(review).to_have_text("1 research note")
    for text in (
        "1 research note with a draft revision",
        f"“{live.title}” by dashboard-editor",
        "1 research note scheduled",
        "Next week's note",
        "research note due for review",
        "Compute plateaus, revisited",
    ):
        expect(dashboard).to_contain_text(text)
    page.screenshot(path=str(SHOTS / "editor-dashboard.png"), full_page=False)

    dashboard.get_by_role("link", name="due for review").click()
    page.wait_for_url("**/notes/researchnote/?review=due")
    expect(page.locator("#result_list")).to_contain_text("Compute plateaus, revisited")

    page.goto(f"{site}/admin/")
    dashboard.get_by_role("link", name="with a draft revision").click()
    page.wait_for_url("**/notes/researchnote/?draft_revision=yes")
    expect(page.locator("#result_list")).to_contain_text(live.title)
    assert page.locator("#result_list tbody tr").count() == 1
