"""The stored search document (migration 0005): every write path keeps it current, so search
finds papers by title, identifiers, byline, authors, summary and abstract on both databases."""

import pytest
from django.db import connection

from citations.models import Author, Authorship, Paper
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db


def found(text):
    return set(Paper.objects.search(text).values_list("slug", flat=True))


def test_search_finds_each_field_after_create():
    paper = PaperFactory(
        title="Entropy collapse in policy gradients",
        byline="Okonkwo et al.",
        institution="Lagrange Lab",
        summary="A note on verifiers",
        abstract="We study tokenizers.",
        arxiv_id="2510.13786",
    )
    for text in ("entropy", "Okonkwo", "Lagrange", "verifiers", "tokenizers", "2510.13786"):
        assert found(text) == {paper.slug}, text


def test_search_follows_updates_saves_and_authors():
    paper = PaperFactory(title="Reward hacking")
    Paper.objects.filter(pk=paper.pk).update(title="Verifier drift")  # a bulk path
    assert found("drift") == {paper.slug}
    assert found("hacking") == set()
    paper.refresh_from_db()
    paper.abstract = "Curriculum schedules"
    paper.save()
    assert found("curriculum") == {paper.slug}
    Authorship.objects.create(paper=paper, author=Author.objects.create(name="Zanele Dlamini"))
    assert found("Dlamini") == {paper.slug}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL full-text search")
def test_postgresql_search_reads_the_stored_document_through_its_gin_index():
    PaperFactory(title="Entropy collapse")
    sql = str(Paper.objects.search("entropy").query)
    assert "to_tsvector" not in sql  # no per-row document built at query time
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'paper_search_document'")
        assert "gin" in cursor.fetchone()[0].lower()
