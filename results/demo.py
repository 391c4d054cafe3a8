"""The demo's reported results (web/demo/results.toml), loaded by `manage.py load_demo`
through the site's demo loader: `load_results(loader, data, claims)` uses the loader's upsert
(create missing rows, set them back on reset) so a second load changes nothing. Saving points
enqueues their series' refit (results/receivers.py); the worker computes the fits. A series'
`claim` is the claim whose figure its points carry: the points are added to its results
(`claims`: the claims by slug, which the site's loader reads, this app sitting below them)."""

from citations.models import Paper
from results.models import Benchmark, LocationKind, Result, Series

BENCHMARK_FIELDS = ["name", "task_family", "metric", "unit", "higher_is_better", "description"]
SERIES_FIELDS = ["name", "model_name", "base_model", "recipe", "task_family", "model_size"]
SERIES_FIELDS += ["reward_type", "source_location"]


def load_results(loader, data, claims=None):
    claims = claims or {}
    benchmarks = {}
    for row in data.get("benchmarks", []):
        values = {name: row.get(name, "") for name in BENCHMARK_FIELDS}
        values["higher_is_better"] = row.get("higher_is_better", True)
        benchmark = loader.upsert(Benchmark, {"slug": row["slug"]}, values | loader.publishing(row))
        if benchmark is not None:
            benchmarks[benchmark.slug] = benchmark
    papers = {
        paper.slug: paper
        for paper in Paper.objects.filter(slug__in=[row["paper"] for row in data.get("series", [])])
    }
    for row in data.get("series", []):
        if row["benchmark"] not in benchmarks or row["paper"] not in papers:
            continue  # an editor removed it: the demo does not bring it back
        values = {name: row.get(name, "") for name in SERIES_FIELDS}
        values |= {"benchmark": benchmarks[row["benchmark"]], "paper": papers[row["paper"]]}
        values["model_params_b"] = row.get("model_params_b")
        series = loader.upsert(Series, {"slug": row["slug"]}, values | loader.publishing(row))
        if not loader.owns_parts(series):
            continue
        claim = claims.get(row.get("claim", ""))
        wanted = [point_values(point) for point in row.get("points", [])]
        stored = [
            {name: getattr(point, name) for name in POINT_FIELDS} for point in series.points.all()
        ]
        # A series' points are a set: the file's order and the database's need not agree.
        if sorted(stored, key=point_order) != sorted(wanted, key=point_order):
            series.points.all().delete()
            for values in wanted:
                point = Result(series=series, **values)
                point.full_clean()
                point.save()
            loader.record(series, ["points"])
        if claim is not None:
            carried = set(claim.results.values_list("pk", flat=True))
            missing = [point for point in series.points.all() if point.pk not in carried]
            if missing:
                claim.results.add(*missing)
                loader.record(claim, ["results"])


POINT_FIELDS = ["location_kind", "location", "value", "uncertainty", "compute_reported"]
POINT_FIELDS += ["compute_unit", "steps", "note"]


def point_order(point):
    compute = point["compute_reported"]
    return (compute is not None, compute or 0, point["value"], point["location"], point["note"])


def point_values(row):
    return {
        "location_kind": row.get("location_kind", LocationKind.SUMMARY.value),
        "location": row["location"],
        "value": row["value"],
        "uncertainty": row.get("uncertainty"),
        "compute_reported": row.get("compute"),
        "compute_unit": row.get("compute_unit", ""),
        "steps": row.get("steps"),
        "note": row.get("note", ""),
    }
