from django.apps import AppConfig


class ResultsConfig(AppConfig):
    """Reported results as data: benchmarks, series of points as RL compute grows, and the
    scaling curves fitted to them. Sits below `evidence` (claims may cite results) and above
    `citations` (every series comes from a paper)."""

    name = "results"
    verbose_name = "Results"

    def ready(self):
        from results import receivers  # noqa: F401  (refit a series when its points change)
