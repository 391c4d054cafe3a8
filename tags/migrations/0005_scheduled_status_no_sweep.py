from django.db import migrations
from django.db.models import Q
from django.utils import timezone

# Every model with the publishing mechanism (publishing.models.Publishable) at this point.
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
    dependencies = [
        ("rlscaling", "0004_tag"),
        ("bottlenecks", "0006_status_scheduled"),
        ("citations", "0033_status_scheduled"),
        ("notes", "0007_status_scheduled"),
    ]

    operations = [
        migrations.RunPython(status_alone, time_based),
        # Up to when the request path had handled scheduled changes: the command needs none.
        migrations.DeleteModel(name="ScheduleSweep"),
    ]
