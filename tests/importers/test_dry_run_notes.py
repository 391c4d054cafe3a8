"""The dry run says, record by record and in the same words whatever the format
(citations/importers/wording.py), what an import leaves out or cuts: a field no paper field
takes, a date it could not read (and how much of the date it kept), a title over the column."""

import json

import pytest

from citations.importers import BadImportFile, make_plan, parse

pytestmark = pytest.mark.django_db

LONG_TITLE = ("Scaling reinforcement learning " * 21)[:639]

ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
<entry><id>http://arxiv.org/abs/2510.13786v1</id><updated>2025-10-16T00:00:00Z</updated>
<published>2025-10-15T17:00:00Z</published><title>{title}</title><summary>S.</summary>
<author><name>Ada Lovelace</name></author><arxiv:comment>12 pages</arxiv:comment>
<link href="http://arxiv.org/abs/2510.13786v1" rel="alternate" type="text/html"/>
<category term="cs.LG"/></entry></feed>"""


def source(format, title="Short", extra=True):
    """One record in `format`, with one field no paper field takes when `extra`."""
    if format == "bibtex":
        pages = "  pages = {1--9},\n" if extra else ""
        return f"@article{{k,\n  title = {{{title}}},\n  year = {{2025}},\n{pages}}}\n"
    if format == "ris":
        pages = "SP  - 1\n" if extra else ""
        return f"TY  - JOUR\nTI  - {title}\nPY  - 2025\n{pages}ER  - \n"
    if format == "csl":
        item = {"id": "k", "type": "article-journal", "title": title, "page": "1-9"}
        return json.dumps([item if extra else {k: v for k, v in item.items() if k != "page"}])
    if format == "arxiv":
        return ATOM.format(title=title)
    if format == "openalex":
        work = {"id": "https://openalex.org/W1", "title": title, "publication_year": 2025}
        return json.dumps(work | ({"cited_by_count": 3} if extra else {}))
    paper = {"paperId": "abc", "title": title, "year": 2025}
    return json.dumps(paper | ({"citationCount": 3} if extra else {}))


NOT_IMPORTED = {
    "bibtex": "fields not imported: pages",
    "ris": "fields not imported: SP",
    "csl": "fields not imported: page",
    "arxiv": "fields not imported: arxiv:comment, updated",
    "openalex": "fields not imported: cited_by_count",
    "s2": "fields not imported: citationCount",
}


@pytest.mark.parametrize("format", list(NOT_IMPORTED))
def test_every_reader_names_the_fields_it_does_not_import(roles, format):
    plan = make_plan(parse(source(format), format))
    assert NOT_IMPORTED[format] in plan.as_dict()["papers"][0]["cut"]
    assert NOT_IMPORTED[format] in plan.report()


@pytest.mark.parametrize("format", ["bibtex", "ris", "csl", "openalex", "s2"])
def test_a_record_whose_every_field_is_read_has_no_such_note(roles, format):
    plan = make_plan(parse(source(format, extra=False), format))
    assert "not imported" not in plan.report()


@pytest.mark.parametrize("format", list(NOT_IMPORTED))
def test_every_reader_reports_a_title_cut_to_the_column(roles, format):
    plan = make_plan(parse(source(format, title=LONG_TITLE), format))
    assert "title cut from 639 to 500 characters" in plan.as_dict()["papers"][0]["cut"]


@pytest.mark.parametrize(
    ("format", "text", "note", "precision"),
    [
        (
            "csl",
            '[{"id": "k", "type": "article", "title": "T", "issued": {"raw": "Spring 2025"}}]',
            "issued raw 'Spring 2025' not read: no date is kept",
            "",
        ),
        (
            "openalex",
            '{"id": "https://openalex.org/W1", "title": "T", "publication_year": 2025, '
            '"publication_date": "2025-13-45"}',
            "publication_date '2025-13-45' not read: the date is kept to its year",
            "year",
        ),
        (
            "s2",
            '{"paperId": "abc", "title": "T", "year": 2026, "publicationDate": "sometime"}',
            "publicationDate 'sometime' not read: the date is kept to its year",
            "year",
        ),
        (
            "ris",
            "TY  - JOUR\nTI  - T\nPY  - 2025\nDA  - Jul 14\nER  - \n",
            "DA 'Jul 14' not read: the date is kept to its year",
            "year",
        ),
        (
            "bibtex",
            "@article{k, title = {T}, year = {2025}, month = {summer}}",
            "month 'summer' not read: the date is kept to its year",
            "year",
        ),
    ],
)
def test_every_reader_says_which_date_it_could_not_read(roles, format, text, note, precision):
    (record,) = parse(text, format)
    assert note in record.notes
    assert record.date_precision == precision
    assert note in make_plan([record]).report()


@pytest.mark.parametrize(
    ("format", "text"),
    [
        ("openalex", '{"id": "https://openalex.org/W1", "title": "T", "publication_date": "x"}'),
        ("s2", '{"paperId": "abc", "title": "T", "publicationDate": "2025-02-30"}'),
    ],
)
def test_an_unreadable_date_with_no_year_beside_it_refuses_the_record(format, text):
    with pytest.raises(BadImportFile, match="is not a date"):
        parse(text, format)
