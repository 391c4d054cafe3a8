from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The synthetic corpus generators (`generate_corpus`, `generate_openalex`) for tests and
    benchmarks: installed outside production only (rlscaling/settings.py)."""

    name = "bench"
    verbose_name = "Benchmarks"
