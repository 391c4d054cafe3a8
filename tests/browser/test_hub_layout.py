"""The canonical hub above the fold (issue 12 point 4), measured in Chromium: the honest summary,
the role x polarity matrix and the start of the explorer within the first 1,500 px at 1280 px and
2,500 px on a 390 px phone; the matrix's cells and the explorer's filters work from the UI."""

import re

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.helpers import ART_OF_SCALING

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-hub-layout")]

HUB = f"/papers/{ART_OF_SCALING}/"
TOP = "e => e.getBoundingClientRect().top + window.scrollY"


@pytest.mark.parametrize(
    ("viewport", "fold"), [(DESKTOP, 1500), (PHONE, 2500)], ids=["1280", "390"]
)
def test_summary_matrix_and_explorer_are_above_the_fold(site, open_page, viewport, fold):
    page = open_page(viewport)
    page.goto(site + HUB)
    tops = {
        name: page.eval_on_selector(selector, TOP)
        for name, selector in [
            ("summary", ".hub-headline"),
            ("matrix", ".matrix__chart"),
            ("explorer", "#explorer-heading"),
            ("explorer form", ".explorer-form"),
        ]
    }
    print(viewport["width"], tops)  # the measurements, for the report (pytest -s)
    assert tops["summary"] < tops["matrix"] < tops["explorer"] < tops["explorer form"]
    assert all(top < fold for top in tops.values()), tops
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    # The representatives are a short list, not a copy of the explorer.
    assert page.locator(".representatives > li").count() == 6
    assert page.console_errors == []


def test_a_matrix_cell_opens_the_explorer_filtered(site, open_page):
    from playwright.sync_api import expect

    page = open_page(DESKTOP)
    page.goto(site + HUB)
    page.locator(".matrix__links a[href*='role=background'][href*='polarity=neutral']").click()
    page.wait_for_url(re.compile(r"role=background&polarity=neutral#explorer$"))
    explorer = page.locator("#explorer")
    expect(explorer.locator(".citing-list > li")).to_have_count(6)
    expect(explorer.get_by_label("Citation polarity")).to_have_value("neutral")
    page.goto(site + HUB)
    page.locator(".matrix__links a[href*='unclassified=on'][href*='polarity=none']").click()
    expect(explorer.locator(".results-count")).to_contain_text("24 of 30 citing papers")
    # Keyboard users reach the same counts through the table, shown while they are in it.
    table = page.locator(".matrix__table")
    assert table.bounding_box()["width"] <= 1
    table.get_by_role("link").first.focus()
    assert table.bounding_box()["width"] > 100


def test_explorer_filters_work_from_the_form(site, open_page):
    """Text, year range and "unclassified only" (the role filter is the reader journey's)."""
    from playwright.sync_api import expect

    from citations.models import Paper

    hub = Paper.objects.get(slug=ART_OF_SCALING)
    page = open_page(DESKTOP)
    page.goto(site + HUB)
    explorer = page.locator("#explorer")
    explorer.get_by_label("Text in the citing papers").fill("distillation")
    explorer.get_by_role("button", name="Show citing papers").click()
    page.wait_for_url(re.compile(r"q=distillation"))
    expected = hub.citing_citations().filter(citing_paper__in=Paper.objects.search("distillation"))
    expect(explorer.locator(".citing-list > li")).to_have_count(expected.count())
    assert expected.count() > 0

    page.goto(site + HUB)
    explorer.locator(".explorer-form__more > summary").click()
    explorer.get_by_label("Unclassified only").check()
    explorer.get_by_role("button", name="Show citing papers").click()
    page.wait_for_url(re.compile(r"unclassified=on"))
    expect(explorer.locator(".results-count")).to_contain_text("24 of 30 citing papers")

    dated = hub.citing_citations().filter(citing_paper__publication_date__isnull=False)
    dated = dated.exclude(citing_paper__date_precision="unknown")
    years = sorted({edge.citing_paper.publication_date.year for edge in dated})
    page.goto(site + HUB)
    explorer.locator(".explorer-form__more > summary").click()
    explorer.get_by_label("From year").fill(str(years[0] if years else 2025))
    explorer.get_by_label("To year").fill(str(years[-1] if years else 2026))
    explorer.get_by_role("button", name="Show citing papers").click()
    page.wait_for_url(re.compile(r"year_from="))
    expect(explorer.locator(".results-count")).to_contain_text(f"{dated.count()} of 30")
    assert page.console_errors == []
