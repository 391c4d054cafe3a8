# paper_dates_cover gains the status: the public rule reads it on every citing paper, so a
# hub's edges ordered by their citing papers' dates (the explorer, a list download) probe the
# index alone instead of one heap row per edge (decision 0016). PostgreSQL only, like 0020.

from django.db import migrations

OLD = '"citations_paper" ("id") INCLUDE ("publication_date", "date_precision")'
NEW = '"citations_paper" ("id") INCLUDE ("publication_date", "date_precision", "status")'


def replace(definition):
    def operation(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute('DROP INDEX IF EXISTS "paper_dates_cover"')
        schema_editor.execute(f'CREATE INDEX "paper_dates_cover" ON {definition}')

    return operation


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0039_paper_abstract_bounded"),
    ]

    operations = [migrations.RunPython(replace(NEW), replace(OLD), elidable=False)]
