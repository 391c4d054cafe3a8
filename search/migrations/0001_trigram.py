# Typo tolerance and substring matches for the site search (search/engine.py) on PostgreSQL:
# the pg_trgm extension and a trigram GIN index on paper titles, which serves both ILIKE
# '%text%' (search as you type, partial words) and the `<%` word-similarity operator (close
# spellings), so neither scans 100,000 titles. Nothing happens on other databases.

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

FORWARD = "CREATE INDEX IF NOT EXISTS paper_title_trgm ON citations_paper USING gin (title gin_trgm_ops)"
BACKWARD = "DROP INDEX IF EXISTS paper_title_trgm"


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("citations", "0009_search_document_set_based")]

    operations = [
        TrigramExtension(),
        migrations.RunPython(on_postgresql(FORWARD), on_postgresql(BACKWARD), elidable=False),
    ]
