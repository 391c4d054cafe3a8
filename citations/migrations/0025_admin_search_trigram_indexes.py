# Trigram GIN indexes on the columns the admin searches for substrings (PaperAdmin's
# search_fields, the citing sentence of CitationAdmin's search), so `column ILIKE '%text%'`
# (publishing/admin_search.py) reads the index instead of every row: at 100k papers
# and 1M citations a search read them all (1.9 s and 2.2 s). Paper titles already have one
# (0032). PostgreSQL only; nothing happens on other databases.

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEXES = {
    "paper_byline_trgm": ("citations_paper", "byline"),
    "paper_institution_trgm": ("citations_paper", "institution"),
    "paper_arxiv_id_trgm": ("citations_paper", "arxiv_id"),
    "paper_doi_trgm": ("citations_paper", "doi"),
    "paper_summary_trgm": ("citations_paper", "summary"),
    "citation_context_trgm": ("citations_citation", "context"),
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, (table, column) in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ({column} gin_trgm_ops)"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0024_paper_list_indexes"),
    ]

    operations = [TrigramExtension(), migrations.RunPython(create, drop, elidable=False)]
