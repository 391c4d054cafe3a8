from django.db import migrations


def recount_every_paper(apps, schema_editor):
    """The stored year and quarter counts follow the one rule for a known date now: a
    placeholder date is counted as no date, a year alone in no quarter."""
    from citations.stats.facet_counts import recount_paper_facets

    recount_paper_facets(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0035_remove_paper_cite_key_base"),
    ]

    operations = [
        migrations.RunPython(recount_every_paper, migrations.RunPython.noop),
    ]
