from django.apps import AppConfig


class BottlenecksConfig(AppConfig):
    """The framework: dimensions, the learning loop, the layers where scaling breaks, the map."""

    name = "bottlenecks"
    verbose_name = "Bottleneck framework"
