"""A reproducible synthetic corpus of reported results, for scale tests of the results pages:
benchmarks, series (marked `synthetic`, never in the demo) and their points, drawn from
ScaleRL sigmoids with noise. `generate_results_corpus` is the way in.

Every number is made up and every row says so: benchmark names start "Synthetic", series
carry `synthetic=True`, points' locations read "synthetic". Papers are the existing published
ones (run `generate_corpus` or `load_demo` first). Rows are written with `bulk_create` (no
history, no refit on save): `manage.py refit_results --enqueue` queues their fits."""

import random

from django.db import transaction
from django.utils import timezone

from citations.models import Paper
from publishing.models import Status
from results.models import Benchmark, LocationKind, Result, Series

FAMILIES = ["math", "code", "agentic", "multimodal", "general"]


def generate(benchmarks, series, points, seed=0, prefix="synthetic", widest=0, batch_size=5000):
    """Write the corpus; returns (benchmarks, series, points) written. The first benchmark
    holds `widest` series (a benchmark page at the size the performance contract names), the
    others share the rest evenly."""
    rng = random.Random(seed)
    papers = list(Paper.objects.published().order_by("pk").values_list("pk", flat=True)[:5000])
    if not papers:
        raise ValueError("No published paper to attach series to: load papers first.")
    now = timezone.now()
    published = {"status": Status.PUBLISHED, "published_at": now}
    with transaction.atomic():
        bench_rows = Benchmark.objects.bulk_create(
            [
                Benchmark(
                    name=f"Synthetic benchmark {i}",
                    slug=f"{prefix}-benchmark-{i}",
                    task_family=FAMILIES[i % len(FAMILIES)],
                    metric="synthetic score",
                    unit="%",
                    **published,
                )
                for i in range(benchmarks)
            ],
            batch_size=batch_size,
        )
        series_rows = Series.objects.bulk_create(
            [
                Series(
                    name=f"Synthetic run {j}",
                    slug=f"{prefix}-run-{j}",
                    paper_id=papers[j % len(papers)],
                    benchmark=bench_rows[benchmark_index(j, len(bench_rows), widest)],
                    recipe="Synthetic: drawn from a sigmoid with noise.",
                    task_family=FAMILIES[j % len(FAMILIES)],
                    synthetic=True,
                    **published,
                )
                for j in range(series)
            ],
            batch_size=batch_size,
        )
        per_series = max(points // max(series, 1), 1)
        written = 0
        batch = []
        for run in series_rows:
            r0, a = rng.uniform(0, 30), rng.uniform(40, 95)
            b, log_mid = rng.uniform(0.8, 2.5), rng.uniform(2, 4)
            for k in range(per_series):
                log_c = 1 + 4 * k / max(per_series - 1, 1)
                value = r0 + (a - r0) / (1 + 10 ** (b * (log_mid - log_c)))
                compute = 10**log_c
                batch.append(
                    Result(
                        series=run,
                        location_kind=LocationKind.FIGURE,
                        location="synthetic",
                        value=round(value + rng.gauss(0, 0.5), 3),
                        compute_reported=compute,
                        compute_unit="gpu_hours",
                        gpu_hours=compute,
                        compute_sort=compute,
                    )
                )
            if len(batch) >= batch_size:
                Result.objects.bulk_create(batch, batch_size=batch_size)
                written += len(batch)
                batch = []
        Result.objects.bulk_create(batch, batch_size=batch_size)
        written += len(batch)
    return len(bench_rows), len(series_rows), written


def benchmark_index(j, benchmarks, widest):
    """The benchmark of the j-th series: the first `widest` go to the first benchmark, the
    rest round the others (round all of them when `widest` is 0)."""
    if not widest:
        return j % benchmarks
    if j < widest or benchmarks == 1:
        return 0
    return 1 + (j - widest) % (benchmarks - 1)


def remove(prefix="synthetic"):
    with transaction.atomic():
        Series.objects.filter(slug__startswith=f"{prefix}-run-", synthetic=True).delete()
        Benchmark.objects.filter(slug__startswith=f"{prefix}-benchmark-").delete()
