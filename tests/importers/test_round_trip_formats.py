"""Import → export → import gives the same record, for every format we both read and write
(BibTeX, CSL-JSON, RIS)."""

import pytest

from citations.exports.formats import bibtex_entry
from citations.importers import make_plan, parse
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
