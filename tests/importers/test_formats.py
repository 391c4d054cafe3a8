"""Each format's parser on its hand-written fixture file: the hard cases read right."""

import datetime

import pytest

from citations.importers import BadImportFile, detect_format, parse
from tests.helpers import fixture_text


def by_title(records):
    return {record.title: record for record in records}


def test_bibtex_names_escapes_and_identifiers():
    records = parse(fixture_text("papers.bib"), "bibtex")
    assert len(records) == 5
    workshop = by_title(records)["Schönheit & Zuverlässigkeit: RL at Scale with α-Clipping"]
    assert workshop.authors == [
        "Jan van der Berg",
        "Jörg Müller",
        "John Smith, Jr.",
        "DeepSeek-AI",
        "Zoë Łukasiewicz",
        "José de la Cruz",
    ]
    assert workshop.identifiers == {"doi": "10.5555/rlscale.2024.17"}
    # A year alone is kept as that year, with its precision (not dropped, not made a day).
    assert (workshop.year, workshop.date_precision) == (2024, "year")
    assert workshop.publication_date == datetime.date(2024, 1, 1)
    art = records[0]
    assert art.title == "The Art of Scaling Reinforcement Learning Compute for LLMs"
    assert art.identifiers == {"arxiv": "2510.13786"}
    assert art.arxiv_versions == ["v1"]
    assert art.authors[6] == "Inderjit S. Dhillon"
    # The arXiv DataCite DOI names the arXiv id.
    assert records[2].identifiers == {"arxiv": "1707.06347"}
    untitled = records[4]
    assert untitled.authors == [] and untitled.year is None


def test_arxiv_atom_entries():
    art, math = parse(fixture_text("arxiv_query.xml"), "arxiv")
    assert art.identifiers == {"arxiv": "2510.13786"}
    assert art.publication_date == datetime.date(2025, 10, 15)
    assert art.authors[0] == "Devvrit Khatri" and len(art.authors) == 9
    assert art.abstract.startswith("Reinforcement learning has become central")
    assert "\n" not in art.abstract
    assert math.title == (
        "DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language Models"
    )
    assert math.arxiv_versions == ["v1", "v2", "v3"]
    assert math.identifiers == {"arxiv": "2402.03300", "doi": "10.5555/deepseekmath.fixture"}
    assert math.venue == "Fixture Journal of Reasoning 1 (2024) 1-30"
    assert math.institution == "DeepSeek-AI"
    assert math.categories == ["cs.CL", "cs.AI"]


def test_openalex_works_and_references():
    records = parse(fixture_text("openalex_works.jsonl"), "openalex")
    art = records[0]
    assert art.identifiers == {"openalex": "W4403100001", "arxiv": "2510.13786"}
    # Authorships come out of order in the file; author_position decides.
    assert art.authors[0] == "Devvrit Khatri" and art.authors[-1] == "Rishabh Agarwal"
    assert art.institution == "Meta (United States)"
    assert art.abstract == parse(fixture_text("arxiv_query.xml"))[0].abstract
    assert [r.identifiers for r in art.references] == [
        {"openalex": "W4403100002"},
        {"openalex": "W4403100003"},
        {"openalex": "W4403199999"},
    ]
    assert records[2].identifiers["arxiv"] == "2402.03300"  # from the landing page URL


def test_semantic_scholar_intents_contexts_and_influence():
    paper, *others = parse(fixture_text("s2_paper.json"), "s2")
    assert paper.identifiers["arxiv"] == "2510.13786"
    assert all(not other.in_research_index for other in others)
    roles = [(r.direction, r.role, r.is_influential) for r in paper.references]
    assert roles == [
        ("cited_by", "method", True),
        ("cited_by", "background", False),
        ("cited_by", "comparison", False),  # result wins over background
        ("cited_by", "", False),
        ("cites", "method", True),
    ]
    assert paper.references[0].contexts[0].startswith("Following the sigmoidal")


def test_csl_json_names_and_dates():
    art, workshop, rmo = parse(fixture_text("zotero.json"), "csl")
    assert art.identifiers == {"arxiv": "2510.13786"}
    assert workshop.authors[0] == "Jan van der Berg"
    assert workshop.authors[2] == "John Smith, Jr."
    assert workshop.authors[3] == "DeepSeek-AI"
    assert (workshop.year, workshop.date_precision) == (2024, "year")
    assert workshop.publication_date == datetime.date(2024, 1, 1)
    assert rmo.identifiers == {"arxiv": "2210.10760"}
    assert rmo.publication_date == datetime.date(2022, 10, 19)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("papers.bib", "bibtex"),
        ("arxiv_query.xml", "arxiv"),
        ("openalex_works.jsonl", "openalex"),
        ("openalex_work.json", "openalex"),
        ("s2_paper.json", "s2"),
        ("zotero.json", "csl"),
    ],
)
def test_format_is_guessed_from_the_content(name, expected):
    assert detect_format(fixture_text(name)) == expected


def test_a_pasted_list_of_arxiv_ids():
    records = parse("2510.13786\narXiv:1707.06347v2\n\nhttps://arxiv.org/abs/2402.03300\n")
    assert [r.identifiers["arxiv"] for r in records] == ["2510.13786", "1707.06347", "2402.03300"]


@pytest.mark.parametrize(
    ("text", "format", "where"),
    [
        (fixture_text("broken.bib"), "bibtex", "line 7"),
        (fixture_text("broken.jsonl"), "openalex", "line 2"),
        ("<feed xmlns='http://www.w3.org/2005/Atom'><entry>", "arxiv", "line 1"),
        ('[{"type": "article", "title": ""}]', "csl", "record 1"),
        ('{"paperId": "x", "title": "T", "externalIds": {"DOI": "not a doi"}}', "s2", "record 1"),
        ('{"id": "https://openalex.org/W1", "title": "T", "publication_date": "soon"}', None, "W1"),
        ("@article{k, title={T}, eprint={not-an-id!!}, archivePrefix={arXiv}}", None, "line 1"),
        ("just some words", None, "line 1"),
        (
            '<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY a "aaaa">]>\n<feed>&a;</feed>',
            "arxiv",
            "line 2",
        ),
    ],
)
def test_a_bad_file_names_the_record(text, format, where):
    with pytest.raises(BadImportFile) as error:
        parse(text, format)
    assert where in str(error.value)
