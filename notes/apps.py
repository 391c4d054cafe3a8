from django.apps import AppConfig


class NotesConfig(AppConfig):
    """Editorial writing: research notes, community posts, questions and the guide's copy."""

    name = "notes"
    verbose_name = "Editorial notes"

    def ready(self):
        from django.db.models.signals import post_delete, post_init, post_save

        from notes import signals

        note, tagged = self.get_model("ResearchNote"), self.get_model("TaggedNote")
        post_init.connect(signals.note_loaded, sender=note, dispatch_uid="note-loaded")
        post_save.connect(signals.note_saved, sender=note, dispatch_uid="note-saved")
        for signal in (post_save, post_delete):
            signal.connect(signals.tagging_changed, sender=tagged, dispatch_uid="note-tagging")
