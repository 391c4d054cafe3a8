"""The editor's journey of issue 13, first steps, in headless Chromium: add a paper with two
authors typed inline (reordered with the up/down buttons), add it as a citing edge on the hub's
page, and see the hub's public count go up by one."""

import re

import pytest

from citations.models import Paper
from tests.factories import UserFactory
from tests.helpers import ART_OF_SCALING, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-editor-journey")]


def saved(page):
    """Wait for the admin's success message; on a refusal, fail with the errors shown."""
    page.wait_for_selector(".messagelist .success, .errornote, .errorlist")
    errors = page.locator(".errornote, .errorlist").all_inner_texts()
    assert not errors, errors


def public_count(page, site):
    page.goto(f"{site}/papers/{ART_OF_SCALING}/")
    text = page.locator(".stat", has_text="citing it").first.inner_text()
    return int(re.search(r"\d+", text.replace(",", "")).group())


def test_add_a_paper_with_authors_and_cite_the_hub_inline(demo, live_server, chromium):
    editor = UserFactory(editor=True, username="journey-editor")
    site = live_server.url
    page = sign_in(chromium.new_context(), site, editor).new_page()
    before = public_count(page, site)

    page.goto(f"{site}/admin/citations/paper/add/")
    page.fill("#id_title", "A Paper Added In The Browser")
    page.fill("#id_summary", "What the paper found.")
    page.fill("#id_url", "https://example.org/paper")
    page.select_option("#id_status", "published")
    page.fill("#id_authorships-0-name", "Second Author")
    page.fill("#id_authorships-1-name", "First Author")
    page.click("#authorships-1 button[aria-label='Move up']")
    page.click("input[name=_save]")
    saved(page)
    paper = Paper.objects.get(title="A Paper Added In The Browser")
    assert paper.author_names == ["First Author", "Second Author"]
    assert paper.is_published

    hub = Paper.objects.get(slug=ART_OF_SCALING)
    page.goto(f"{site}/admin/citations/paper/{hub.pk}/change/")
    page.click("#citations_received-group .add-row a")
    row = page.locator("#citations_received-group tr.dynamic-citations_received").last
    row.locator(".select2-selection").click()
    page.locator(".select2-search__field").fill("Added In The Browser")
    page.locator(".select2-results__option", has_text="A Paper Added In The Browser").click()
    row.locator("select[name$='-role']").select_option(label="Method")
    row.locator("select[name$='-polarity']").select_option(label="Supporting")
    page.click("input[name=_save]")
    saved(page)

    assert public_count(page, site) == before + 1
