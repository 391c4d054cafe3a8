"""Fits are computed on the task queue (`manage.py db_worker`), never while a page renders:
saving or deleting a point enqueues `refit_series` once the transaction commits, and pages read
the stored `Fit` rows."""

from django.db import transaction
from django_tasks import task

from results.models import Fit, Series, points_digest


def refit(series):
    """Fit every curve to the series' points, unless the stored fits were made from the same
    points; returns the fits written (none when nothing changed)."""
    # SciPy (about 75 MB with NumPy) is loaded where fits are made, the task worker, and not in
    # every web worker that imports this module to enqueue a refit (docs/decisions/0001).
    from results.fits import FITTERS

    points = [p for p in series.points.all() if p.compute is not None]
    axes = {p.compute_axis for p in points}
    digest = points_digest(points)
    stored = {fit.kind: fit for fit in series.fits.all()}
    if (
        stored
        and all(fit.digest == digest for fit in stored.values())
        and len(stored) == len(FITTERS)
    ):
        return []
    written = []
    with transaction.atomic():
        for kind, fitter in FITTERS.items():
            fit = stored.get(kind) or Fit(series=series, kind=kind)
            if len(axes) > 1:
                # GPU-hours are not converted to FLOPs (results/models.py COMPUTE_UNITS).
                values = {
                    "axis": "",
                    "params": {},
                    "intervals": {},
                    "residuals": [],
                    "band": [],
                    "r_squared": None,
                    "compute_range": [],
                    "points_count": len(points),
                    "reason_refused": (
                        "The points give compute in different units (GPU-hours and FLOPs) and "
                        "no conversion between them is stated, so they share no axis."
                    ),
                }
            else:
                outcome = fitter([p.compute for p in points], [p.value for p in points])
                values = {
                    "axis": next(iter(axes), ""),
                    "params": outcome.params,
                    "intervals": outcome.intervals,
                    "residuals": outcome.residuals,
                    "band": outcome.band,
                    "r_squared": outcome.r_squared,
                    "compute_range": outcome.compute_range,
                    "points_count": outcome.points_count,
                    "reason_refused": outcome.reason_refused,
                }
            for name, value in values.items():
                setattr(fit, name, value)
            fit.digest = digest
            fit.save()
            written.append(fit)
    return written


@task()
def refit_series(series_id):
    series = Series.objects.filter(pk=series_id).first()
    if series is None:  # deleted before the worker came to it
        return 0
    return len(refit(series))


class _Refit:
    """The on-commit callback of one series' refit; it knows whether it has run yet."""

    def __init__(self, series_id):
        self.series_id = series_id
        self.done = False

    def __call__(self):
        self.done = True
        refit_series.enqueue(self.series_id)


def refit_on_commit(series_id):
    """Enqueue one refit of the series when the current transaction commits: once, however
    many of its points the transaction changes (an import saves hundreds)."""
    connection = transaction.get_connection()
    for entry in connection.run_on_commit:
        pending = entry[1]
        if isinstance(pending, _Refit) and pending.series_id == series_id and not pending.done:
            return
    transaction.on_commit(_Refit(series_id))
