"""Scaling curves fitted to a series of (compute, value) points, with bootstrap intervals.

Two curves:

- the ScaleRL sigmoid, R(C) = R0 + (A − R0) / (1 + (C_mid / C)^B): A is the asymptote, B the
  efficiency exponent, C_mid the compute at which half the gain from R0 to A is reached;
- a power law, R(C) = a · C^b.

Both are least-squares fits by SciPy's `curve_fit` within bounds. C_mid is fitted on a log10
scale (compute spans decades). The intervals come from a residual bootstrap: the residuals of
the fit, rescaled for the parameters fitted (√(n / (n − p))), are resampled onto the fitted
curve `BOOTSTRAP_RESAMPLES` times with a seeded generator, each resample is refitted, and the
`LEVEL` interval is the estimate ± Student's t quantile (n − p degrees of freedom) × the
standard deviation of the refitted values (C_mid on its log scale). Same points, same
intervals.

A fit is refused, with the reason, when there are fewer than `MIN_POINTS` points, when the
points are flat, when they do not span the bend (C_mid outside the measured compute: A would be
a guess) or when the curve explains less than `MIN_R_SQUARED` of the variance."""

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import stats
from scipy.optimize import OptimizeWarning, curve_fit

MIN_POINTS = 5
MIN_R_SQUARED = 0.9
# Points whose values move less than this share of their magnitude have nothing to fit.
FLAT_SHARE = 0.01
BOOTSTRAP_RESAMPLES = 200
LEVEL = 0.9
SEED = 20251016  # any fixed number: a refit of the same points gives the same intervals
MAX_EVALUATIONS = 5000


@dataclass
class FitOutcome:
    kind: str
    params: dict = field(default_factory=dict)
    intervals: dict = field(default_factory=dict)
    residuals: list = field(default_factory=list)
    r_squared: float | None = None
    compute_range: list = field(default_factory=list)
    points_count: int = 0
    reason_refused: str = ""
    # [[compute, fitted value, low, high], ...] over the measured compute: the curve and its
    # pointwise LEVEL band (central share of the bootstrap curves), for charts.
    band: list = field(default_factory=list)

    @property
    def refused(self):
        return bool(self.reason_refused)


def sigmoid(log_c, r0, a, b, log_c_mid):
    """R(C) with C given as log10(C): (C_mid / C)^B = 10^(B · (log C_mid − log C))."""
    exponent = np.clip(b * (log_c_mid - log_c), -300, 300)
    return r0 + (a - r0) / (1.0 + np.power(10.0, exponent))


def _power(log_c_rel, a_ref, b):
    return a_ref * np.power(10.0, b * log_c_rel)


def r_squared(values, predicted):
    total = float(np.sum((values - values.mean()) ** 2))
    if total == 0:
        return 0.0
    return 1.0 - float(np.sum((values - predicted) ** 2)) / total


def _clean(compute, values):
    compute = np.asarray(compute, dtype=float)
    values = np.asarray(values, dtype=float)
    order = np.argsort(compute)
    return compute[order], values[order]


def _precheck(compute, values):
    """The reason to refuse before fitting, or ""."""
    n = len(compute)
    if n < MIN_POINTS:
        return (
            f"Too few points: a fit needs at least {MIN_POINTS} points with compute, "
            f"this series has {n}."
        )
    if np.any(compute <= 0) or not np.all(np.isfinite(compute)):
        return "Every point needs a positive compute to be placed on a log axis."
    if len(np.unique(compute)) < MIN_POINTS:
        return f"Too few distinct compute values: a fit needs {MIN_POINTS}."
    spread = float(np.ptp(values))
    if spread <= FLAT_SHARE * max(float(np.max(np.abs(values))), 1e-12):
        return (
            "The points are flat: the values move by less than "
            f"{FLAT_SHARE:.0%} of their size, so there is no curve to fit."
        )
    return ""


def _bootstrap(model, x, fitted, residuals, best, bounds, rng, resamples):
    n, p = len(x), len(best)
    scale = math.sqrt(n / (n - p)) if n > p else 1.0
    centred = (residuals - residuals.mean()) * scale
    draws = []
    for _ in range(resamples):
        sample = fitted + rng.choice(centred, size=n, replace=True)
        try:
            params, _ = curve_fit(model, x, sample, p0=best, bounds=bounds, maxfev=MAX_EVALUATIONS)
        except (RuntimeError, ValueError):
            continue
        draws.append(params)
    return np.array(draws)


BAND_POINTS = 40


def _band(model, x, best, draws, transform_x=lambda v: 10**v):
    grid = np.linspace(x[0], x[-1], BAND_POINTS)
    curves = np.array([model(grid, *params) for params in draws])
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(curves, [tail, 100 - tail], axis=0)
    fitted = model(grid, *best)
    return [
        [float(transform_x(g)), float(f), float(lo), float(hi)]
        for g, f, lo, hi in zip(grid, fitted, low, high, strict=True)
    ]


def _interval(estimate, draws, column, dof, level=LEVEL, transform=None):
    """The estimate ± Student's t quantile × the bootstrap standard error (on the fitted scale,
    then mapped by `transform`): with a handful of points the plain percentile interval of the
    draws is too narrow (it covered the truth about 78% of the time at 90% in our checks)."""
    half = stats.t.ppf(1 - (1 - level) / 2, max(dof, 1)) * float(np.std(draws[:, column], ddof=1))
    low, high = estimate - half, estimate + half
    if transform is not None:
        low, high = transform(low), transform(high)
    return [float(low), float(high)]


def fit_sigmoid(compute, values, resamples=BOOTSTRAP_RESAMPLES, seed=SEED):
    """The ScaleRL sigmoid fitted to the points, or the reason it is refused."""
    compute, values = _clean(compute, values)
    outcome = FitOutcome(kind="sigmoid", points_count=len(compute))
    reason = _precheck(compute, values)
    if reason:
        outcome.reason_refused = reason
        return outcome
    x = np.log10(compute)
    outcome.compute_range = [float(compute[0]), float(compute[-1])]
    spread = float(np.ptp(values))
    low_y, high_y = float(values.min()) - 2 * spread, float(values.max()) + 2 * spread
    bounds = ([low_y, low_y, 0.05, x[0] - 2], [high_y, high_y, 10.0, x[-1] + 2])
    start = [values[0], values[-1], 1.0, float(np.median(x))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        try:
            best, _ = curve_fit(sigmoid, x, values, p0=start, bounds=bounds, maxfev=MAX_EVALUATIONS)
        except (RuntimeError, ValueError):
            outcome.reason_refused = (
                "No sigmoid fits these points: the fit did not converge (a poor fit)."
            )
            return outcome
        fitted = sigmoid(x, *best)
        residuals = values - fitted
        outcome.residuals = [float(r) for r in residuals]
        outcome.r_squared = r_squared(values, fitted)
        r0, a, b, log_c_mid = (float(v) for v in best)
        outcome.params = {"R0": r0, "A": a, "B": b, "C_mid": 10**log_c_mid}
        if outcome.r_squared < MIN_R_SQUARED:
            outcome.reason_refused = (
                f"Poor fit: the sigmoid explains {outcome.r_squared:.0%} of the variance, "
                f"below the {MIN_R_SQUARED:.0%} a fit must reach."
            )
            return outcome
        if not x[0] <= log_c_mid <= x[-1]:
            outcome.reason_refused = (
                "The points do not span the bend: the curve's midpoint C_mid "
                f"({10**log_c_mid:.3g}) lies outside the measured compute "
                f"({compute[0]:.3g} to {compute[-1]:.3g}), so the asymptote would be a guess."
            )
            return outcome
        rng = np.random.default_rng(seed)
        draws = _bootstrap(sigmoid, x, fitted, residuals, best, bounds, rng, resamples)
    if len(draws) < resamples // 2:
        outcome.reason_refused = "Most bootstrap refits failed: the intervals would mean little."
        return outcome
    dof = len(x) - len(best)
    outcome.intervals = {
        "R0": _interval(r0, draws, 0, dof),
        "A": _interval(a, draws, 1, dof),
        "B": _interval(b, draws, 2, dof),
        "C_mid": _interval(log_c_mid, draws, 3, dof, transform=lambda v: 10**v),
    }
    outcome.band = _band(sigmoid, x, best, draws)
    # Ten times the largest measured compute: an extrapolation, and labelled so wherever shown.
    beyond = float(x[-1] + 1)
    predictions = sigmoid(beyond, draws[:, 0], draws[:, 1], draws[:, 2], draws[:, 3])
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(predictions, [tail, 100 - tail])
    outcome.params["prediction_10x"] = {
        "compute": 10**beyond,
        "value": float(sigmoid(beyond, *best)),
        "interval": [float(low), float(high)],
    }
    return outcome


def fit_power(compute, values, resamples=BOOTSTRAP_RESAMPLES, seed=SEED):
    """A power law R = a · C^b fitted to the points, or the reason it is refused."""
    compute, values = _clean(compute, values)
    outcome = FitOutcome(kind="power", points_count=len(compute))
    reason = _precheck(compute, values)
    if not reason and np.any(values <= 0):
        reason = "A power law needs positive values; some points are zero or negative."
    if reason:
        outcome.reason_refused = reason
        return outcome
    outcome.compute_range = [float(compute[0]), float(compute[-1])]
    # Relative to the geometric mean of the compute, so a and b are not tied to the unit's size.
    log_ref = float(np.mean(np.log10(compute)))
    x = np.log10(compute) - log_ref
    bounds = ([1e-300, -10.0], [np.inf, 10.0])
    start = [float(np.exp(np.mean(np.log(values)))), 0.1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        try:
            best, _ = curve_fit(_power, x, values, p0=start, bounds=bounds, maxfev=MAX_EVALUATIONS)
        except (RuntimeError, ValueError):
            outcome.reason_refused = (
                "No power law fits these points: the fit did not converge (a poor fit)."
            )
            return outcome
        fitted = _power(x, *best)
        residuals = values - fitted
        outcome.residuals = [float(r) for r in residuals]
        outcome.r_squared = r_squared(values, fitted)
        a_ref, b = float(best[0]), float(best[1])
        outcome.params = {"a": a_ref * 10 ** (-b * log_ref), "b": b}
        if outcome.r_squared < MIN_R_SQUARED:
            outcome.reason_refused = (
                f"Poor fit: the power law explains {outcome.r_squared:.0%} of the variance, "
                f"below the {MIN_R_SQUARED:.0%} a fit must reach."
            )
            return outcome
        rng = np.random.default_rng(seed)
        draws = _bootstrap(_power, x, fitted, residuals, best, bounds, rng, resamples)
    if len(draws) < resamples // 2:
        outcome.reason_refused = "Most bootstrap refits failed: the intervals would mean little."
        return outcome
    outcome.band = _band(_power, x, best, draws, transform_x=lambda v: 10 ** (v + log_ref))
    dof = len(x) - len(best)
    log_a = np.log10(draws[:, 0]) - draws[:, 1] * log_ref
    outcome.intervals = {
        "a": _interval(
            math.log10(outcome.params["a"]), log_a[:, None], 0, dof, transform=lambda v: 10**v
        ),
        "b": _interval(b, draws, 1, dof),
    }
    return outcome


FITTERS = {"sigmoid": fit_sigmoid, "power": fit_power}
