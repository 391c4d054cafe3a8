# Indexes for the orderings the public pages use. The research index sorts newest first with
# undated papers last (publication_date DESC NULLS LAST, id DESC); SQLite cannot declare NULLS
# LAST in an index, so that partial index is created on PostgreSQL only and is a no-op elsewhere.

from django.db import migrations, models

RESEARCH_INDEX = "paper_research_index"


def create_research_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f'CREATE INDEX IF NOT EXISTS "{RESEARCH_INDEX}" ON "citations_paper" '
        '("publication_date" DESC NULLS LAST, "id" DESC) '
        "WHERE \"in_research_index\" AND \"status\" = 'published'"
    )


def drop_research_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f'DROP INDEX IF EXISTS "{RESEARCH_INDEX}"')


class Migration(migrations.Migration):

    dependencies = [
        ('citations', '0001_initial'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='paper',
            index=models.Index(fields=['-publication_date', '-id'], name='paper_newest'),
        ),
        migrations.RunPython(create_research_index, drop_research_index, elidable=False),
    ]
