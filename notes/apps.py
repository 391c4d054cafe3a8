from django.apps import AppConfig


class NotesConfig(AppConfig):
    """Editorial writing: research notes, community posts, questions and the guide's copy."""

    name = "notes"
    verbose_name = "Editorial notes"
