from django.apps import AppConfig
from django.db.models.signals import post_migrate


class WebConfig(AppConfig):
    """The site's own pages above the apps: home, browse lists, feeds, sitemaps, cards, dump."""

    name = "web"
    verbose_name = "RL Scaling site"

    def ready(self):
        from web.dump_tasks import schedule_after_migrate

        # Every migrate (each deploy's, `make run`'s) keeps the daily dump queued, once.
        post_migrate.connect(schedule_after_migrate, sender=self, dispatch_uid="web.schedule_dump")
