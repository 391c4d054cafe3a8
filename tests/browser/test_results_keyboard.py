"""The results pages work from the keyboard: every link, field and button in the page's main
content is reached by Tab, at 1280 px and on a phone, in both themes (the axe
sweep of tests/browser/test_accessibility.py checks them too)."""

import pytest

from tests.browser.test_accessibility import results_pages

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser-results_keyboard"),
    pytest.mark.slow,
]

# Marks every visible control in <main> and returns how many there are.
MARK_CONTROLS = """() => {
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
    + '[tabindex]:not([tabindex="-1"])';
  const controls = [...document.querySelectorAll('main ' + selector.split(', ').join(', main '))]
    .filter(el => !el.disabled && el.getClientRects().length > 0
      && getComputedStyle(el).visibility !== 'hidden');
  controls.forEach((el, i) => el.dataset.kb = String(i));
  return controls.length;
}"""
FOCUSED = "() => document.activeElement && document.activeElement.dataset.kb || null"
POSITIVE_TABINDEX = """() => [...document.querySelectorAll('[tabindex]')]
  .filter(el => el.tabIndex > 0).length"""


@pytest.mark.parametrize(
    "viewport,scheme",
    [
        pytest.param((1280, 900), "light", id="1280-light"),
        pytest.param((390, 844), "dark", id="390-dark"),
    ],
)
def test_every_control_of_the_results_pages_is_reached_by_tab(site, chromium, viewport, scheme):
    width, height = viewport
    context = chromium.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    try:
        page = context.new_page()
        unreached = {}
        for name, path in results_pages().items():
            page.goto(site + path)
            count = page.evaluate(MARK_CONTROLS)
            assert count, f"{name}: no control in <main>"
            assert page.evaluate(POSITIVE_TABINDEX) == 0, name  # no tab order of its own
            # The header's links come first, then the controls of <main>; a page opened at an
            # anchor (a run's section) starts there and reaches the rest after wrapping round.
            reached = set()
            for _ in range(count + 80):
                page.keyboard.press("Tab")
                marked = page.evaluate(FOCUSED)
                if marked is not None:
                    reached.add(int(marked))
                if len(reached) == count:
                    break
            if len(reached) != count:
                unreached[name] = sorted(set(range(count)) - reached)[:5]
        assert unreached == {}, unreached
    finally:
        context.close()
