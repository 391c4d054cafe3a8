from django.apps import AppConfig


class CitationsConfig(AppConfig):
    """Papers and the citation edges between them, with role and polarity."""

    name = "citations"
