"""The CSV shape of results: the import template's columns (docs/results.md) and, for export,
the same columns followed by what the site derives (names, normalised compute, conversion),
so an export can be imported again as it is."""

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


def _number(value):
    return "" if value is None else f"{value:.10g}"


def csv_row(point):
    series = point.series
    return [
        series.benchmark.slug,
        series.slug,
        series.name,
        series.paper.slug,
        series.model_name,
        _number(series.model_params_b),
        series.base_model,
        series.recipe,
        series.task_family,
        series.model_size,
        series.reward_type,
        point.location_kind,
        point.location,
        _number(point.value),
        _number(point.uncertainty),
        _number(point.compute_reported),
        point.compute_unit,
        "" if point.steps is None else point.steps,
        point.note,
        series.benchmark.name,
        series.paper.title,
        _number(point.gpu_hours),
        _number(point.flops),
        point.conversion,
    ]
