# 0005_scheduled_status_no_sweep to 0006_draft_revision_number, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.

from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone


# From 0005_scheduled_status_no_sweep.

PUBLISHABLE = [
    ("bottlenecks", "Analysis"),
    ("bottlenecks", "Claim"),
    ("bottlenecks", "Dimension"),
    ("bottlenecks", "DiscriminatingTest"),
    ("bottlenecks", "FailureSignal"),
    ("bottlenecks", "Layer"),
    ("bottlenecks", "LoopStage"),
    ("citations", "Citation"),
    ("citations", "Paper"),
    ("notes", "CommunityPost"),
    ("notes", "Question"),
    ("notes", "ResearchNote"),
]


def status_alone(apps, schema_editor):
    """Visibility now follows the status alone, and `manage.py publish_scheduled` makes
    scheduled changes: rows that were "published" with a future time become "scheduled", and
    published rows whose expiry passed become drafts, as that command would leave them."""
    now = timezone.now()
    for app_label, name in PUBLISHABLE:
        rows = apps.get_model(app_label, name)._base_manager
        rows.filter(status="published", published_at__gt=now).update(status="scheduled")
        rows.filter(Q(status="published") | Q(status="scheduled"), unpublish_at__lte=now).update(
            status="draft"
        )


def time_based(apps, schema_editor):
    for app_label, name in PUBLISHABLE:
        rows = apps.get_model(app_label, name)._base_manager
        rows.filter(status="scheduled").update(status="published")


class Migration(migrations.Migration):

    replaces = [('rlscaling', '0005_scheduled_status_no_sweep'), ('rlscaling', '0006_draft_revision_number')]

    dependencies = [
        ('bottlenecks', '0006_status_scheduled'),
        ('citations', '0033_status_scheduled'),
        ('notes', '0007_status_scheduled'),
        ('rlscaling', '0004_tag'),
    ]

    operations = [
        migrations.RunPython(
            code=status_alone,
            reverse_code=time_based,
        ),
        migrations.DeleteModel(
            name='ScheduleSweep',
        ),
        migrations.AddField(
            model_name='draftrevision',
            name='revision',
            field=models.PositiveIntegerField(default=1),
        ),
    ]
