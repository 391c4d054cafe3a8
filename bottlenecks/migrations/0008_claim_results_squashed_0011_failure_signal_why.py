# 0008_claim_results to 0011_failure_signal_why, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.

import django.core.validators
from django.db import migrations, models
from django.db.models import Exists, OuterRef


# From 0010_claim_reported_on_precision.

def mark_placeholder_dates_unknown(apps, schema_editor):
    """A claim that typed the placeholder of one of its papers whose date is not known did not
    give the source's date: keep the value (it orders the lists) and show it nowhere."""
    Claim = apps.get_model("bottlenecks", "Claim")
    Paper = apps.get_model("citations", "Paper")
    placeholders = Paper.objects.filter(
        date_precision="unknown",
        publication_date__isnull=False,
        claims=OuterRef("pk"),
        publication_date=OuterRef("reported_on"),
    )
    Claim.objects.filter(Exists(placeholders)).update(reported_on_precision="unknown")


class Migration(migrations.Migration):

    replaces = [('bottlenecks', '0008_claim_results'), ('bottlenecks', '0009_discriminating_test_series'), ('bottlenecks', '0010_claim_reported_on_precision'), ('bottlenecks', '0011_failure_signal_why')]

    dependencies = [
        ('bottlenecks', '0007_claim_status_evidence_test_outcomes'),
        ('citations', '0040_paper_dates_cover_status'),
        ('results', '0002_points_without_compute_first'),
    ]

    operations = [
        migrations.AddField(
            model_name='claim',
            name='results',
            field=models.ManyToManyField(blank=True, help_text='The results (points of a series) that carry its figure.', related_name='claims', to='results.result'),
        ),
        migrations.AddField(
            model_name='claim',
            name='tolerance',
            field=models.FloatField(blank=True, help_text="How far, relative to its own result, another paper's comparable result may be and still agree with it. Empty: results propose no status.", null=True, validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(100)], verbose_name='tolerance (%)'),
        ),
        migrations.AddField(
            model_name='historicalclaim',
            name='tolerance',
            field=models.FloatField(blank=True, help_text="How far, relative to its own result, another paper's comparable result may be and still agree with it. Empty: results propose no status.", null=True, validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(100)], verbose_name='tolerance (%)'),
        ),
        migrations.AddField(
            model_name='discriminatingtest',
            name='series',
            field=models.ManyToManyField(blank=True, help_text='Runs (result series) the editors choose as evidence for it: listed first under the test, whatever their layer or setting.', related_name='discriminating_tests', to='results.series', verbose_name='runs'),
        ),
        migrations.AddField(
            model_name='claim',
            name='reported_on_precision',
            field=models.CharField(choices=[('day', 'Day'), ('month', 'Month'), ('year', 'Year'), ('unknown', "Unknown: the date only keeps the editor's order")], db_default='day', default='day', help_text='How much of the date the source states: a day, a month or a year.', max_length=10, verbose_name='precision of the date'),
        ),
        migrations.AddField(
            model_name='historicalclaim',
            name='reported_on_precision',
            field=models.CharField(choices=[('day', 'Day'), ('month', 'Month'), ('year', 'Year'), ('unknown', "Unknown: the date only keeps the editor's order")], db_default='day', default='day', help_text='How much of the date the source states: a day, a month or a year.', max_length=10, verbose_name='precision of the date'),
        ),
        migrations.RunPython(
            code=mark_placeholder_dates_unknown,
            reverse_code=migrations.RunPython.noop,
        ),
        migrations.AddField(
            model_name='failuresignal',
            name='why',
            field=models.TextField(blank=True, help_text="Why it points to its layers: what in each layer could give this observation. Shown to readers beside the signal's layers."),
        ),
        migrations.AddField(
            model_name='historicalfailuresignal',
            name='why',
            field=models.TextField(blank=True, help_text="Why it points to its layers: what in each layer could give this observation. Shown to readers beside the signal's layers."),
        ),
    ]
