from django.apps import AppConfig


class CitationsConfig(AppConfig):
    """Papers and the citation edges between them, with role and polarity."""

    name = "citations"

    def ready(self):
        from django.db.models.signals import post_save, pre_save

        from citations.identity import keep_old_slug_as_alias, remember_old_slug
        from citations.models.authors import keep_old_author_slug, remember_old_author_slug

        paper, author = self.get_model("Paper"), self.get_model("Author")
        pre_save.connect(remember_old_slug, sender=paper, dispatch_uid="paper-old-slug")
        post_save.connect(keep_old_slug_as_alias, sender=paper, dispatch_uid="paper-slug-alias")
        pre_save.connect(remember_old_author_slug, sender=author, dispatch_uid="author-old-slug")
        post_save.connect(keep_old_author_slug, sender=author, dispatch_uid="author-slug-alias")
