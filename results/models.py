"""Reported results as data: a benchmark, a series (one run measured as its RL compute grows),
its points (each one number as the paper reports it, with where in the paper it is) and the
curves fitted to a series.

The publishing unit is the series: a point is public when its series is, and a series is public
only with its benchmark and its paper (`SeriesQuerySet.public`), so a draft anywhere on the
way hides the points, their fits, the charts and the exports that show them."""

import hashlib
import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from simple_history.models import HistoricalRecords

from bottlenecks.setting import ModelSize, RewardType, TaskFamily
from core.indexes import NullsFirstIndex
from publishing.models import Publishable, PublishableQuerySet, published_q


class ComputeAxis(models.TextChoices):
    """The two normalised compute units. A GPU-hour is not converted to FLOPs: the factor
    depends on the accelerator, its precision and its utilisation, which papers rarely all
    state, so a point keeps the unit it was reported in (after the exact conversions in
    `COMPUTE_UNITS`) and a series is fitted on the unit all its points share."""

    GPU_HOURS = "gpu_hours", "GPU-hours"
    FLOPS = "flops", "FLOPs"


# Reported unit -> (normalised axis, factor, the conversion in words). Only definitional
# conversions: a GPU-day is 24 GPU-hours; a petaFLOP/s-day is 1e15 FLOP/s for 86,400 s.
COMPUTE_UNITS = {
    "gpu_hours": (ComputeAxis.GPU_HOURS, 1.0, "as reported"),
    "gpu_days": (ComputeAxis.GPU_HOURS, 24.0, "1 GPU-day = 24 GPU-hours"),
    "flops": (ComputeAxis.FLOPS, 1.0, "as reported"),
    "pflops_days": (ComputeAxis.FLOPS, 8.64e19, "1 petaFLOP/s-day = 8.64 × 10¹⁹ FLOPs"),
}


class BenchmarkQuerySet(PublishableQuerySet):
    pass


class Benchmark(Publishable):
    """What is measured: a task set and its metric (AIME 2024, pass@1 in %)."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    task_family = models.CharField(max_length=20, choices=TaskFamily, blank=True)
    metric = models.CharField(max_length=200, help_text='What is measured, e.g. "pass@1".')
    unit = models.CharField(max_length=40, blank=True, help_text='e.g. "%" or "points".')
    higher_is_better = models.BooleanField(default=True)
    description = models.TextField(blank=True)
    url = models.URLField("link", max_length=500, blank=True)

    objects = BenchmarkQuerySet.as_manager()

    class Meta(Publishable.Meta):
        ordering = ["name", "id"]
        # The lists of runs and points start from the benchmarks in name order.
        indexes = [models.Index(fields=["name", "id"], name="benchmark_name")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("results:benchmark", args=[self.slug])


class SeriesQuerySet(PublishableQuerySet):
    def public(self):
        """Published series whose benchmark and paper are published too: what readers see."""
        return self.published().filter(published_q("benchmark__"), published_q("paper__"))

    def visible_to(self, user):
        if user.is_authenticated and user.has_perm("results.view_series"):
            return self.all()
        return self.public()

    def on_layer(self, layer):
        """The series that bear on a bottleneck layer: the layers of their paper and those of
        the published claims their points carry, the rule the diagnosis weighs runs by
        (evidence/diagnosis.py, `runs_on_layers`). Subqueries, so no series is repeated."""
        by_paper = Series.objects.filter(paper__layers=layer).values("pk")
        by_claims = Result.objects.filter(published_q("claims__"), claims__layers=layer).values(
            "series_id"
        )
        return self.filter(models.Q(pk__in=by_paper) | models.Q(pk__in=by_claims))

    def with_paper(self):
        """With the paper's slug and title, the only columns of its wide row (abstract, search
        document) a list of runs names."""
        own = [field.name for field in self.model._meta.concrete_fields]
        return self.select_related("paper").only(*own, "paper__slug", "paper__title")

    def summaries(self):
        """Each series with its benchmark, how many points it has and the compute they span
        (`points_count`, `compute_low`, `compute_high` on the compute axis of its points), and
        its fitted ScaleRL sigmoid in `sigmoid_fits` (empty when not fitted or refused): what a
        list of runs shows in two queries."""
        fitted = Fit.objects.filter(kind=FitKind.SIGMOID, reason_refused="")
        return (
            self.select_related("benchmark")
            .annotate(
                points_count=models.Count("points"),
                compute_low=models.Min("points__compute_sort"),
                compute_high=models.Max("points__compute_sort"),
                compute_unit_seen=models.Max("points__compute_unit"),
            )
            .prefetch_related(models.Prefetch("fits", queryset=fitted, to_attr="sigmoid_fits"))
            .order_by("benchmark__name", "name", "pk")
        )


class Series(Publishable):
    """One run measured as its RL compute grows: the points of one model and recipe on one
    benchmark, from one paper."""

    name = models.CharField(
        max_length=200, help_text='The run as the paper names it, e.g. "ScaleRL, 8B dense".'
    )
    slug = models.SlugField(max_length=200, unique=True)
    # A deleted paper (or one merged into its duplicate) leaves its series without a source:
    # hidden from readers (`public()` needs a published paper) until an editor reattaches it,
    # neither deleted with it nor blocking the deletion.
    paper = models.ForeignKey(
        "citations.Paper", null=True, on_delete=models.SET_NULL, related_name="series"
    )
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="series")
    model_name = models.CharField("model", max_length=200, blank=True)
    model_params_b = models.FloatField(
        "parameters (billions)",
        null=True,
        blank=True,
        help_text="Total parameters in billions, as reported (blank when not stated).",
    )
    base_model = models.CharField(max_length=200, blank=True)
    recipe = models.TextField(blank=True, help_text="The method as the paper describes it.")
    recipe_tags = models.ManyToManyField(
        "rlscaling.Tag", blank=True, related_name="result_series", help_text="Recipe tags."
    )
    task_family = models.CharField(max_length=20, choices=TaskFamily, blank=True)
    model_size = models.CharField(max_length=10, choices=ModelSize, blank=True)
    reward_type = models.CharField(max_length=20, choices=RewardType, blank=True)
    source_location = models.CharField(
        max_length=200, blank=True, help_text='Where the run is described, e.g. "Section 4.2".'
    )
    synthetic = models.BooleanField(
        default=False, editable=False, help_text="Generated for benchmarks; never in the demo."
    )
    # Provenance: who typed the points in, who checked them against the paper, and when.
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    checked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    checked_at = models.DateTimeField(null=True, blank=True)

    # Recorded with each history entry and restored on revert (publishing/history.py).
    history_children = ("points",)

    @property
    def compute_span(self):
        """ "1,000 to 20,000 GPU-hours", from the annotations of `summaries()` ("" when its
        points state no compute)."""
        low, high = getattr(self, "compute_low", None), getattr(self, "compute_high", None)
        if low is None:
            return ""
        axis = COMPUTE_UNITS.get(getattr(self, "compute_unit_seen", ""), (None,))[0]
        span = f"{low:,.6g}" if high == low else f"{low:,.6g} to {high:,.6g}"
        return f"{span} {ComputeAxis(axis).label if axis else ''}".strip()

    objects = SeriesQuerySet.as_manager()

    class Meta(Publishable.Meta):
        ordering = ["name", "id"]
        verbose_name_plural = "series"
        # One per ordering of the API's list of runs (SeriesViewSet), so a page is an index
        # walk: by benchmark (its runs in name order, the benchmarks walked by `benchmark_name`),
        # by name, by last change.
        indexes = [
            models.Index(fields=["benchmark", "name", "id"], name="series_benchmark_name"),
            models.Index(fields=["name", "id"], name="series_name"),
            models.Index(fields=["updated_at", "id"], name="series_updated"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return f"{reverse('results:benchmark', args=[self.benchmark.slug])}#series-{self.slug}"

    def clean(self):
        super().clean()
        if self.checked_at and not self.checked_by_id:
            raise ValidationError({"checked_by": "Say who checked the points."})
        if self.model_params_b is not None and self.model_params_b <= 0:
            raise ValidationError({"model_params_b": "Parameters must be a positive number."})

    def publishing_errors(self, relations=None):
        errors = {}
        if self.benchmark_id and not self.benchmark.is_published:
            errors["benchmark"] = ["Publish the benchmark first."]
        if not self.paper_id:
            errors["paper"] = ["Choose the paper the run is from."]
        elif not self.paper.is_published:
            errors["paper"] = ["Publish the paper first."]
        return errors


# A list of points: by benchmark, then run, then the run's own order (points without compute
# first on every database, as Result.Meta.ordering).
LIST_ORDER = (
    "series__benchmark__name",
    "series__name",
    "series_id",
    models.F("compute_sort").asc(nulls_first=True),
    "id",
)


# A search term matching more runs than this tests the run's name by a join instead.
MATCHED_RUNS_LISTED = 1000


class ResultQuerySet(models.QuerySet):
    def public(self):
        """Points of public series (`SeriesQuerySet.public`)."""
        return self.filter(
            published_q("series__"),
            published_q("series__benchmark__"),
            published_q("series__paper__"),
        )

    def visible_to(self, user):
        if user.is_authenticated and user.has_perm("results.view_series"):
            return self.all()
        return self.public()

    def on_layer(self, layer):
        """Points of the series that bear on `layer` (`SeriesQuerySet.on_layer`)."""
        return self.filter(series__in=Series.objects.on_layer(layer).values("pk"))

    def with_source(self, *run_fields):
        """With its run (`run_fields` of it, else all), and of the run's benchmark and paper
        only the columns a list of points names: a paper's row is wide (abstract, search
        document), and sorting 200,000 points with it spilled to disk (0.4 s at the large
        corpus, docs/decisions/0001)."""
        own = [field.name for field in Result._meta.concrete_fields]
        run_fields = run_fields or [field.name for field in Series._meta.concrete_fields]
        run = [f"series__{name}" for name in run_fields]
        return self.select_related("series__benchmark", "series__paper").only(
            *own,
            *run,
            "series__benchmark__name",
            "series__benchmark__slug",
            "series__benchmark__unit",
            "series__paper__slug",
            "series__paper__title",
        )

    def matching(self, terms):
        """Points where every term is in the location, the note or the run's name (case
        aside), the rule of DRF's `search_fields`. The runs that match are read first, so the
        test on their name is a list of ids: with the trigram indexes (migration 0005) each
        part of the OR is an index scan, where a join to the runs read every point (0.27 s
        at 200,000 points)."""
        queryset = self
        for term in terms:
            runs = list(
                Series.objects.filter(name__icontains=term).values_list("pk", flat=True)[
                    : MATCHED_RUNS_LISTED + 1
                ]
            )
            by_run = (
                models.Q(series__in=runs)
                if len(runs) <= MATCHED_RUNS_LISTED
                else models.Q(series__name__icontains=term)  # most runs: the join is as quick
            )
            queryset = queryset.filter(
                models.Q(location__icontains=term) | models.Q(note__icontains=term) | by_run
            )
        return queryset

    def for_list(self):
        return self.with_source().order_by(*LIST_ORDER)

    def in_order(self, ids):
        """The points with these ids, in that order (a page read as ids first)."""
        rows = self.in_bulk(ids)
        return [rows[pk] for pk in ids if pk in rows]


class LocationKind(models.TextChoices):
    TABLE = "table", "Table"
    FIGURE = "figure", "Figure"
    SECTION = "section", "Section"
    TEXT = "text", "Text (abstract or body)"
    # The number as a secondary source gives it (a summary of the paper), not yet found in the
    # paper itself: shown as such, so nobody mistakes it for a checked location.
    SUMMARY = "summary", "A summary of the paper (not yet located in it)"


class Result(models.Model):
    """One reported number: the value (with its uncertainty when reported) at one amount of RL
    compute, and where in the paper it stands."""

    # What an editor enters for a point (the admin's inline, the CSV import); the rest is
    # derived from it (`normalise_compute`).
    ENTERED_FIELDS = (
        "location_kind",
        "location",
        "value",
        "uncertainty",
        "compute_reported",
        "compute_unit",
        "steps",
        "note",
    )

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="points")
    location_kind = models.CharField(max_length=10, choices=LocationKind)
    location = models.CharField(
        max_length=200, help_text='Where in the paper, e.g. "Table 2" or "Figure 1 (left)".'
    )
    value = models.FloatField(help_text="In the benchmark's unit, as reported.")
    uncertainty = models.FloatField(
        null=True, blank=True, help_text="± as reported (standard error or as the paper says)."
    )
    compute_reported = models.FloatField(
        null=True, blank=True, help_text="The RL compute as the paper gives it, in its unit."
    )
    compute_unit = models.CharField(
        max_length=20,
        choices=[(key, key.replace("_", " ")) for key in COMPUTE_UNITS],
        blank=True,
    )
    # Normalised from the two above on save (`COMPUTE_UNITS`); a sortable copy of either.
    gpu_hours = models.FloatField(null=True, blank=True, editable=False)
    flops = models.FloatField(null=True, blank=True, editable=False)
    compute_sort = models.FloatField(null=True, blank=True, editable=False)
    steps = models.PositiveIntegerField(null=True, blank=True, help_text="RL steps, if given.")
    note = models.CharField(max_length=300, blank=True)

    history = HistoricalRecords()
    objects = ResultQuerySet.as_manager()

    class Meta:
        # Points without compute first on every database: PostgreSQL puts NULLs last by default,
        # SQLite first, and a series' points must read in one order on both.
        ordering = ["series_id", models.F("compute_sort").asc(nulls_first=True), "id"]
        verbose_name = "result"
        # One per ordering of the lists of points (LIST_ORDER, the page's sorts, the API's
        # `ordering=`), each matching its terms' directions and nulls exactly, read forwards or
        # backwards: a page is an index walk that stops after it, not a sort of every point.
        indexes = [
            # A run's points in LIST_ORDER, for the walk over the runs in benchmark order.
            NullsFirstIndex(
                models.F("series"),
                models.F("compute_sort").asc(nulls_first=True),
                models.F("id"),
                name="result_series_compute",
            ),
            NullsFirstIndex(
                models.F("compute_sort").asc(nulls_first=True),
                models.F("id"),
                name="result_compute",
            ),
            models.Index(fields=["value", "id"], name="result_value"),
            NullsFirstIndex(
                models.F("steps").asc(nulls_first=True), models.F("id"), name="result_steps"
            ),
        ]

    def __str__(self):
        return f"{self.series}: {self.value:g} at {self.compute_label or 'unstated compute'}"

    def save(self, *args, **kwargs):
        self.normalise_compute()
        super().save(*args, **kwargs)

    def clean(self):
        super().clean()
        errors = {}
        if (self.compute_reported is None) != (not self.compute_unit):
            errors["compute_unit"] = "Give the compute and its unit together, or neither."
        if self.compute_reported is not None and self.compute_reported <= 0:
            errors["compute_reported"] = "Compute must be a positive number."
        if self.uncertainty is not None and self.uncertainty < 0:
            errors["uncertainty"] = "An uncertainty is not negative."
        if errors:
            raise ValidationError(errors)

    def normalise_compute(self):
        self.gpu_hours = self.flops = self.compute_sort = None
        if self.compute_reported is not None and self.compute_unit in COMPUTE_UNITS:
            axis, factor, _ = COMPUTE_UNITS[self.compute_unit]
            setattr(self, axis, self.compute_reported * factor)
            self.compute_sort = self.compute_reported * factor

    @property
    def compute_axis(self):
        if self.compute_unit in COMPUTE_UNITS:
            return COMPUTE_UNITS[self.compute_unit][0]
        return None

    @property
    def compute(self):
        """The normalised compute on this point's axis, or None."""
        axis = self.compute_axis
        return getattr(self, axis) if axis else None

    @property
    def conversion(self):
        return COMPUTE_UNITS[self.compute_unit][2] if self.compute_unit in COMPUTE_UNITS else ""

    @property
    def compute_label(self):
        if self.compute is None:
            return ""
        return f"{self.compute:,.6g} {ComputeAxis(self.compute_axis).label}"


def points_digest(points):
    """A digest of what a fit reads from a series' points: a refit is needed when it moves."""
    data = sorted((p.compute_axis or "", p.compute or 0.0, p.value) for p in points)
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()


class FitKind(models.TextChoices):
    SIGMOID = "sigmoid", "ScaleRL sigmoid"
    POWER = "power", "Power law"


class FitQuerySet(models.QuerySet):
    def public(self):
        return self.filter(
            published_q("series__"),
            published_q("series__benchmark__"),
            published_q("series__paper__"),
        )


class Fit(models.Model):
    """A curve fitted to a series (results/fits.py), or the reason none was: computed by the
    task queue when the points change (results/tasks.py), read by the pages."""

    recomputed = True  # fitted again when a deleted series is recovered, never restored

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="fits")
    kind = models.CharField(max_length=10, choices=FitKind)
    axis = models.CharField(max_length=10, choices=ComputeAxis, blank=True)
    params = models.JSONField(default=dict, blank=True)
    intervals = models.JSONField(default=dict, blank=True, help_text="{name: [low, high]}")
    residuals = models.JSONField(default=list, blank=True)
    band = models.JSONField(
        default=list, blank=True, help_text="[[compute, fitted, low, high], ...] for charts."
    )
    r_squared = models.FloatField(null=True, blank=True)
    compute_range = models.JSONField(default=list, blank=True, help_text="[min, max] fitted.")
    points_count = models.PositiveIntegerField(default=0)
    reason_refused = models.TextField(blank=True)
    digest = models.CharField(max_length=64, blank=True)
    fitted_at = models.DateTimeField(auto_now=True)

    objects = FitQuerySet.as_manager()

    class Meta:
        ordering = ["series_id", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["series", "kind"], name="unique_fit_per_kind")
        ]

    def __str__(self):
        return f"{self.get_kind_display()} fit of {self.series}"

    @property
    def refused(self):
        return bool(self.reason_refused)


class ResultsImportRun(models.Model):
    """One CSV import of results (results/importer.py): the file as uploaded, its dry run (each
    row's outcome, or its errors by line and column) and, once applied, what was written. A
    small file is checked and applied in the request; a large one by the task worker, the
    run's page showing its state until it is done."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    class State(models.TextChoices):
        CHECKING = "checking", "Dry run in progress"
        PREVIEWED = "previewed", "Dry run shown"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Applied"
        FAILED = "failed", "Failed"

    # The worker has not finished with these yet: the run's page refreshes itself.
    IN_PROGRESS = (State.CHECKING, State.QUEUED, State.RUNNING)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    name = models.CharField(max_length=200, blank=True, help_text="The file's name.")
    text = models.TextField(help_text="The CSV as uploaded.")
    rows = models.PositiveIntegerField(default=0, help_text="Lines after the header.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.CHECKING)
    has_errors = models.BooleanField(default=False)
    summary = models.CharField(max_length=300, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    written = models.PositiveIntegerField(default=0, help_text="Points written when applied.")
    report = models.TextField(blank=True, help_text="Each row's outcome or its errors.")
    task_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "results import run"

    def __str__(self):
        return f"Results import {self.pk}: {self.name} ({self.get_state_display()})"

    @property
    def in_progress(self):
        return self.state in self.IN_PROGRESS
