"""Long unbroken words (a URL, a hash) wrap on a 390 px phone instead of overflowing the page
(issue 11, point 13)."""

import pytest

from tests.factories import PaperFactory, ResearchNoteFactory

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-long-words")]

LONG_WORD = "https://example.org/" + "a1b2c3d4e5" * 16  # 180 characters fit every field


@pytest.mark.django_db(transaction=True)
def test_long_words_wrap_on_a_phone(live_server, chromium):
    paper = PaperFactory(title=LONG_WORD, summary=LONG_WORD, byline=LONG_WORD)
    note = ResearchNoteFactory(title=LONG_WORD, dek=LONG_WORD, body=LONG_WORD)
    note.papers.add(paper)
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        for path in [paper.get_absolute_url(), note.get_absolute_url(), "/research/", "/"]:
            page.goto(live_server.url + path)
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{path} scrolls sideways by {overflow}px on a phone"
    finally:
        context.close()
