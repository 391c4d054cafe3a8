"""The demo hub's neighbourhood graph in a real browser: drawn at desktop and phone width
without the page scrolling sideways, its nodes reached and followed by keyboard, and no
serious axe-core violation in either theme."""

import pytest

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-neighbourhood-graph")]


def demo_hub():
    from citations.models import Paper

    return Paper.objects.published().filter(citations_received__isnull=False).first()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_the_graph_is_drawn_and_followed_by_keyboard(site, open_page, viewport):
    hub = demo_hub()
    page = open_page(viewport)
    page.goto(f"{site}/papers/{hub.slug}/graph/")
    svg = page.locator("svg.graph")
    assert svg.is_visible()
    box = svg.bounding_box()
    assert box["width"] > 0.8 * min(viewport["width"], 1100) - 64
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
    nodes = page.locator("svg.graph a.graph-node")
    assert nodes.count() > 1
    # From the link just before the figure, Tab reaches the hub's node, then the next node.
    page.locator(".graph-dek a").focus()
    in_graph = "!!document.activeElement.closest('svg.graph')"
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate(in_graph):
            break
    assert page.evaluate(in_graph), "Tab never reached a node of the graph"
    page.keyboard.press("Tab")
    target = page.evaluate("document.activeElement.getAttribute('href')")
    assert target == nodes.nth(1).get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{site}{target}")
    assert page.console_errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_graph_passes_axe(site, chromium, scheme):
    hub = demo_hub()
    context = chromium.new_context(viewport=DESKTOP, color_scheme=scheme, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(f"{site}/papers/{hub.slug}/graph/")
        assert violations(page) == []
    finally:
        context.close()
