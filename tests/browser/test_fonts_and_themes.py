"""Self-hosted fonts and the dark theme (issue 16), in Chromium: the WOFF2 files load from
/static/fonts/ (no other origin), the system's dark setting is followed, the switch overrides it
and is remembered, and charts keep their contrast in both themes."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-fonts-and-themes")]

HUB = "/papers/the-art-of-scaling-reinforcement-learning-compute-for-llms/"


@pytest.fixture
def new_page(chromium):
    contexts = []

    def new_page(**options):
        context = chromium.new_context(viewport={"width": 1280, "height": 900}, **options)
        contexts.append(context)
        page = context.new_page()
        page.requests = []
        page.on("request", lambda request: page.requests.append(request.url))
        return page

    yield new_page
    for context in contexts:
        context.close()


def rgb(color):
    return [int(part) for part in re.findall(r"\d+", color)[:3]]


def luminance(color):
    def channel(value):
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(value) for value in rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one, other):
    lighter, darker = sorted([luminance(one), luminance(other)], reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def style(page, selector, prop):
    return page.eval_on_selector(selector, f"e => getComputedStyle(e).{prop}")


def test_the_font_pair_is_self_hosted_and_loads(site, new_page):
    page = new_page()
    page.goto(site + "/")
    page.evaluate("document.fonts.ready.then(() => true)")
    loaded = page.evaluate(
        "[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)"
    )
    assert {"Inter", "Source Serif 4"} <= {family.strip("\"'") for family in loaded}
    assert style(page, "body", "fontFamily").startswith("Inter")
    assert style(page, "h1", "fontFamily").startswith('"Source Serif 4"')
    fonts = [url for url in page.requests if url.endswith(".woff2")]
    assert fonts and all(url.startswith(site + "/static/fonts/") for url in fonts)
    response = page.request.get(site + "/static/fonts/inter-latin-400-normal.woff2")
    assert response.status == 200
    assert response.body()[:4] == b"wOF2"


def test_dark_follows_the_system_and_the_switch_is_remembered(site, new_page):
    page = new_page(color_scheme="dark")
    page.goto(site + "/")
    background = style(page, "body", "backgroundColor")
    assert luminance(background) < 0.05, background
    assert contrast(style(page, "body", "color"), background) >= 7
    switch = page.get_by_role("button", name="Dark mode")
    assert switch.is_visible()
    assert switch.get_attribute("aria-pressed") == "true"
    switch.click()
    assert luminance(style(page, "body", "backgroundColor")) > 0.8
    assert switch.get_attribute("aria-pressed") == "false"
    page.goto(site + "/research/")  # remembered on the next page, set before the first paint
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert luminance(style(page, "body", "backgroundColor")) > 0.8


def test_light_by_default_and_dark_on_request(site, new_page):
    page = new_page(color_scheme="light")
    page.goto(site + "/")
    assert luminance(style(page, "body", "backgroundColor")) > 0.8
    page.get_by_role("button", name="Dark mode").click()
    page.reload()
    assert luminance(style(page, "body", "backgroundColor")) < 0.05


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_charts_are_readable_in_both_themes(site, new_page, scheme):
    """The role x polarity matrix: its darkest cell stands out from the page, every shade's
    count can be read on it, and the labels on the page."""
    page = new_page(color_scheme=scheme)
    page.goto(site + HUB)
    background = style(page, "body", "backgroundColor")

    def fill(selector):
        return page.eval_on_selector(selector, "e => getComputedStyle(e).fill")

    assert contrast(fill(".matrix__cell--4"), background) >= 3, scheme
    assert contrast(fill(".matrix__cell--4"), fill(".matrix__cell--0")) >= 3, scheme
    for shade in (0, 1, 4):  # the demo hub's shades
        text, cell = fill(f".matrix__count--{shade}"), fill(f".matrix__cell--{shade}")
        assert contrast(text, cell) >= 4.5, (scheme, shade, text, cell)
    assert contrast(fill(".matrix__head"), background) >= 4.5


def test_without_javascript_there_is_no_dead_switch(site, new_page):
    page = new_page(java_script_enabled=False, color_scheme="dark")
    page.goto(site + "/")
    assert page.get_by_role("button", name="Dark mode").count() == 0
    assert luminance(style(page, "body", "backgroundColor")) < 0.05
