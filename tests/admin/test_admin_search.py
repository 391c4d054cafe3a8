"""Admin searches match substrings in any case, as Django's `icontains` does, written so that
PostgreSQL can answer them from trigram indexes (at 100k papers / 1M citations each search
read every row: 1.9 s papers, 2.2 s citations, 1.2 s the paper autocomplete)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citations.admin.papers import CitationAdmin
from citations.models import Citation, CitationQuerySet, Paper
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db

PAPERS = reverse("admin:citations_paper_changelist")
CITATIONS = reverse("admin:citations_citation_changelist")
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_trgm indexes")


def listed(response):
    return {row.pk for row in response.context["cl"].result_list}


def test_paper_search_matches_any_searched_field_in_any_case(editor_client):
    by_title = PaperFactory(title="Zyxwv laws for rewards")
    by_byline = PaperFactory(byline="A. ZYXWV and others")
    by_institution = PaperFactory(institution="The zYxWv institute")
    by_summary = PaperFactory(summary="We study zyxwv curves.")
    by_doi = PaperFactory(doi="10.5555/zyxwv.1")
    PaperFactory(title="Something else")
    response = editor_client.get(PAPERS, {"q": "zyxwv"})
    assert listed(response) == {
        by_title.pk,
        by_byline.pk,
        by_institution.pk,
        by_summary.pk,
        by_doi.pk,
    }


def test_paper_search_needs_every_word_and_keeps_quoted_phrases(editor_client):
    both = PaperFactory(title="Qwerty scaling of asdfg")
    PaperFactory(title="Qwerty only")
    phrase = PaperFactory(title="laws of qwerty asdfg here")
    assert listed(editor_client.get(PAPERS, {"q": "qwerty asdfg"})) == {both.pk, phrase.pk}
    assert listed(editor_client.get(PAPERS, {"q": '"qwerty asdfg"'})) == {phrase.pk}


def test_percent_and_underscore_are_searched_as_themselves(editor_client):
    percent = PaperFactory(title="A 100% zyxwv gain")
    underscore = PaperFactory(title="The zyxwv_score metric")
    PaperFactory(title="A 1000 zyxwv gain")
    PaperFactory(title="The zyxwvXscore metric")
    assert listed(editor_client.get(PAPERS, {"q": "100%"})) == {percent.pk}
    assert listed(editor_client.get(PAPERS, {"q": "zyxwv_score"})) == {underscore.pk}


def test_the_autocomplete_finds_papers_by_part_of_a_word(editor_client):
    paper = PaperFactory(title="Zyxwvutsr laws for rewards")
    PaperFactory(title="Something else")
    response = editor_client.get(
        "/admin/autocomplete/",
        {
            "app_label": "citations",
            "model_name": "citation",
            "field_name": "cited_paper",
            "term": "XWVUT",
        },
    )
    assert [row["id"] for row in response.json()["results"]] == [str(paper.pk)]


@pytest.mark.parametrize("papers_named", [1000, 1])
def test_citation_search_reads_few_or_many_matching_papers_alike(
    editor_client, monkeypatch, papers_named
):
    """A word in few titles names the papers in the query; in many, it is matched on the joined
    titles."""
    monkeypatch.setattr(CitationQuerySet, "PAPERS_NAMED", papers_named)
    hub = PaperFactory(title="Zyxwv laws for rewards")
    other = PaperFactory(title="More zyxwv laws")
    cites_hub = CitationFactory(cited_paper=hub)
    cited_by_other = CitationFactory(citing_paper=other)
    by_context = CitationFactory(context="as the ZYXWV curve shows")
    CitationFactory()
    response = editor_client.get(CITATIONS, {"q": "zyxwv"})
    assert listed(response) == {cites_hub.pk, cited_by_other.pk, by_context.pk}
    assert listed(editor_client.get(CITATIONS, {"q": "zyxwv curve"})) == {by_context.pk}
    assert listed(editor_client.get(CITATIONS, {"q": "nothing-like-it"})) == set()


def test_a_searched_list_reads_its_page_by_key_without_searching_again(editor_client, monkeypatch):
    """The page's rows are read by primary key alone: the search ran once, for the keys."""
    monkeypatch.setattr(CitationAdmin, "list_per_page", 2)
    hub = PaperFactory(title="Zyxwv laws for rewards")
    edges = [CitationFactory(cited_paper=hub) for _ in range(5)]
    CitationFactory()
    with CaptureQueriesContext(connection) as captured:
        response = editor_client.get(CITATIONS, {"q": "zyxwv", "o": "-1", "p": "2"})
    by_title = sorted(edges, key=lambda edge: (edge.citing_paper.title, edge.pk), reverse=True)
    assert [row.pk for row in response.context["cl"].result_list] == [
        edge.pk for edge in by_title[2:4]
    ]
    reading_rows = [
        query["sql"]
        for query in captured.captured_queries
        if '"citations_citation"."context"' in query["sql"].split(" FROM ")[0]
    ]
    assert len(reading_rows) == 1
    assert "zyxwv" not in reading_rows[0].lower()


def plan_of(queryset):
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        # Only bitmap scans left (they need an index that serves the condition): with plain
        # index scans allowed, a full walk of another index could look cheaper on a test table.
        for kind in ("seqscan", "indexscan", "indexonlyscan"):
            cursor.execute(f"SET LOCAL enable_{kind} = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.slow  # an EXPLAIN: guards the index (PostgreSQL, CI's slow step)
@on_postgresql
@pytest.mark.parametrize(
    ("field", "index"),
    [
        ("title", "paper_title_trgm"),
        ("byline", "paper_byline_trgm"),
        ("institution", "paper_institution_trgm"),
        ("arxiv_id", "paper_arxiv_id_trgm"),
        ("doi", "paper_doi_trgm"),
        ("summary", "paper_summary_trgm"),
    ],
)
def test_each_searched_paper_field_can_be_read_from_its_trigram_index(rf, editor, field, index):
    from django.contrib import admin

    request = rf.get(PAPERS, {"q": "scal"})
    request.user = editor
    model_admin = admin.site._registry[Paper]
    model_admin.search_fields = [field]
    try:
        rows, _ = model_admin.get_search_results(request, Paper.objects.all(), "scal")
    finally:
        del model_admin.search_fields
    assert index in plan_of(rows)


@pytest.mark.slow  # an EXPLAIN: guards the index (PostgreSQL, CI's slow step)
@on_postgresql
def test_the_citing_sentence_can_be_read_from_its_trigram_index(rf, editor):
    from django.contrib import admin

    request = rf.get(CITATIONS, {"q": "scal"})
    request.user = editor
    rows, _ = admin.site._registry[Citation].get_search_results(
        request, Citation.objects.all(), "scal"
    )
    assert "citation_context_trgm" in plan_of(rows)
