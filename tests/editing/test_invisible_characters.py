"""Invisible characters pasted from PDFs and web pages never reach stored titles and abstracts:
the one cleaning rule (publishing.editors.clean_editorial_text) drops soft hyphens, zero-width
spaces and byte-order marks, makes line separators line breaks (spaces in one-line fields),
and a vertical tab between words one space."""

import pytest

from citations.models import Paper
from notes.models import ResearchNote
from tests.factories import PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Scal\u00ading laws", "Scaling laws"),
        ("Zero\u200bwidth", "Zerowidth"),
        ("\ufeffWith a BOM", "With a BOM"),
        ("Line\u2028separator", "Line separator"),
        ("Vertical \x0b tab", "Vertical tab"),
        ("Vertical\x0btab", "Vertical tab"),
    ],
)
def test_a_title_is_stored_without_invisible_characters(typed, stored):
    paper = PaperFactory(title=typed)
    assert Paper.objects.get(pk=paper.pk).title == stored


def test_an_abstract_keeps_its_lines_and_loses_the_invisible_characters():
    paper = PaperFactory(abstract="First\u2028second\u2029third \u00adword\u200b.")
    assert Paper.objects.get(pk=paper.pk).abstract == "First\nsecond\n\nthird word."
    note = ResearchNoteFactory(title="A\u200b note\ufeff", dek="Soft\u00ad hyphen")
    note = ResearchNote.objects.get(pk=note.pk)
    assert (note.title, note.dek) == ("A note", "Soft hyphen")
