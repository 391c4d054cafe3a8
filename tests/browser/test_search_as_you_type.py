"""Search in Chromium (issue 16): the header box suggests titles as a reader types, by the ARIA
combobox pattern and the keyboard alone, under the strict CSP; without JavaScript it is a plain
form to /search/; a pasted arXiv URL lands on the paper."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-search-as-you-type")]


def new_page(chromium, **options):
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, **options)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    return page


def test_suggestions_after_two_characters_by_keyboard(site, chromium):
    from playwright.sync_api import expect

    page = new_page(chromium)
    page.goto(site + "/")
    box = page.get_by_role("combobox", name="Search the site")
    expect(box).to_have_attribute("aria-expanded", "false")
    box.press_sequentially("K", delay=30)
    page.wait_for_timeout(400)
    expect(page.get_by_role("listbox")).to_be_hidden()
    box.press_sequentially("nowG", delay=30)
    listbox = page.get_by_role("listbox", name="Suggestions")
    expect(listbox).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    option = listbox.get_by_role("option").filter(has_text="KnowGPO").first
    expect(option).to_be_visible()
    # Down to the KnowGPO option, then Enter opens its paper.
    options = listbox.get_by_role("option")
    target = next(i for i in range(options.count()) if "KnowGPO" in options.nth(i).inner_text())
    for _ in range(target + 1):
        box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", options.nth(target).get_attribute("id"))
    expect(options.nth(target)).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/papers/[^/]+/$"))
    expect(page.locator("h1")).to_contain_text("KnowGPO")
    assert page.console_errors == []


def test_escape_closes_and_enter_without_a_choice_searches(site, chromium):
    from playwright.sync_api import expect

    page = new_page(chromium)
    page.goto(site + "/notes/")
    box = page.get_by_role("combobox", name="Search the site")
    box.press_sequentially("scaling", delay=20)
    expect(page.get_by_role("listbox")).to_be_visible()
    box.press("Escape")
    expect(page.get_by_role("listbox")).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search/\?q=scaling"))
    expect(page.locator("h1")).to_have_text("Results for “scaling”")
    assert page.console_errors == []


def test_without_javascript_the_box_is_a_plain_form(site, chromium):
    from playwright.sync_api import expect

    page = new_page(chromium, java_script_enabled=False)
    page.goto(site + "/")
    box = page.get_by_role("searchbox", name="Search the site")
    box.fill("Weblica")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search/\?q=Weblica"))
    expect(page.locator(".search-hit h3 a").first).to_contain_text("Weblica")
    expect(page.locator(".search-hit mark").first).to_have_text(re.compile("Weblica", re.I))


def test_a_pasted_arxiv_url_lands_on_the_paper(site, chromium):
    from playwright.sync_api import expect

    page = new_page(chromium)
    page.goto(site + "/")
    box = page.get_by_role("combobox", name="Search the site")
    box.fill("https://arxiv.org/abs/2510.13786v2")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/papers/the-art-of-scaling"))
    expect(page.locator("h1")).to_have_text(
        "The Art of Scaling Reinforcement Learning Compute for LLMs"
    )
