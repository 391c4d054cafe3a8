"""A hub's "Cites / Cited by" rows in the admin, in headless Chromium: two editors classifying
edges of one hub at once lose nothing, and every column a row needs is on screen at 1366 and
390 px, without scrolling the page sideways."""

import pytest

from citations.models import Citation
from tests.browser.conftest import PHONE
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
    UserFactory,
)
from tests.helpers import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-edge-inline")]

LAPTOP = {"width": 1366, "height": 768}
# What an editor needs of a row: its other paper, role, polarity, context, status and delete.
NEEDED = ["field-citing_paper", "field-role", "field-polarity", "field-context", "field-status"]


@pytest.fixture
def hub(transactional_db):
    hub = PaperFactory(title="The hub")
    for title in ("First citing paper", "Second citing paper"):
        citing = PaperFactory(title=title)
        CitationFactory(
            citing_paper=citing, cited_paper=hub, role=None, polarity=None, status="draft"
        )
    CitationRoleFactory(name="Extends")
    CitationRoleFactory(name="Uses")
    CitationPolarityFactory(name="Supports")
    return hub


def signed_in(open_page, live_server, username, viewport=LAPTOP):
    editor = UserFactory(editor=True, username=username)
    page = open_page(viewport)
    sign_in(page.context, live_server.url, editor)
    return page


def row_of(page, title):
    """The number of the received edge whose citing paper is `title`."""
    for number in range(page.locator("#citations_received-group tr.has_original").count()):
        label = page.locator(f"#citations_received-{number} .field-citing_paper").inner_text()
        if title in label:
            return number
    raise AssertionError(f"no row for {title}")


def classify(page, title, role):
    number = row_of(page, title)
    page.select_option(f"#id_citations_received-{number}-role", label=role)
    page.select_option(f"#id_citations_received-{number}-polarity", label="Supports")


def save(page):
    page.locator("input[name=_continue]").last.click()
    page.wait_for_load_state()
    return page.locator(".messagelist").inner_text()


# slow (`make test-all`, CI's slow step): two editors classifying one hub's edges in Chromium;
# tests/admin covers the rule.
@pytest.mark.slow
def test_two_editors_classify_edges_of_one_hub(live_server, open_page, hub):
    url = f"{live_server.url}/admin/citations/paper/{hub.pk}/change/"
    first = signed_in(open_page, live_server, "first-editor")
    second = signed_in(open_page, live_server, "second-editor")
    first.goto(url)
    second.goto(url)

    classify(first, "First citing paper", "Extends")
    assert "was changed successfully" in save(first)

    classify(second, "Second citing paper", "Uses")
    classify(second, "First citing paper", "Uses")  # the one row both changed
    messages = save(second)

    assert "was changed successfully" in messages
    assert "Not saved: the edge First citing paper → The hub" in messages
    assert "yours “Uses”, saved meanwhile “Extends”" in messages
    roles = {edge.citing_paper.title: edge.role.name for edge in Citation.objects.all()}
    assert roles == {"First citing paper": "Extends", "Second citing paper": "Uses"}
    # The page she is back on shows the stored rows, the other editor's classification too.
    number = row_of(second, "First citing paper")
    chosen = second.locator(f"#id_citations_received-{number}-role option:checked")
    assert chosen.inner_text() == "Extends"


def overflowing(page):
    """The innermost elements that reach past the right edge of the window (for the message)."""
    return page.evaluate(
        """() => {
          const past = e => e.getBoundingClientRect().right > window.innerWidth + 0.5;
          return [...document.querySelectorAll("body *")]
            .filter(e => past(e) && ![...e.children].some(past))
            .slice(0, 8)
            .map(e => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`);
        }"""
    )


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1366px", "390px"])
def test_every_column_of_an_edge_row_is_on_screen(live_server, open_page, hub, viewport):
    page = signed_in(open_page, live_server, "layout-editor", viewport)
    page.goto(f"{live_server.url}/admin/citations/paper/{hub.pk}/change/")
    row = page.locator("#citations_received-0")
    row.scroll_into_view_if_needed()

    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width, overflowing(page)
    group = page.locator("#citations_received-group").bounding_box()
    assert group["x"] >= 0 and group["x"] + group["width"] <= width
    for cell in [*NEEDED, "delete"]:
        box = row.locator(f"td.{cell}").bounding_box()
        assert box is not None and box["width"] > 0, cell
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (cell, box, width)
        control = row.locator(
            f"td.{cell} :is(select:not(.select2-hidden-accessible), .select2-container, "
            "textarea, input:not([type=hidden]))"
        )
        if control.count():
            inner = control.first.bounding_box()
            assert inner["x"] >= 0 and inner["x"] + inner["width"] <= width + 0.5, (cell, inner)
