from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_save


class RlscalingConfig(AppConfig):
    """Site-wide pieces that belong to no domain: home page, feeds, sitemaps, health, demo data."""

    name = "rlscaling"
    verbose_name = "RL Scaling site"

    def ready(self):
        from . import tags  # noqa: F401  the stored tag counts' receivers
        from .caching import connect_signals
        from .dump_tasks import schedule_after_migrate
        from .publishing.editors import sync_editors_group
        from .text import clean_editorial_text

        connect_signals()  # any editorial save makes the cached pages stale
        # Control characters and lone surrogates never reach the database (rlscaling/text.py).
        pre_save.connect(clean_editorial_text, dispatch_uid="rlscaling.clean_editorial_text")

        # After the last app's migrations, when every model permission exists.
        post_migrate.connect(sync_editors_group, dispatch_uid="rlscaling.sync_editors_group")
        # Every migrate (each deploy's, `make run`'s) keeps the daily dump queued, once.
        post_migrate.connect(
            schedule_after_migrate, sender=self, dispatch_uid="rlscaling.schedule_dump"
        )
