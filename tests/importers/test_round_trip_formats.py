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
