import csv
import io

import factory
import numpy as np

from results.exports import IMPORT_COLUMNS
from results.fits import sigmoid
from results.models import Benchmark, Result, Series
from tests.factories import PaperFactory, PublishedFactory


class BenchmarkFactory(PublishedFactory):
    name = factory.Sequence(lambda n: f"Benchmark {n}")
    slug = factory.Sequence(lambda n: f"benchmark-{n}")
    metric = "pass@1"
    unit = "%"

    class Meta:
        model = Benchmark


class SeriesFactory(PublishedFactory):
    name = factory.Sequence(lambda n: f"Run {n}")
    slug = factory.Sequence(lambda n: f"run-{n}")
    paper = factory.SubFactory(PaperFactory)
    benchmark = factory.SubFactory(BenchmarkFactory)
    model_name = "Test-8B"
    recipe = "GRPO with a test recipe."
    task_family = "math"
    model_size = "small"
    reward_type = "verifiable"

    class Meta:
        model = Series


class ResultFactory(factory.django.DjangoModelFactory):
    series = factory.SubFactory(SeriesFactory)

    class Params:
        # A point is a draft with its run.
        draft = factory.Trait(series=factory.SubFactory(SeriesFactory, draft=True))

    location_kind = "figure"
    location = "Figure 1"
    value = 50.0
    compute_reported = 1000.0
    compute_unit = "gpu_hours"

    class Meta:
        model = Result


TRUTH = {"R0": 10.0, "A": 60.0, "B": 1.5, "C_mid": 1000.0}


def curve_points(series, count=10, truth=TRUTH, low=50, high=20000):
    """Points on a known sigmoid (no noise), as a series' results."""
    compute = np.geomspace(low, high, count)
    values = sigmoid(
        np.log10(compute), truth["R0"], truth["A"], truth["B"], np.log10(truth["C_mid"])
    )
    return [
        ResultFactory(series=series, compute_reported=float(c), value=float(v), location=f"Fig {i}")
        for i, (c, v) in enumerate(zip(compute, values, strict=True))
    ]


def import_row(**values):
    """One row of a results CSV (the import template's columns), a point of `scalerl-8b` on
    `aime` from `scalerl` unless `values` say otherwise."""
    base = {
        "benchmark": "aime",
        "series": "scalerl-8b",
        "series_name": "ScaleRL 8B",
        "paper": "scalerl",
        "location_kind": "figure",
        "location": "Figure 1",
        "value": "40",
        "compute": "100",
        "compute_unit": "gpu_hours",
    }
    base.update(values)
    line = io.StringIO()
    csv.writer(line, lineterminator="").writerow([base.get(c, "") for c in IMPORT_COLUMNS])
    return line.getvalue()


def import_csv(*rows):
    return "\n".join([",".join(IMPORT_COLUMNS), *rows]) + "\n"
