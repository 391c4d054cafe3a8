"""Importers keep what the source says: year-only and year-month dates with their precision,
a report's institution, name suffixes and particles; each format's record imported, exported
(BibTeX, CSL-JSON; RIS checked as written) and imported again gives the same record. A
re-import never replaces an editor's better value with a worse one, and the dry run shows each
change with both values and what it left out."""

import datetime
import json

import pytest

from citations.exports.formats import bibtex_entry, csl_items, ris_records
from citations.importers import parse
from citations.importers.plan import make_plan
from citations.models import DatePrecision, Paper
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db

SMITH, BERG = "Robert Smith, Jr.", "Jan van der Berg"

BIBTEX = """@techreport{smith2025,
  title = {Scaling Rewards Carefully},
  author = {Smith, Jr., Robert and van der Berg, Jan},
  institution = {Example Institute},
  year = {2025},
  month = jul,
}"""

CSL = json.dumps(
    [
        {
            "id": "smith2025",
            "type": "report",
            "title": "Scaling Rewards Carefully",
            "author": [
                {"family": "Smith", "given": "Robert", "suffix": "Jr."},
                {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
            ],
            "issued": {"date-parts": [[2025, 7]]},
            "publisher": "Example Institute",
        }
    ]
)

S2 = json.dumps(
    {
        "paperId": "0123456789abcdef0123456789abcdef01234567",
        "title": "Scaling Rewards Carefully",
        "year": 2026,
        "authors": [{"name": SMITH}, {"name": BERG}],
    }
)

OPENALEX = json.dumps(
    {
        "id": "https://openalex.org/W123456789",
        "title": "Scaling Rewards Carefully",
        "publication_year": 2024,
        "authorships": [
            {"author_position": "first", "author": {"display_name": SMITH}},
            {"author_position": "last", "author": {"display_name": BERG}},
        ],
    }
)

ARXIV = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <entry>
    <id>http://arxiv.org/abs/2501.01234v1</id>
    <published>2025-01-02T18:00:00Z</published>
    <title>Scaling Rewards Carefully</title>
    <summary>An abstract.</summary>
    <author><name>Robert Smith, Jr.</name></author>
    <author><name>Jan van der Berg</name></author>
    <arxiv:primary_category term="cs.LG"/>
    <category term="cs.LG"/>
  </entry>
</feed>"""

CASES = {
    "bibtex": (BIBTEX, datetime.date(2025, 7, 1), DatePrecision.MONTH, "Example Institute"),
    "csl": (CSL, datetime.date(2025, 7, 1), DatePrecision.MONTH, "Example Institute"),
    "s2": (S2, datetime.date(2026, 1, 1), DatePrecision.YEAR, ""),
    "openalex": (OPENALEX, datetime.date(2024, 1, 1), DatePrecision.YEAR, ""),
    "arxiv": (ARXIV, datetime.date(2025, 1, 2), DatePrecision.DAY, ""),
}


def imported(text, format):
    plan = make_plan(parse(text, format))
    plan.apply()
    return Paper.objects.with_authors().get(title="Scaling Rewards Carefully")


def essentials(record):
    return (
        record.title,
        record.authors,
        record.publication_date,
        record.date_precision,
        record.institution,
    )


@pytest.mark.parametrize("format", list(CASES))
def test_the_source_date_names_and_institution_are_kept(format):
    text, date, precision, institution = CASES[format]
    paper = imported(text, format)
    assert (paper.publication_date, paper.date_precision) == (date, precision)
    assert paper.author_names == [SMITH, BERG]
    assert paper.institution == institution
    assert paper.cite_key.endswith(str(date.year) + "scaling") or str(date.year) in paper.cite_key


@pytest.mark.parametrize("format", list(CASES))
def test_import_export_import_gives_the_same_record(format):
    text, date, precision, institution = CASES[format]
    paper = imported(text, format)
    first = parse(text, format)[0]
    for exported, again in (
        (bibtex_entry(paper), "bibtex"),
        (json.dumps(csl_items([paper])), "csl"),
    ):
        record = parse(exported, again)[0]
        assert essentials(record) == essentials(first) or essentials(record) == (
            paper.title,
            [SMITH, BERG],
            date,
            precision,
            paper.institution,
        ), (format, again, exported)


def test_bibtex_writes_a_suffix_and_a_particle_in_bibtex_order():
    paper = imported(BIBTEX, "bibtex")
    entry = bibtex_entry(paper)
    assert "Smith, Jr., Robert and van der Berg, Jan" in entry
    assert "institution = {Example Institute}" in entry
    assert "year = {2025}" in entry and "month = jul" in entry


def test_ris_writes_last_first_suffix_and_the_known_date():
    paper = imported(BIBTEX, "bibtex")
    ris = ris_records([paper])
    assert "AU  - Smith, Robert, Jr." in ris
    assert "AU  - van der Berg, Jan" in ris
    assert "PY  - 2025" in ris
    assert "Example Institute" in ris
    assert "Robert Smith" not in ris.split("PB  -", 1)[-1].splitlines()[0]


def test_a_report_without_institution_never_exports_its_first_author_as_one():
    paper = imported(BIBTEX.replace("institution = {Example Institute},", ""), "bibtex")
    assert "institution" not in bibtex_entry(paper)
    assert "publisher" not in csl_items([paper])[0]


def test_bibtex_primary_class_is_read():
    text = BIBTEX.replace("@techreport", "@misc").replace(
        "month = jul,", "month = jul,\n  eprint = {2501.01234},\n  primaryClass = {cs.LG},"
    )
    assert parse(text, "bibtex")[0].arxiv_category == "cs.LG"


def test_a_reimport_keeps_the_editors_venue_and_refines_only_a_vaguer_date():
    paper = PaperFactory(
        title="Proximal Policy Optimization Algorithms",
        arxiv_id="1707.06347",
        venue="",
        publication_date=datetime.date(2017, 1, 1),
        date_precision=DatePrecision.YEAR,
    )
    text = """@article{schulman2017,
  title = {Proximal Policy Optimization Algorithms},
  author = {Schulman, John},
  journal = {arXiv preprint arXiv:1707.06347},
  year = {2017},
  month = jul,
  eprint = {1707.06347},
  keywords = {rl},
}"""
    plan = make_plan(parse(text, "bibtex"))
    step = plan.papers[0]
    assert "venue" not in step.changes
    assert step.changes["date_precision"] == "month"
    report = plan.report()
    assert "publication_date: '2017-01-01' → '2017-07-01'" in report
    assert "date_precision: 'year' → 'month'" in report
    assert "venue 'arXiv preprint arXiv:1707.06347' only names arXiv: left out" in report
    assert "fields not imported: keywords" in report
    assert plan.as_dict()["papers"][0]["changed"]["date_precision"] == {
        "from": "year",
        "to": "month",
    }
    plan.apply()
    paper.refresh_from_db()
    assert (paper.venue, paper.publication_date) == ("", datetime.date(2017, 7, 1))
    # A real venue is never replaced, and a vaguer date never replaces a day.
    Paper.objects.filter(pk=paper.pk).update(venue="NeurIPS", date_precision="day")
    plan = make_plan(parse(text.replace("month = jul,", ""), "bibtex"))
    assert plan.papers[0].changes == {}
    plan.apply()
    paper.refresh_from_db()
    assert (paper.venue, paper.date_precision) == ("NeurIPS", "day")


def test_a_placeholder_date_is_replaced_by_a_known_one():
    paper = PaperFactory(
        title="Scaling Rewards Carefully",
        publication_date=datetime.date(2026, 8, 28),
        date_precision=DatePrecision.UNKNOWN,
    )
    make_plan(parse(BIBTEX, "bibtex")).apply()
    paper.refresh_from_db()
    assert (paper.publication_date, paper.date_precision) == (datetime.date(2025, 7, 1), "month")


def test_the_dry_run_says_when_it_cuts_a_title():
    long_title = "Scaling " * 80
    plan = make_plan(parse(BIBTEX.replace("Scaling Rewards Carefully", long_title), "bibtex"))
    assert "cut from" in plan.report()
