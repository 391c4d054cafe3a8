from django.apps import AppConfig


class CitationsConfig(AppConfig):
    """Papers and the citation edges between them, with role and polarity."""

    name = "citations"

    def ready(self):
        from django.db.models.signals import (
            m2m_changed,
            post_delete,
            post_init,
            post_save,
            pre_save,
        )

        from citations import signals
        from citations.identity import keep_old_slug_as_alias, remember_old_slug
        from citations.models.authors import keep_old_author_slug, remember_old_author_slug
        from publishing.signals import bulk_publication_changed

        paper, author = self.get_model("Paper"), self.get_model("Author")
        pre_save.connect(remember_old_slug, sender=paper, dispatch_uid="paper-old-slug")
        post_save.connect(keep_old_slug_as_alias, sender=paper, dispatch_uid="paper-slug-alias")
        pre_save.connect(remember_old_author_slug, sender=author, dispatch_uid="author-old-slug")
        post_save.connect(keep_old_author_slug, sender=author, dispatch_uid="author-slug-alias")

        # The stored figures (citations/stats/, citations/signals.py).
        citation, tagged = self.get_model("Citation"), self.get_model("TaggedPaper")
        layer = self.apps.get_model("bottlenecks", "Layer")
        for signal, receiver, sender in (
            (post_save, signals.paper_saved, paper),
            (post_delete, signals.paper_deleted, paper),
            (post_save, signals.citation_saved, citation),
            (post_delete, signals.citation_deleted, citation),
            (post_save, signals.tagging_changed, tagged),
            (post_delete, signals.tagging_changed, tagged),
            (m2m_changed, signals.paper_layers_changed, paper.layers.through),
            (post_init, signals.layer_loaded, layer),
            (post_save, signals.layer_saved, layer),
            (post_delete, signals.layer_deleted, layer),
        ):
            signal.connect(
                receiver, sender=sender, dispatch_uid=f"stored-figures-{receiver.__name__}"
            )
        bulk_publication_changed.connect(
            signals.layers_published_in_bulk, dispatch_uid="stored-figures-layers-in-bulk"
        )
