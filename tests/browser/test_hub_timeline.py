"""The hub's timeline in Chromium (issue 12): with citing papers over 48 quarters (2015 to 2026)
the demo hub still shows its summary, matrix and the start of the explorer above the fold, the
two charts fit the page without widening it, and axe-core finds nothing serious in the timeline
in either theme or on a phone."""

import datetime
from pathlib import Path

import pytest

from citations.models import DatePrecision, Paper, recount_citations
from pagecache.caching import bump_generation
from tests.helpers import ART_OF_SCALING

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-hub-timeline")]

HUB = f"/papers/{ART_OF_SCALING}/"
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
TOP = "e => e.getBoundingClientRect().top + window.scrollY"


@pytest.fixture
def site(demo, live_server):
    """The demo, its hub's 30 citing papers dated (to the day) from 2015 Q1 to 2026 Q4."""
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    citing = list(Paper.objects.filter(citations_made__cited_paper=hub).order_by("pk"))
    for index, paper in enumerate(citing):
        quarter = index * 47 // (len(citing) - 1)
        date = datetime.date(2015 + quarter // 4, 3 * (quarter % 4) + 1, 15)
        Paper.objects.filter(pk=paper.pk).update(
            publication_date=date, date_precision=DatePrecision.DAY
        )
    recount_citations([hub.pk])  # update() skips save(): the stored timeline is recounted here
    bump_generation()
    return live_server.url


@pytest.mark.parametrize(
    ("viewport", "scheme", "fold"),
    [((1280, 900), "light", 1500), ((1280, 900), "dark", 1500), ((390, 844), "light", 2500)],
    ids=["1280-light", "1280-dark", "390-light"],
)
def test_the_timeline_fits_and_keeps_the_explorer_above_the_fold(
    site, chromium, viewport, scheme, fold
):
    width, height = viewport
    context = chromium.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    try:
        page = context.new_page()
        errors = []
        page.on("console", lambda message: message.type == "error" and errors.append(message))
        page.goto(site + HUB)
        assert page.locator("#timeline svg.timeline__chart").count() == 2
        assert "2015 Q1 to 2026 Q4" in page.locator(".timeline__note").inner_text()
        tops = {
            name: page.eval_on_selector(selector, TOP)
            for name, selector in [
                ("matrix", ".matrix__chart"),
                ("timeline", "#timeline"),
                ("explorer", "#explorer-heading"),
            ]
        }
        print(width, scheme, tops)  # the measurements, for the report (pytest -s)
        assert tops["matrix"] < tops["timeline"] < tops["explorer"] < fold
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        page.locator("#timeline details > summary").click()
        assert page.locator(".timeline__table tbody tr").count() == 48
        page.add_script_tag(path=str(AXE))
        results = page.evaluate(
            "axe.run(document.querySelector('#timeline'), {runOnly: {type: 'tag', values: "
            "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}})"
        )
        serious = [
            (violation["id"], [node["target"] for node in violation["nodes"]][:3])
            for violation in results["violations"]
            if violation["impact"] in {"serious", "critical"}
        ]
        assert serious == []
        assert errors == []
    finally:
        context.close()
