"""Editors' Markdown rendered once per distinct text and process (rlscaling/markdown.py, issue
15): a page re-ran Python-Markdown and the sanitiser over every body it shows on every
request (a third of the Bottleneck Map's time). The HTML is a pure function of the text, so
nothing can be stale: an edited text is another text."""

import pytest

from rlscaling import markdown
from tests.factories import ResearchNoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversions(monkeypatch):
    converted = []
    original = markdown.markdown_lib.markdown

    def counting(text, **kwargs):
        converted.append(text)
        return original(text, **kwargs)

    monkeypatch.setattr(markdown.markdown_lib, "markdown", counting)
    markdown.render_markdown.cache_clear()
    return converted


def test_the_same_text_is_converted_once_and_an_edit_is_converted_afresh(conversions):
    first = markdown.render_markdown("Scaling **holds** <script>alert(1)</script>")
    again = markdown.render_markdown("Scaling **holds** <script>alert(1)</script>")
    edited = markdown.render_markdown("Scaling **breaks**")
    assert first == again == "<p>Scaling <strong>holds</strong> </p>"
    assert edited == "<p>Scaling <strong>breaks</strong></p>"
    assert len(conversions) == 2


def test_a_page_seen_before_converts_no_markdown_again(client, settings, conversions):
    settings.PAGE_CACHE_SECONDS = 0
    note = ResearchNoteFactory(body="## Where it breaks\n\nScaling **stops** at the verifier.")
    html = client.get(note.get_absolute_url()).content.decode()
    assert "<strong>stops</strong>" in html and len(conversions) >= 1
    before = len(conversions)
    assert client.get(note.get_absolute_url()).content.decode() == html
    assert len(conversions) == before
