# Statistics on the expressions the hub explorer's institution filter compares
# (`UPPER(institution) LIKE '%…%' OR UPPER(byline) LIKE '%…%'`, Django's icontains). Without
# them PostgreSQL guesses 0.5% of papers match any substring; at 100k papers "University"
# matches 14%, so it read every paper that matched and sorted them (117 ms) instead of walking
# the hub's citing papers newest first until a page is full (2 ms). PostgreSQL only.

from django.db import migrations

STATISTICS = "paper_upper_institution_byline"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE STATISTICS IF NOT EXISTS {STATISTICS} "
        "ON (UPPER(institution::text)), (UPPER(byline::text)) FROM citations_paper"
    )
    schema_editor.execute("ANALYZE citations_paper")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP STATISTICS IF EXISTS {STATISTICS}")


class Migration(migrations.Migration):
    dependencies = [("citations", "0030_paper_cite_key_base")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
