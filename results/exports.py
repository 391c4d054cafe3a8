"""The CSV shape of results: the import template's columns (docs/results.md) and, for export,
the same columns followed by what the site derives (names, normalised compute, conversion),
so an export can be imported again as it is."""

from results.models import COMPUTE_UNITS

# The import template: the columns `manage.py import_results` reads, in order.
IMPORT_COLUMNS = [
    "benchmark",
    "series",
    "series_name",
    "paper",
    "model",
    "model_params_b",
    "base_model",
    "recipe",
    "task_family",
    "model_size",
    "reward_type",
    "location_kind",
    "location",
    "value",
    "uncertainty",
    "compute",
    "compute_unit",
    "steps",
    "note",
]
# Written by exports, ignored by the importer (derived, not entered).
DERIVED_COLUMNS = ["benchmark_name", "paper_title", "gpu_hours", "flops", "conversion"]
CSV_COLUMNS = IMPORT_COLUMNS + DERIVED_COLUMNS


# Where each column is read from: the point's own field, or its run's, benchmark's or paper's.
SOURCES = {
    "benchmark": "series__benchmark__slug",
    "series": "series__slug",
    "series_name": "series__name",
    "paper": "series__paper__slug",
    "model": "series__model_name",
    "model_params_b": "series__model_params_b",
    "base_model": "series__base_model",
    "recipe": "series__recipe",
    "task_family": "series__task_family",
    "model_size": "series__model_size",
    "reward_type": "series__reward_type",
    "location_kind": "location_kind",
    "location": "location",
    "value": "value",
    "uncertainty": "uncertainty",
    "compute": "compute_reported",
    "compute_unit": "compute_unit",
    "steps": "steps",
    "note": "note",
    "benchmark_name": "series__benchmark__name",
    "paper_title": "series__paper__title",
    "gpu_hours": "gpu_hours",
    "flops": "flops",
}


def _cell(value):
    if value is None:
        return ""
    return f"{value:.10g}" if isinstance(value, float) else value


def csv_rows(points):
    """The rows of `points` (a queryset, in its order) under CSV_COLUMNS, read as values: a
    benchmark's 5,000 points as model instances took 0.4 s, most of it building objects."""
    unit_at = list(SOURCES).index("compute_unit")
    for values in points.values_list(*SOURCES.values()):
        conversion = COMPUTE_UNITS.get(values[unit_at], ("", 0, ""))[2]
        yield [*(_cell(value) for value in values), conversion]
