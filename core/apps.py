from django.apps import AppConfig
from django.db.models.signals import pre_save


class CoreConfig(AppConfig):
    """What every app builds on: Markdown, text cleaning, pagination, headers, health."""

    name = "core"
    verbose_name = "Core"

    def ready(self):
        from core.slugs import normalise_slugs

        # Every model's slug fields, whichever app defines them (core imports none of them).
        pre_save.connect(normalise_slugs, dispatch_uid="core.normalise_slugs")
