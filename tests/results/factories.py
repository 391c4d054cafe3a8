import factory
import numpy as np

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
