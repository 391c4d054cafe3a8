"""A team walks the diagnosis in headless Chromium, on a phone and on a desktop, with JavaScript
off and on: from the field guide's "where scaling breaks" table through the four steps to a
saved plan (the Markdown download and the printed page). With JavaScript on, axe checks every
step. Screenshots go to test-artifacts/ (or $SCREENSHOT_DIR)."""

import json
import os
import re
from pathlib import Path

import pytest

from tests.browser.test_accessibility import violations

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("SCREENSHOT_DIR") or ROOT / "test-artifacts")
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-diagnosis")]


# `make test` walks the phone with JavaScript and the desktop without, which between them
# cover both widths and both modes; the other two walks run in CI's slow step.
WALKS = [
    pytest.param(
        (viewport, javascript),
        id=f"{viewport}-{'js' if javascript else 'no-js'}",
        marks=[] if (viewport == "phone") == javascript else [pytest.mark.slow],
    )
    for javascript in (False, True)
    for viewport in VIEWPORTS
]


@pytest.fixture(params=WALKS)
def page(request, site, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewport, javascript = request.param
    context = chromium.new_context(
        viewport=VIEWPORTS[viewport], accept_downloads=True, java_script_enabled=javascript
    )
    page = context.new_page()
    page.viewport_name = viewport if javascript else f"{viewport}-no-js"
    page.javascript = javascript
    page.console_errors = []
    page.on(
        "console",
        lambda message: message.type == "error" and page.console_errors.append(message.text),
    )
    try:
        yield page
    finally:
        context.close()


def fits_the_viewport(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def passes_axe(page):
    """No serious or critical axe violation on the step the walk is at (JavaScript on), checked
    in the walk's own page: axe is evaluated over DevTools, which the page's CSP does not
    govern, so the walk keeps its CSP and a refusal still shows in its console."""
    if not page.javascript:
        return True
    page.evaluate("document.fonts.ready.then(() => true)")
    problems = violations(page)
    assert problems == [], (page.url, problems)
    return True


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"diagnose-{name}-{page.viewport_name}.png"), full_page=True)


def test_a_team_diagnoses_a_plateau_and_saves_the_plan(page, site, tmp_path):
    """With JavaScript off every step is a form or a link; with it on the same walk works and
    passes axe at every step."""
    page.goto(f"{site}/")
    page.locator("#breaks").get_by_role(
        "link", name="Diagnose a plateau starting from Compute"
    ).click()

    # Step 1: the layer's own signals are ticked; add the flat reward curve and a setting.
    assert page.url == f"{site}/diagnose/?layer=compute"
    for own_signal in ["Workers idle, rollout throughput stalls", "More hardware raises"]:
        assert page.get_by_label(own_signal, exact=False).is_checked()
    page.get_by_label("The reward curve is flat", exact=False).check()
    page.get_by_label("Task family").select_option("math")
    why = page.locator(".signal-list__why").first
    why.locator("summary").click()  # a disclosure: opens without JavaScript too
    assert why.locator("p").is_visible()
    assert fits_the_viewport(page)
    assert passes_axe(page)
    shot(page, "1-signals")
    page.get_by_role("button", name="Rank the competing bottlenecks").click()

    # Step 2: the stable URL holds the selection (the browser's empty fields are dropped by a
    # redirect); layers are ranked with their reasons.
    query = (
        "signal=compute-saturated&signal=flat-reward-curve&signal=throughput-without-speedup"
        "&task_family=math"
    )
    assert page.url == f"{site}/diagnose/bottlenecks/?{query}"
    # textContent, not innerText: the badges' CSS upper-cases what is shown.
    ranked = page.locator(".ranked-layer h3").all_text_contents()
    assert [re.sub(r"\s+", " ", name).strip() for name in ranked] == [
        "Compute score 5",
        "Rollouts score 3",
        "Rewards score 1 tied at rank 3",
        "Evaluation score 1 tied at rank 3",
    ]
    assert page.get_by_text("Why it ranks here").count() == 4
    assert page.locator(".diagnose__signal-why").count() == 3  # each signal's why
    page.locator("#method summary").click()
    assert page.locator("#method").get_by_text("A worked example.").is_visible()
    assert fits_the_viewport(page)
    assert passes_axe(page)
    shot(page, "2-bottlenecks")
    page.locator(".diagnose__next").get_by_role("link").click()

    # Step 3: the tests that tell the top layers apart, then the evidence by status.
    assert page.url == f"{site}/diagnose/tests/?{query}"
    first_test = page.locator(".test h3").first.inner_text()
    assert first_test == "Measure useful experience per hour, not samples per hour"
    assert page.locator(".claim .badge--reported").count() >= 5
    assert fits_the_viewport(page)
    assert passes_axe(page)
    shot(page, "3-tests")
    page.locator(".diagnose__next").get_by_role("link").click()

    # Step 4: the plan; save it as Markdown, and it prints without navigation.
    assert page.url == f"{site}/diagnose/plan/?{query}"
    assert page.get_by_role("heading", name="Your plan").is_visible()
    assert fits_the_viewport(page)
    assert passes_axe(page)
    shot(page, "4-plan")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download as Markdown").click()
    download = download_info.value
    assert download.suggested_filename == "rl-scaling-diagnosis.md"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    markdown = saved.read_text()
    assert markdown.startswith("# RL scaling diagnosis")
    assert f"/diagnose/plan/?{query}" in markdown
    assert "1. **[Compute](" in markdown and "(score 5)" in markdown
    assert "- If: Useful experience per hour and time to target rise" in markdown

    # The same plan as JSON, for tools.
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download as JSON").click()
    saved_json = tmp_path / download_info.value.suggested_filename
    download_info.value.save_as(saved_json)
    plan = json.loads(saved_json.read_text())
    assert plan["test"]["slug"] == "useful-experience-per-hour"
    assert set(plan["relieve_only_one_of"]) <= set(plan["test"]["points_to"])
    (SHOTS / f"diagnose-plan-{page.viewport_name}.md").write_text(markdown)

    page.emulate_media(media="print")
    assert not page.locator(".plan__save").is_visible()
    assert not page.locator(".step-progress").is_visible()
    assert page.locator(".plan").is_visible()
    page.emulate_media(media="screen")

    # The shared address opens the same plan.
    page.goto(f"{site}/diagnose/plan/?{query}")
    assert page.locator(".plan__steps").inner_text().startswith("State the plateau")
    assert page.console_errors == []  # no CSP violations
