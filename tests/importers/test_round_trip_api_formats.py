"""The round trips of tests/importers/test_round_trip_formats.py for the readers we do not
write: arXiv Atom, OpenAlex and Semantic Scholar. Each case (a year alone, a year and month, a
full date, a report with its institution, a name suffix, particles, non-ASCII names) is
written in the source format as far as that format can say it; imported, the stored paper keeps
its date precision, institution and names; exported (BibTeX, CSL-JSON, RIS) and imported again,
it gives the same record in every field the export carries. What a format cannot say is said in
`DATE_SAID` (the date the case is written with instead, and why) and `NOT_CARRIED`."""

import dataclasses
import json

import pytest

from citations.importers import make_plan, parse
from citations.models import Paper
from tests.importers.test_round_trip_formats import CASES, EXPORTS

pytestmark = pytest.mark.django_db

# The dates a source format cannot say, and what the case is written with instead: arXiv dates
# every entry to the day (<published> is a timestamp), so a year or a month is written as its
# first day; OpenAlex and Semantic Scholar give a day or a year alone, so a month is written as
# its year. The stored paper then keeps what the source said, no more and no less.
DATE_SAID = {
    "arxiv": lambda date: [*date, 1, 1][:3],
    "openalex": lambda date: date if len(date) != 2 else date[:1],
    "s2": lambda date: date if len(date) != 2 else date[:1],
}
# Fields of a paper a source format never gives, with why (the stored paper leaves them empty).
NOT_CARRIED = {
    "arxiv": {"publication_type": "arXiv says only that an entry is an arXiv preprint"},
    "s2": {
        "institution": "a Semantic Scholar paper object has no institution",
        "publication_type": "Semantic Scholar has no type for a report",
    },
    "openalex": {},
}
FALLBACK_ARXIV = "2401.00001"  # an arXiv entry always has an id


def as_said(source, case):
    """The case as the source format can say it (its date, see DATE_SAID)."""
    return dataclasses.replace(case, date=DATE_SAID[source](case.date))


def iso(date):
    return "-".join(f"{part:02d}" for part in date)


def arxiv_source(case):
    arxiv = case.arxiv or FALLBACK_ARXIV
    authors = []
    for number, name in enumerate(case.authors):
        affiliation = case.institution if number == 0 and case.institution else ""
        authors.append(
            f"<author><name>{name}</name>"
            + (f"<arxiv:affiliation>{affiliation}</arxiv:affiliation>" if affiliation else "")
            + "</author>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<entry><id>http://arxiv.org/abs/{arxiv}v1</id>"
        f"<published>{iso(case.date)}T12:00:00Z</published>"
        f"<title>{case.title.replace('&', '&amp;')}</title><summary>{case.abstract}</summary>"
        + "".join(authors)
        + (f"<arxiv:doi>{case.doi}</arxiv:doi>" if case.doi else "")
        + (f"<arxiv:journal_ref>{case.venue}</arxiv:journal_ref>" if case.venue else "")
        + '<arxiv:primary_category term="cs.LG"/><category term="cs.LG"/></entry></feed>'
    )


def openalex_source(case):
    work = {
        "id": "https://openalex.org/W123",
        "title": case.title,
        "type": {"conference": "article"}.get(case.kind, case.kind),
        "publication_year": case.date[0],
        "publication_date": iso(case.date) if len(case.date) == 3 else None,
        "authorships": [
            {
                "author_position": "first" if number == 0 else "middle",
                "author": {"display_name": name},
                "institutions": (
                    [{"display_name": case.institution}] if case.institution and not number else []
                ),
            }
            for number, name in enumerate(case.authors)
        ],
        "abstract_inverted_index": {},
        "doi": f"https://doi.org/{case.doi}" if case.doi else None,
        "locations": (
            [{"landing_page_url": f"https://arxiv.org/abs/{case.arxiv}"}] if case.arxiv else []
        ),
        "primary_location": {"source": {"display_name": case.venue} if case.venue else None},
    }
    for position, word in enumerate(case.abstract.split()):
        work["abstract_inverted_index"].setdefault(word, []).append(position)
    return json.dumps(work, ensure_ascii=False)


def s2_source(case):
    paper = {
        "paperId": "abc123",
        "title": case.title,
        "authors": [{"name": name} for name in case.authors],
        "year": case.date[0],
        "publicationDate": iso(case.date) if len(case.date) == 3 else None,
        "externalIds": {"DOI": case.doi or None, "ArXiv": case.arxiv or None},
        "venue": case.venue,
        "publicationTypes": {"article": ["JournalArticle"], "conference": ["Conference"]}.get(
            case.kind, []
        ),
        "abstract": case.abstract,
    }
    return json.dumps(paper, ensure_ascii=False)


SOURCES = {"arxiv": arxiv_source, "openalex": openalex_source, "s2": s2_source}


def carried(record):
    """What a record says of its paper that BibTeX, CSL-JSON and RIS all write: not the
    OpenAlex or Semantic Scholar ids, the arXiv versions or categories (BibTeX alone keeps the
    primary class), nor an institution or venue for a kind the exports do not give one."""
    fields = {
        "title": record.title,
        "authors": record.authors,
        "date": (record.publication_date, record.year, record.date_precision),
        "abstract": record.abstract,
        "identifiers": {k: v for k, v in record.identifiers.items() if k in ("arxiv", "doi")},
    }
    if record.publication_type == "report":
        fields["institution"] = record.institution
    if record.publication_type in ("article", "conference"):
        fields["venue"] = record.venue
    return fields


def imported(text, format):
    make_plan(parse(text, format)).apply()
    return Paper.objects.with_authors().get()


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("case", list(CASES))
def test_the_stored_paper_keeps_what_the_source_says(roles, case, source):
    expected = as_said(source, CASES[case])
    paper = imported(SOURCES[source](expected), source)
    assert paper.author_names == expected.authors  # suffixes, particles, non-ASCII
    assert paper.date_precision == ["year", "month", "day"][len(expected.date) - 1]
    assert paper.publication_date_parts == expected.date
    if "institution" not in NOT_CARRIED[source]:
        assert paper.institution == expected.institution
    if "publication_type" not in NOT_CARRIED[source] and expected.kind != "conference":
        assert paper.publication_type == expected.kind


@pytest.mark.parametrize("export", list(EXPORTS))
@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("case", list(CASES))
def test_import_export_import_gives_the_same_record(roles, case, source, export):
    expected = as_said(source, CASES[case])
    text = SOURCES[source](expected)
    (first,) = parse(text, source)
    exported = EXPORTS[export](imported(text, source))
    (again,) = parse(exported, export)
    assert carried(again) == carried(first), exported
