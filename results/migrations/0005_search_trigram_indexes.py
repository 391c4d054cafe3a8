# Trigram indexes for `/api/v1/results/?search=` on PostgreSQL (ResultQuerySet.matching).
# Django spells `__icontains` as UPPER(column::text) LIKE UPPER('%term%'), so the indexes are
# on that expression. Meta.indexes cannot say them for both databases: a GIN index is
# PostgreSQL only, and SQLite has no operator classes (as citations' 0032).

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEXES = {
    "result_location_upper_trgm": ("results_result", "location"),
    "result_note_upper_trgm": ("results_result", "note"),
    "series_name_upper_trgm": ("results_series", "name"),
}


def on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


FORWARD = [
    f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ((UPPER({column}::text)) gin_trgm_ops)"
    for name, (table, column) in INDEXES.items()
]
BACKWARD = [f"DROP INDEX IF EXISTS {name}" for name in INDEXES]


class Migration(migrations.Migration):
    dependencies = [("results", "0004_page_indexes")]

    operations = [
        TrigramExtension(),
        migrations.RunPython(on_postgresql(FORWARD), on_postgresql(BACKWARD), elidable=False),
    ]
