"""A series is refitted when its points change (results/tasks.py)."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from results.models import Result
from results.tasks import refit_on_commit


@receiver(post_save, sender=Result, dispatch_uid="results-refit-on-save")
@receiver(post_delete, sender=Result, dispatch_uid="results-refit-on-delete")
def point_changed(sender, instance, raw=False, **kwargs):
    if raw:  # fixtures and restores load rows as they were; `manage.py refit_results` after
        return
    refit_on_commit(instance.series_id)
