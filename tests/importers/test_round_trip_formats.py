"""Import → export → import gives the same record, for every format we both read and write
(BibTeX, CSL-JSON, RIS) and every pair of them: a year alone, a year and month, a full date, a
technical report with its institution, a name suffix ("Robert Smith, Jr."), particles ("Jan
van der Berg"), non-ASCII names (accents, Greek, Chinese). The records are compared field by
field: what the first import read, the export writes and the second import reads back."""

import dataclasses
import json

import pytest

from citations.exports.formats import bibtex_entry, csl_items, ris_records
from citations.importers import PaperRecord, make_plan, parse
from citations.models import Paper

pytestmark = pytest.mark.django_db


def imported(text, format):
    make_plan(parse(text, format)).apply()
    return Paper.objects.with_authors().get()


def test_bibtex_keeps_the_abstract():
    abstract = "Rewards $r_t$ & returns:  50% of runs\n\nconverge {early}."
    paper = imported(
        "TY  - JOUR\nTI  - T\nAB  - " + abstract.replace("\n", " ") + "\nER  - \n", "ris"
    )
    (again,) = parse(bibtex_entry(paper), "bibtex")
    assert (
        again.abstract == paper.abstract == "Rewards $r_t$ & returns: 50% of runs converge {early}."
    )


@pytest.mark.parametrize(
    ("source", "format"),
    [
        ('[{"id": "k", "type": "article", "title": "T", "number": "arXiv:2501.00001"}]', "csl"),
        ("TY  - UNPB\nTI  - T\nN1  - arXiv:2501.00001\nER  - \n", "ris"),
    ],
)
def test_bibtex_keeps_a_preprint_a_preprint(source, format):
    paper = imported(source, format)
    assert paper.publication_type == "preprint"
    exported = bibtex_entry(paper)
    assert exported.startswith("@misc{") and "eprint = {2501.00001}" in exported
    (again,) = parse(exported, "bibtex")
    assert (again.publication_type, again.identifiers) == ("preprint", {"arxiv": "2501.00001"})


def test_a_bibtex_misc_entry_without_an_arxiv_id_says_no_type():
    (record,) = parse("@misc{k, title = {T}, url = {https://example.org}}", "bibtex")
    assert record.publication_type == ""
    (record,) = parse("@unpublished{k, title = {T}, eprint = {2501.00001}}", "bibtex")
    assert record.publication_type == "preprint"


# Each author as the three formats write them: (display name, BibTeX, RIS, CSL-JSON).
NAMES = {
    "Devvrit Khatri": (
        "Khatri, Devvrit",
        "Khatri, Devvrit",
        {"family": "Khatri", "given": "Devvrit"},
    ),
    "Robert Smith, Jr.": (
        "Smith, Jr., Robert",
        "Smith, Robert, Jr.",
        {"family": "Smith", "given": "Robert", "suffix": "Jr."},
    ),
    "Jan van der Berg": (
        "van der Berg, Jan",
        "van der Berg, Jan",
        {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
    ),
    "José de la Cruz": (
        "de la Cruz, José",
        "de la Cruz, José",
        {"family": "Cruz", "given": "José", "non-dropping-particle": "de la"},
    ),
    "Jörg Müller": ("Müller, Jörg", "Müller, Jörg", {"family": "Müller", "given": "Jörg"}),
    "Zoë Łukasiewicz": (
        "Łukasiewicz, Zoë",
        "Łukasiewicz, Zoë",
        {"family": "Łukasiewicz", "given": "Zoë"},
    ),
    "Γιώργος Παπαδόπουλος": (
        "Παπαδόπουλος, Γιώργος",
        "Παπαδόπουλος, Γιώργος",
        {"family": "Παπαδόπουλος", "given": "Γιώργος"},
    ),
    "王小明": ("{王小明}", "王小明", {"literal": "王小明"}),
}


@dataclasses.dataclass
class Case:
    title: str
    authors: list
    date: list  # [year], [year, month] or [year, month, day]
    kind: str  # article, conference, report, preprint
    venue: str = ""
    institution: str = ""
    doi: str = ""
    arxiv: str = ""
    url: str = "https://example.org/paper"
    abstract: str = "What the paper found, in one sentence."


CASES = {
    "year only": Case(
        "Scaling Rewards Carefully", ["Devvrit Khatri"], [2024], "article", venue="Journal of RL"
    ),
    "year and month": Case(
        "Scaling Rewards in Months", ["Devvrit Khatri"], [2025, 7], "conference", venue="ICML"
    ),
    "full date": Case(
        "Scaling Rewards by the Day",
        ["Devvrit Khatri"],
        [2025, 10, 15],
        "preprint",
        arxiv="2510.13786",
        url="https://arxiv.org/abs/2510.13786",
    ),
    "report with institution": Case(
        "A Technical Report on Rewards",
        ["Devvrit Khatri"],
        [2023, 3],
        "report",
        institution="Example Institute",
        doi="10.5555/report.2023.1",
    ),
    "name suffix": Case(
        "Rewards with a Suffix",
        ["Robert Smith, Jr.", "Devvrit Khatri"],
        [2022],
        "article",
        venue="Journal of RL",
    ),
    "particles": Case(
        "Rewards with Particles",
        ["Jan van der Berg", "José de la Cruz"],
        [2021, 2, 3],
        "article",
        venue="Journal of RL",
    ),
    "non-ASCII names": Case(
        "Schönheit & Zuverlässigkeit of Rewards",
        ["Jörg Müller", "Zoë Łukasiewicz", "Γιώργος Παπαδόπουλος", "王小明"],
        [2020, 12],
        "report",
        institution="Universität Zürich",
    ),
}


def bibtex_source(case):
    kind = {"article": "article", "conference": "inproceedings", "report": "techreport"}
    fields = {
        "title": "{" + case.title.replace("&", r"\&") + "}",
        "author": "{" + " and ".join(NAMES[name][0] for name in case.authors) + "}",
        "journal": "{" + case.venue + "}" if case.kind == "article" else "",
        "booktitle": "{" + case.venue + "}" if case.kind == "conference" else "",
        "institution": "{" + case.institution + "}" if case.institution else "",
        "year": "{" + str(case.date[0]) + "}",
        "month": ["", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                  "nov", "dec"][case.date[1]] if len(case.date) > 1 else "",
        "date": "{" + "-".join(f"{p:02d}" for p in case.date) + "}" if len(case.date) == 3 else "",
        "eprint": "{" + case.arxiv + "}" if case.arxiv else "",
        "archivePrefix": "{arXiv}" if case.arxiv else "",
        "doi": "{" + case.doi + "}" if case.doi else "",
        "url": "{" + case.url + "}",
        "abstract": "{" + case.abstract + "}",
    }  # fmt: skip
    body = ",\n".join(f"  {name} = {value}" for name, value in fields.items() if value)
    return f"@{kind.get(case.kind, 'misc')}{{source,\n{body}\n}}\n"


def csl_source(case):
    kind = {"article": "article-journal", "conference": "paper-conference", "report": "report"}
    item = {
        "id": "source",
        "type": kind.get(case.kind, "article"),
        "title": case.title,
        "author": [NAMES[name][2] for name in case.authors],
        "issued": {"date-parts": [case.date]},
        "container-title": case.venue,
        "publisher": case.institution,
        "DOI": case.doi,
        "URL": case.url,
        "number": f"arXiv:{case.arxiv}" if case.arxiv else "",
        "abstract": case.abstract,
    }
    return json.dumps([{key: value for key, value in item.items() if value}], ensure_ascii=False)


def ris_source(case):
    kind = {"article": "JOUR", "conference": "CPAPER", "report": "RPRT", "preprint": "UNPB"}
    tags = [
        ("TY", kind[case.kind]),
        ("TI", case.title),
        *(("AU", NAMES[name][1]) for name in case.authors),
        ("PY", str(case.date[0])),
        ("DA", "/".join(f"{p:02d}" for p in case.date)),
        ("T2", case.venue),
        ("PB", case.institution),
        ("DO", case.doi),
        ("UR", case.url),
        ("N1", f"arXiv:{case.arxiv}" if case.arxiv else ""),
        ("AB", case.abstract),
    ]
    return "\n".join([*(f"{tag}  - {value}" for tag, value in tags if value), "ER  - ", ""])


SOURCES = {"bibtex": bibtex_source, "csl": csl_source, "ris": ris_source}
EXPORTS = {
    "bibtex": bibtex_entry,
    "csl": lambda paper: json.dumps(csl_items([paper]), ensure_ascii=False),
    "ris": lambda paper: ris_records([paper]),
}
# What a record says of its paper (where it was in the file, its format and the dry run's notes
# are about the file, not the paper).
COMPARED = [
    field.name
    for field in dataclasses.fields(PaperRecord)
    if field.name not in ("where", "source", "notes")
]


def fields_of(record):
    return {name: getattr(record, name) for name in COMPARED}


@pytest.mark.parametrize("export", list(EXPORTS))
@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("case", list(CASES))
def test_import_export_import_gives_the_same_record(case, source, export):
    text = SOURCES[source](CASES[case])
    (first,) = parse(text, source)
    paper = imported(text, source)
    exported = EXPORTS[export](paper)
    (again,) = parse(exported, export)
    assert fields_of(again) == fields_of(first), exported


@pytest.mark.parametrize("case", list(CASES))
def test_each_source_reads_the_case_as_written(case):
    """The sources above say what the case says (so the round trip starts from the truth)."""
    expected = CASES[case]
    for source, write in SOURCES.items():
        (record,) = parse(write(expected), source)
        assert record.title == expected.title, source
        assert record.authors == expected.authors, source
        date = record.publication_date
        assert [date.year, date.month, date.day][: len(expected.date)] == expected.date, source
        assert record.date_precision == ["year", "month", "day"][len(expected.date) - 1], source
        assert record.institution == expected.institution, source
