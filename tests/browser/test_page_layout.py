"""The page flaws of issue 16, measured in Chromium at 1280 px and 390 px: positions and sizes
of elements, not only their presence."""

import re

import pytest
from django.template.loader import render_to_string

from tests.browser.conftest import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-page-layout")]

HUB = "/papers/the-art-of-scaling-reinforcement-learning-compute-for-llms/"


def box(locator):
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not rendered"
    return found


def rows_of(locator):
    """How many items sit on each row of a grid, from their top edges."""
    tops = [round(box(locator.nth(i))["y"]) for i in range(locator.count())]
    return [tops.count(top) for top in sorted(set(tops))]


@pytest.mark.parametrize(
    "viewport",
    [
        pytest.param(DESKTOP, id="1280"),
        # slow (`make test-all`, CI's slow step): the boxes are counted in the DOM, which no
        # script changes by width (the header's box and the 404 page's are in the templates),
        # so 1280 px counts the same six pages (tests/pages counts two of them in-process).
        pytest.param(PHONE, id="390", marks=pytest.mark.slow),
    ],
)
def test_one_search_box_per_page(site, open_page, viewport):
    page = open_page(viewport)
    for path in ["/", "/research/", "/search/?q=scaling", "/papers/", HUB, "/no-such-page/"]:
        page.goto(site + path)
        boxes = page.locator("input[type=search]")
        assert boxes.count() == 1, path


def test_research_index_filters_stay_in_view_beside_the_results(site, open_page):
    page = open_page(DESKTOP)
    page.goto(site + "/research/")
    filters = page.locator("form.filters")
    results = page.locator(".paper-list")
    assert box(filters)["x"] + box(filters)["width"] <= box(results)["x"]
    page.mouse.wheel(0, 2500)
    page.wait_for_timeout(200)
    assert page.evaluate("window.scrollY") > 2000
    top = box(filters)["y"]  # relative to the viewport
    assert 0 <= top <= 100, f"the filter column scrolled away (top {top}px)"


def test_research_index_on_a_phone_puts_results_first_and_folds_the_filters(site, open_page):
    page = open_page(PHONE)
    page.goto(site + "/research/")
    first_result = box(page.locator(".paper-list > li").first)
    panel = page.locator("details.filters-panel")
    assert panel.get_attribute("open") is None
    assert first_result["y"] < box(panel)["y"]
    assert first_result["y"] < 700, f"the first result starts {first_result['y']}px down"
    assert page.locator("form.filters select").first.is_hidden()
    panel.locator("summary").click()
    assert page.locator("form.filters select").first.is_visible()


def assert_side_margins(page, width):
    for selector in ["h1", ".lede, main p"]:
        element = box(page.locator(selector).first)
        assert element["x"] >= 16, (selector, element)
        assert element["x"] + element["width"] <= width - 16, (selector, element)


def test_error_pages_have_side_margins_on_a_phone(site, open_page):
    page = open_page(PHONE)
    response = page.goto(site + "/no-such-page/")
    assert response.status == 404
    assert_side_margins(page, PHONE["width"])
    for template in ["500.html", "503.html"]:
        page.goto(site + "/no-such-page/")
        page.set_content(render_to_string(template))
        page.wait_for_load_state()
        assert_side_margins(page, PHONE["width"])


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_home_grids_of_four_leave_no_orphans(site, open_page, viewport):
    page = open_page(viewport)
    page.goto(site + "/")
    for selector in [".post-list > li", ".qa-grid > div"]:
        items = page.locator(selector)
        assert items.count() == 4, selector
        rows = rows_of(items)
        assert len(set(rows)) == 1, f"{selector}: rows of {rows} at {viewport['width']}px"


def test_home_section_labels_are_complete(site, open_page):
    page = open_page(DESKTOP)
    page.goto(site + "/")
    eyebrows = page.locator("main .section__head .eyebrow")
    labels = [eyebrows.nth(i).inner_text().strip() for i in range(eyebrows.count())]
    latest = page.locator("#latest-heading").locator("xpath=preceding-sibling::p[1]")
    assert re.fullmatch(r"06\s*Latest research", latest.inner_text().strip(), re.IGNORECASE)
    assert all(not label.rstrip().endswith("/") and " / " not in label for label in labels)
    for label in labels:  # a number is never alone
        assert not re.fullmatch(r"\d+", label), labels


def test_bottleneck_map_says_each_thing_once_and_its_cards_are_links(site, open_page):
    page = open_page(DESKTOP)
    page.goto(site + "/bottlenecks/")
    lede = page.locator(".page-head .lede").inner_text()
    first_paragraph = page.locator(".prose--lead p").first.inner_text()
    # The standfirst is never said twice; the seed's own opening sentence, which only
    # resembles it, stays (a display rule never drops the editors' text).
    assert words(first_paragraph) != words(lede), (lede, first_paragraph)
    # Not the home page's table again: no failure signals or first questions on the cards.
    page.goto(site + "/")
    home_signal = page.locator(".layer-table td").first.inner_text().strip()
    page.goto(site + "/bottlenecks/")
    cards = page.locator(".layer-card")
    assert home_signal not in cards.first.inner_text()
    # The whole card opens the layer: a click in its bottom-right corner, far from the heading.
    cards.first.scroll_into_view_if_needed()
    card = box(cards.first)
    link = cards.first.locator("a")
    assert link.evaluate("a => getComputedStyle(a).textDecorationLine") == "underline"
    href = link.get_attribute("href")
    page.mouse.move(card["x"] + card["width"] - 10, card["y"] + card["height"] - 10)
    assert (
        page.evaluate(
            "([x, y]) => getComputedStyle(document.elementFromPoint(x, y)).cursor",
            [card["x"] + card["width"] - 10, card["y"] + card["height"] - 10],
        )
        == "pointer"
    )
    page.mouse.click(card["x"] + card["width"] - 10, card["y"] + card["height"] - 10)
    page.wait_for_url(re.compile(re.escape(href) + "$"))


def test_other_layers_have_room_above(site, open_page):
    page = open_page(DESKTOP)
    page.goto(site + "/bottlenecks/rollouts/")
    nav = page.locator("nav.other-layers")
    above = nav.locator("xpath=preceding-sibling::*[1]")
    gap = box(nav)["y"] - (box(above)["y"] + box(above)["height"])
    assert gap >= 32, f"'Other layers' sits {gap}px under the list above"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_page_count_lines_up_with_the_page_buttons(site, open_page, viewport):
    page = open_page(viewport)
    page.goto(site + "/papers/")
    label = box(page.locator(".pagination > p"))
    buttons = box(page.locator(".pagination ul"))
    if viewport is PHONE and label["y"] + label["height"] <= buttons["y"]:
        return  # wrapped onto its own line on a narrow screen
    middle = label["y"] + label["height"] / 2
    assert abs(middle - (buttons["y"] + buttons["height"] / 2)) <= 3


def test_explorer_offers_reset_only_with_a_filter_set(site, open_page):
    page = open_page(DESKTOP)
    page.goto(site + HUB + "?page=2")
    explorer = page.locator("#explorer")
    assert explorer.get_by_role("link", name="Reset").count() == 0
    page.goto(site + HUB + "?role=background")
    assert explorer.get_by_role("link", name="Reset").count() == 1


def test_year_filter_offers_only_years_with_papers(site, open_page):
    from citations.models import Paper

    page = open_page(DESKTOP)
    page.goto(site + "/research/")
    options = page.locator("#id_year option")
    offered = [options.nth(i).get_attribute("value") for i in range(options.count())][1:]
    known = Paper.objects.in_research_index().exclude(date_precision="unknown")
    dates = known.dates("publication_date", "year", order="DESC")
    assert offered == [str(date.year) for date in dates]


def test_undated_papers_say_so(site, open_page):
    from citations.models import Paper

    undated = Paper.objects.published().filter(publication_date=None).order_by("title").first()
    page = open_page(DESKTOP)
    page.goto(site + "/papers/?sort=title")
    while not page.get_by_role("link", name=undated.title, exact=True).count():
        page.get_by_role("link", name="Next →").click()
    item = page.locator(".paper-list > li", has=page.get_by_role("link", name=undated.title))
    assert "Date unknown" in item.locator(".paper-list__meta").inner_text()


def words(text):
    return re.findall(r"\w+", text.lower())
