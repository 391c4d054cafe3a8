"""The API's citations `search=` (issue 16): each word in either paper's title or in the citing
sentence, any case, drafts never; on PostgreSQL each arm of the match has an index, so a word
in no title does not scan every edge."""

import re

import pytest
from django.db import connection

from citations.models import Citation, CitationQuerySet
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db


def found(client, text):
    response = client.get("/api/v1/citations/", {"search": text, "page_size": 100})
    assert response.status_code == 200
    return {row["id"] for row in response.json()["results"]}


@pytest.fixture(params=["few titles", "many titles"])
def edges(db, request, monkeypatch):
    """The same edges, with the word in "few" titles (their papers named in the query) and in
    "many" (matched on the joined papers)."""
    if request.param == "many titles":
        monkeypatch.setattr(CitationQuerySet, "PAPERS_NAMED", 0)
    walrus = PaperFactory(title="Walrus scaling laws")
    return {
        "cited": CitationFactory(cited_paper=walrus, context="Plain sentence."),
        "citing": CitationFactory(citing_paper=PaperFactory(title="A WALRUS survey")),
        "context": CitationFactory(context="As the walrus experiments show, rewards saturate."),
        "neither": CitationFactory(context="Nothing about it."),
        "draft": CitationFactory(context="A walrus in a draft edge.", draft=True),
    }


def test_a_word_matches_either_title_or_the_citing_sentence_in_any_case(client, edges):
    expected = {edges[key].pk for key in ("cited", "citing", "context")}
    assert found(client, "walrus") == expected
    assert found(client, "WALRUS") == expected


def test_every_word_must_match_and_quoted_phrases_are_kept(client, edges):
    assert found(client, "walrus saturate") == {edges["context"].pk}
    assert found(client, '"survey walrus"') == set()
    assert found(client, '"walrus survey"') == {edges["citing"].pk}
    assert found(client, '"walrus scaling"') == {edges["cited"].pk}


def test_a_word_in_no_title_and_no_sentence_finds_nothing(client, edges):
    assert found(client, "qqxyzzy") == set()


def test_percent_and_underscore_are_searched_as_themselves(client, db):
    percent = CitationFactory(context="Accuracy rose by 50% on the benchmark.")
    CitationFactory(context="Accuracy rose by 500 points.")
    assert found(client, "50%") == {percent.pk}


@pytest.mark.slow  # an EXPLAIN: guards the index (PostgreSQL, CI's slow step)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL indexes")
def test_a_rare_word_reads_the_edges_through_indexes_on_postgresql(db):
    PaperFactory(title="Walrus scaling laws")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # the test tables are tiny
    plan = Citation.objects.search("walrus").explain()
    assert "Seq Scan" not in plan, plan
    assert "citation_context_trgm" in plan
    index_conditions = re.findall(r"Index Cond: \((\w+)", plan)
    assert {"citing_paper_id", "cited_paper_id", "context"} <= set(index_conditions), plan
