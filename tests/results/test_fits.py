"""The fitting pipeline: estimates and interval coverage on curves of known parameters, and
the refusals with their reasons."""

import math

import numpy as np
import pytest
from scipy import stats

from results.fits import LEVEL, fit_power, fit_sigmoid, sigmoid

TRUTH = {"R0": 0.10, "A": 0.60, "B": 1.5, "C_mid": 1000.0}
COMPUTE = np.geomspace(50, 20000, 12)
SEEDS = 40
NOISE = 0.01

# The fits below (about 12 s) are made once: the module runs on one worker.
pytestmark = pytest.mark.xdist_group("sigmoid-fits")


def noisy_curve(seed, truth=TRUTH, noise=NOISE):
    rng = np.random.default_rng(seed)
    clean = sigmoid(
        np.log10(COMPUTE), truth["R0"], truth["A"], truth["B"], math.log10(truth["C_mid"])
    )
    return clean + rng.normal(0, noise, len(COMPUTE))


@pytest.fixture(scope="module")
def sigmoid_fits():
    return [fit_sigmoid(COMPUTE, noisy_curve(seed)) for seed in range(SEEDS)]


# slow (`make test-all`, CI's slow step): the pipeline over many seeded curves, ~30 s of fits.
@pytest.mark.slow
def test_estimates_land_near_the_truth(sigmoid_fits):
    assert not any(fit.refused for fit in sigmoid_fits)
    for name, tolerance in (("A", 0.02), ("B", 0.3), ("R0", 0.03)):
        median = float(np.median([fit.params[name] for fit in sigmoid_fits]))
        assert abs(median - TRUTH[name]) < tolerance, (name, median)
    c_mid = np.median([math.log10(fit.params["C_mid"]) for fit in sigmoid_fits])
    assert abs(c_mid - math.log10(TRUTH["C_mid"])) < 0.1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["A", "B", "C_mid"])
def test_ninety_percent_intervals_cover_the_truth_about_ninety_percent(sigmoid_fits, name):
    covered = sum(
        fit.intervals[name][0] <= TRUTH[name] <= fit.intervals[name][1] for fit in sigmoid_fits
    )
    # A binomial count with p = 0.9 over 40 seeds: the central 99.9% of its outcomes.
    low, high = stats.binom.ppf([0.0005, 0.9995], SEEDS, LEVEL)
    assert low <= covered <= high, f"{name}: {covered}/{SEEDS} intervals held the truth"


def test_intervals_are_the_same_for_the_same_points():
    values = noisy_curve(7)
    assert fit_sigmoid(COMPUTE, values).intervals == fit_sigmoid(COMPUTE, values).intervals


def test_residuals_are_reported_per_point():
    fit = fit_sigmoid(COMPUTE, noisy_curve(3))
    assert len(fit.residuals) == len(COMPUTE)
    assert max(abs(r) for r in fit.residuals) < 5 * NOISE
    assert fit.r_squared > 0.99


def test_extrapolation_to_ten_times_compute_is_given_with_its_interval():
    fit = fit_sigmoid(COMPUTE, noisy_curve(5))
    prediction = fit.params["prediction_10x"]
    assert prediction["compute"] == pytest.approx(10 * COMPUTE[-1])
    low, high = prediction["interval"]
    assert low <= prediction["value"] <= high


def test_too_few_points_are_refused_with_the_reason():
    fit = fit_sigmoid(COMPUTE[:4], noisy_curve(1)[:4])
    assert (
        fit.refused and "at least 5 points" in fit.reason_refused and "has 4" in fit.reason_refused
    )
    assert fit.params == {} and fit.intervals == {}
    assert "at least 5 points" in fit_power(COMPUTE[:4], noisy_curve(1)[:4]).reason_refused


def test_flat_points_are_refused_with_the_reason():
    fit = fit_sigmoid(COMPUTE, np.full(len(COMPUTE), 0.42))
    assert fit.refused and "flat" in fit.reason_refused
    assert "flat" in fit_power(COMPUTE, np.full(len(COMPUTE), 0.42)).reason_refused


def test_points_before_the_bend_are_refused():
    # All points far below C_mid: the rise has barely begun, the asymptote is unseen.
    compute = np.geomspace(1, 300, 8)
    values = sigmoid(np.log10(compute), 0.1, 0.6, 1.5, math.log10(1e4))
    values = values + np.random.default_rng(0).normal(0, 1e-4, 8)
    fit = fit_sigmoid(compute, values)
    assert fit.refused
    assert "do not span the bend" in fit.reason_refused
    assert fit.intervals == {}


def test_noise_without_a_curve_is_a_poor_fit():
    rng = np.random.default_rng(0)
    fit = fit_sigmoid(COMPUTE, 0.5 + rng.normal(0, 0.05, len(COMPUTE)))
    assert fit.refused
    assert "poor fit" in fit.reason_refused.lower() or "bend" in fit.reason_refused


def test_a_power_law_is_recovered():
    rng = np.random.default_rng(2)
    values = 3.0 * COMPUTE**0.25 * (1 + rng.normal(0, 0.005, len(COMPUTE)))
    fit = fit_power(COMPUTE, values)
    assert not fit.refused, fit.reason_refused
    assert fit.params["b"] == pytest.approx(0.25, abs=0.02)
    assert fit.intervals["b"][0] <= 0.25 <= fit.intervals["b"][1]
    assert fit.intervals["a"][0] <= fit.params["a"] <= fit.intervals["a"][1]


def test_a_power_law_refuses_values_at_or_below_zero():
    values = np.linspace(-1, 1, len(COMPUTE))
    assert "positive values" in fit_power(COMPUTE, values).reason_refused
