# Django spells `title__icontains`, `__iexact` and `__istartswith` on PostgreSQL as
# UPPER("title"::text) LIKE/= UPPER(...), an expression the trigram index of 0001 (on the bare
# column) cannot serve: every site search ran its title arm as a sequential scan of the paper
# table. Two indexes on that expression: trigrams for substrings ('%KIMI%'), and a
# text_pattern_ops b-tree for exact titles and title prefixes (search suggestions).
# Nothing happens on other databases.

from django.db import migrations

TITLE = "(UPPER(title::text))"
INDEXES = {
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
    dependencies = [("search", "0001_trigram")]

    operations = [
        migrations.RunPython(on_postgresql(FORWARD), on_postgresql(BACKWARD), elidable=False),
    ]
