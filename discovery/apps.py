from django.apps import AppConfig


class DiscoveryConfig(AppConfig):
    """Around one paper: similar papers, prior and derivative works, its neighbourhood graph."""

    name = "discovery"
    verbose_name = "Discovery"

    def ready(self):
        from django.db.models.signals import post_delete, post_save, pre_save

        from discovery import receivers
        from publishing.signals import bulk_publication_changed

        citation, paper = "citations.Citation", "citations.Paper"
        pre_save.connect(
            receivers.edge_before_save, sender=citation, dispatch_uid="discovery-edge-before"
        )
        post_save.connect(receivers.edge_saved, sender=citation, dispatch_uid="discovery-edge")
        post_delete.connect(
            receivers.edge_deleted, sender=citation, dispatch_uid="discovery-edge-gone"
        )
        pre_save.connect(
            receivers.paper_before_save, sender=paper, dispatch_uid="discovery-paper-before"
        )
        post_save.connect(receivers.paper_saved, sender=paper, dispatch_uid="discovery-paper")
        bulk_publication_changed.connect(
            receivers.publication_changed, dispatch_uid="discovery-bulk-publication"
        )
