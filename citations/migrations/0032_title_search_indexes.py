# The site search's title indexes on PostgreSQL, kept by the app that owns the table (they
# were created by the search app's migrations before; IF NOT EXISTS keeps databases that
# ran those unchanged). Django's Meta.indexes cannot say them for both databases: a GIN
# index is PostgreSQL only, and SQLite has no operator classes.
#
# - paper_title_trgm: trigrams on the bare title, for the `<%` word similarity (close
#   spellings) and ILIKE '%text%' (search as you type).
# - paper_title_upper_trgm, paper_title_upper_pattern: Django spells `title__icontains`,
#   `__iexact` and `__istartswith` as UPPER("title"::text) LIKE/= UPPER(...), an expression the
#   bare-column index cannot serve: trigrams for substrings, a text_pattern_ops b-tree for
#   exact titles and prefixes (search suggestions).

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

TITLE = "(UPPER(title::text))"
INDEXES = {
    "paper_title_trgm": "USING gin (title gin_trgm_ops)",
    "paper_title_upper_trgm": f"USING gin ({TITLE} gin_trgm_ops)",
    "paper_title_upper_pattern": f"({TITLE} text_pattern_ops)",
}


def on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


FORWARD = [
    f"CREATE INDEX IF NOT EXISTS {name} ON citations_paper {definition}"
    for name, definition in INDEXES.items()
]
BACKWARD = [f"DROP INDEX IF EXISTS {name}" for name in INDEXES]


class Migration(migrations.Migration):
    dependencies = [("citations", "0031_explorer_filter_statistics")]

    operations = [
        TrigramExtension(),
        migrations.RunPython(on_postgresql(FORWARD), on_postgresql(BACKWARD), elidable=False),
    ]
