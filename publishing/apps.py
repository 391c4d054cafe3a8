from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_save


class PublishingConfig(AppConfig):
    """Drafts, publication, history and draft revisions, shared by every editorial model.

    Its table (DraftRevision) keeps the `rlscaling` app label it was created under
    (tags/migrations), so no table moved. It announces changes readers may see
    (publishing/signals.py); the page cache listens."""

    name = "publishing"
    verbose_name = "Publishing"

    def ready(self):
        from publishing import signals
        from publishing.editors import clean_editorial_text, sync_after_last_app

        pre_save.connect(clean_editorial_text, dispatch_uid="publishing.clean_editorial_text")

        signals.connect()

        post_migrate.connect(sync_after_last_app, dispatch_uid="publishing.sync_editors_group")
