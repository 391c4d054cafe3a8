"""The dump's CSV files open in spreadsheets: a cell that starts with = + - @, a tab or a
carriage return is a formula there (`=HYPERLINK(...)`, `+cmd|...`, `@SUM(...)`). Following
OWASP's CSV-injection guidance, every such cell of every CSV the dump writes starts with a
single quote; the JSONL files keep the text as it is."""

import csv
import io
import json

import pytest

from citations.models import Author, Authorship
from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory
from web.dump import dump_files

pytestmark = pytest.mark.django_db

FORMULAS = [
    '=HYPERLINK("http://evil.example","click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]
DANGEROUS_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def hostile_content():
    first, second, third, fourth, fifth, sixth = FORMULAS
    paper = PaperFactory(title=first, byline=second, institution=third, summary=fourth)
    other = PaperFactory(title=fifth, abstract=sixth)
    paper.tags.add("@tag-formula")
    Authorship.objects.create(paper=paper, author=Author.objects.create(name=first), position=0)
    CitationFactory(citing_paper=other, cited_paper=paper, context=second)
    ResearchNoteFactory(title=third, dek=fourth)
    return paper


def test_no_cell_of_any_dump_csv_is_a_formula(hostile_content):
    files = dump_files()
    csvs = {path: data for path, data in files.items() if path.endswith(".csv")}
    assert "csv/edges.csv" in csvs and "csv/papers.csv" in csvs and len(csvs) > 10
    quoted = set()
    for path, data in csvs.items():
        for row in csv.reader(io.StringIO(data.decode(), newline="")):
            for cell in row:
                assert not cell.startswith(DANGEROUS_STARTS), (path, cell)
                if cell.startswith("'") and cell[1:] in FORMULAS:
                    quoted.add(cell[1:])
    assert quoted == set(FORMULAS)


def test_the_jsonl_keeps_the_text_as_it_is(hostile_content):
    lines = dump_files()["jsonl/papers.jsonl"].decode().splitlines()
    titles = {json.loads(line)["fields"]["title"] for line in lines}
    assert FORMULAS[0] in titles
