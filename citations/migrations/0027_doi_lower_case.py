# DOIs are matched exactly (lookups, ?doi=, by-doi/), on the unique index, instead of
# UPPER(doi) = UPPER(%s) over every paper: a DOI saved before DoiField lower-cased every save
# (a path that skipped full_clean()) is lower-cased here. Both databases.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0026_import_chunks"),
    ]

    operations = [
        migrations.RunSQL(
            'UPDATE "citations_paper" SET "doi" = LOWER("doi") WHERE "doi" <> LOWER("doi")',
            migrations.RunSQL.noop,
            # Not elidable: the squash of 0017-0042 also runs on databases with papers.
            elidable=False,
        ),
    ]
