# Papers sort newest first with undated papers last on every database (Paper.Meta.ordering and
# PaperQuerySet.newest_first()). On PostgreSQL a plain DESC puts NULLs first, so the order needs
# its own index there (SQLite, where NULLs sort last in a DESC anyway, uses paper_newest).

from django.db import migrations, models

INDEX = "paper_newest_nulls_last"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f'CREATE INDEX IF NOT EXISTS "{INDEX}" ON "citations_paper" '
        '("publication_date" DESC NULLS LAST, "id" DESC)'
    )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f'DROP INDEX IF EXISTS "{INDEX}"')


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0006_identifier_fields"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="paper",
            options={
                "ordering": (
                    models.OrderBy(models.F("publication_date"), descending=True, nulls_last=True),
                    models.OrderBy(models.F("id"), descending=True),
                )
            },
        ),
        migrations.RunPython(create_index, drop_index, elidable=False),
    ]
