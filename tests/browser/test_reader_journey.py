"""A reader's journey in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright):
home, research index, a note, the hub of the canonical reference, the explorer filter, an FAQ
item. Screenshots go to test-artifacts/ (or $SCREENSHOT_DIR)."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("SCREENSHOT_DIR") or ROOT / "test-artifacts")
HUB_TITLE = "The Art of Scaling Reinforcement Learning Compute for LLMs"

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-reader-journey")]


@pytest.fixture
def page(site, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on(
        "console",
        lambda message: message.type == "error" and page.console_errors.append(message.text),
    )
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    try:
        yield page
    finally:
        context.close()


def shoot(page, name):
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_reader_journey(site, page):
    from playwright.sync_api import expect

    # The field guide, with a keyboard-reachable skip link and a working FAQ without any JS.
    page.goto(site + "/")
    expect(page.locator("h1")).to_have_text("RL Scaling")
    expect(page.get_by_text("Recent evidence · Updated Sep 1, 2026")).to_be_visible()
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    faq = page.locator("details", has=page.locator("summary", has_text="What is RL scaling?"))
    answer = faq.get_by_text("RL scaling is the study and engineering practice")
    expect(answer).to_be_hidden()
    faq.locator("summary").click()
    expect(faq).to_have_attribute("open", "")
    expect(answer).to_be_visible()
    shoot(page, "home")

    # The research index.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Research index").click()
    expect(page.locator("h1")).to_have_text("What is actually moving the frontier?")
    expect(page.locator(".results-count")).to_have_text("18 items")
    shoot(page, "research-index")

    # A research note, reached from its paper on the index.
    page.get_by_role("link", name="Read the research note →").first.click()
    expect(page.locator("h1")).to_have_text(
        "When Do Larger Batches Help Scale LLM Reinforcement Learning?"
    )
    expect(page.get_by_text("Why it matters")).to_be_visible()
    shoot(page, "note")

    # The hub of the canonical reference.
    page.goto(site + "/research/")
    page.get_by_role("link", name=HUB_TITLE).click()
    expect(page.locator("h1")).to_have_text(HUB_TITLE)
    expect(
        page.get_by_text("6 of 30 citing papers are classified by role; all 6 as background.")
    ).to_be_visible()
    expect(page.locator(".stat").first).to_contain_text("30")
    expect(page.locator(".stat").first).to_contain_text("papers citing it")
    explorer = page.locator("#explorer")
    expect(explorer.locator(".citing-list > li")).to_have_count(20)
    shoot(page, "hub")

    # The explorer filter: background citations only.
    explorer.get_by_label("Citation role").select_option("background")
    explorer.get_by_role("button", name="Show citing papers").click()
    page.wait_for_url(re.compile(r"role=background"))
    expect(explorer.locator(".citing-list > li")).to_have_count(6)
    expect(explorer.locator(".results-count")).to_contain_text("6 of 30 citing papers")
    first_citing = explorer.locator(".citing-list > li h3 a").first
    expect(first_citing).to_have_text(re.compile("^Zone of Proximal Policy Optimization"))
    explorer.screenshot(path=str(SHOTS / "hub-explorer-background.png"))
    first_citing.click()
    expect(page.locator("h1")).to_have_text(re.compile("^Zone of Proximal Policy Optimization"))

    # Nothing the strict CSP blocked (inline styles or scripts), no script errors.
    assert page.console_errors == []


def test_home_fits_a_phone_screen(site, page):
    page.set_viewport_size({"width": 390, "height": 844})
    hub = "/papers/the-art-of-scaling-reinforcement-learning-compute-for-llms/"
    for path in ["/", "/research/", hub, "/bottlenecks/"]:
        page.goto(site + path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} scrolls sideways by {overflow}px on a phone"
    page.goto(site + "/")
    shoot(page, "home-phone")
    assert page.console_errors == []
