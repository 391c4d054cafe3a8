"""Reported results from a CSV file (the template: docs/results.md, `IMPORT_COLUMNS`).

Every row is checked before anything is written: the plan lists each row's outcome (a new
point, a changed value, unchanged) or its errors, each naming the line and the column. A file
with any error writes nothing; otherwise `apply()` writes the whole plan in one transaction.
A point is identified by its series, location and compute (and steps): importing the same
file again finds every point unchanged and writes nothing. A series named in the file that
does not exist yet is created as a draft (an editor checks and publishes it); an existing
series keeps its own fields. Benchmarks and papers must exist already (by slug)."""

import csv
import math
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify
from simple_history.utils import bulk_create_with_history

from bottlenecks.setting import ModelSize, RewardType, TaskFamily
from citations.models import Paper
from publishing.signals import announce
from results.exports import DERIVED_COLUMNS, IMPORT_COLUMNS
from results.models import COMPUTE_UNITS, Benchmark, LocationKind, Result, Series
from results.signals import points_imported
from results.tasks import refit_on_commit

REQUIRED_COLUMNS = ["benchmark", "series", "paper", "location_kind", "location", "value"]
# Model field -> the template's column, for messages.
COLUMN_OF = {"compute_reported": "compute", "model_name": "model", "name": "series_name"}
POINT_UPDATES = ("value", "uncertainty", "note")
# A new point is kept as these values until it is written, not as a model instance: a
# 100,000-row file planned as instances peaked at 372 MB (docs/results.md).
NEW_POINT_FIELDS = Result.ENTERED_FIELDS
WRITE_BATCH = 2000


class ImportRefused(Exception):
    pass


@dataclass(slots=True)
class RowPlan:
    line: int
    kind: str = ""  # NEW, CHANGED or UNCHANGED once the row is planned without errors
    errors: list = field(default_factory=list)  # "line 3, column value: ..."
    series: object = None
    in_new_series: bool = False
    values: tuple = ()  # a new point's NEW_POINT_FIELDS
    point: object = None  # the existing point a changed or unchanged row is
    changes: dict = field(default_factory=dict)

    NEW = "new point"
    CHANGED = "changed"
    UNCHANGED = "unchanged"

    def error(self, column, message):
        self.errors.append(f"line {self.line}, column {column}: {message}")

    @property
    def outcome(self):
        if self.kind == self.NEW:
            where = "new series " if self.in_new_series else ""
            return f"new point in {where}{self.series.slug}"
        if self.kind == self.CHANGED:
            described = ", ".join(f"{n} {old} → {new}" for n, (old, new) in self.changes.items())
            return f"changed: {described}"
        return self.kind


@dataclass
class Plan:
    rows: list = field(default_factory=list)
    header_errors: list = field(default_factory=list)
    new_series: dict = field(default_factory=dict)

    @property
    def errors(self):
        return self.header_errors + [e for row in self.rows for e in row.errors]

    @property
    def ok(self):
        return not self.errors

    def counts(self):
        """How many rows have each outcome kind ("new point", "changed", "unchanged")."""
        counts = {}
        for row in self.rows:
            if row.kind:
                counts[row.kind] = counts.get(row.kind, 0) + 1
        return counts

    def summary(self):
        """The plan in a sentence's words, e.g. "6 new point(s), 3 unchanged; 2 new draft
        series"."""
        counts = self.counts()
        parts = [
            f"{counts[kind]} {'new point(s)' if kind == RowPlan.NEW else kind}"
            for kind in (RowPlan.NEW, RowPlan.CHANGED, RowPlan.UNCHANGED)
            if counts.get(kind)
        ]
        text = ", ".join(parts) or "no rows"
        if self.new_series:
            text += f"; {len(self.new_series)} new draft series"
        return text


def _number(row, plan, column, integer=False, required=False):
    text = (row.get(column) or "").strip().replace(",", "")
    if not text:
        if required:
            plan.error(column, "is required.")
        return None
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        plan.error(column, f"“{text}” is not {kind}.")
        return None
    if not integer and not math.isfinite(value):
        plan.error(column, f"“{text}” is not a finite number.")
        return None
    return value


def _choice(row, plan, column, choices):
    value = (row.get(column) or "").strip()
    if value and value not in choices:
        plan.error(column, f"“{value}” is not one of: {', '.join(choices)}.")
        return ""
    return value


class ResultsImport:
    def __init__(self, handle, user=None):
        self.handle = handle
        self.user = user
        self.benchmarks = {}
        self.papers = {}
        self.series = {}
        self.points = {}  # series slug -> {identity: Result}

    def plan(self):
        plan = Plan()
        reader = csv.DictReader(self.handle)
        header = [name.strip() for name in (reader.fieldnames or [])]
        reader.fieldnames = header
        unknown = [name for name in header if name not in IMPORT_COLUMNS + DERIVED_COLUMNS]
        missing = [name for name in REQUIRED_COLUMNS if name not in header]
        if unknown:
            plan.header_errors.append(
                f"line 1: unknown column(s) {', '.join(unknown)} (the template: docs/results.md)."
            )
        if missing:
            plan.header_errors.append(f"line 1: missing column(s) {', '.join(missing)}.")
        if plan.header_errors:
            return plan
        seen = set()
        for row in reader:
            row_plan = RowPlan(line=reader.line_num)
            self.plan_row(row, row_plan, plan, seen)
            plan.rows.append(row_plan)
        return plan

    def _lookup(self, cache, model, slug):
        if slug not in cache:
            cache[slug] = model.objects.filter(slug=slug).first()
        return cache[slug]

    def plan_row(self, row, row_plan, plan, seen):
        row = {key: (value or "") for key, value in row.items() if key is not None}
        benchmark_slug = row["benchmark"].strip()
        paper_slug = row["paper"].strip()
        series_slug = row["series"].strip()
        benchmark = self._lookup(self.benchmarks, Benchmark, benchmark_slug)
        if benchmark is None:
            row_plan.error("benchmark", f"no benchmark “{benchmark_slug}” (add it first).")
        paper = self._lookup(self.papers, Paper, paper_slug)
        if paper is None:
            row_plan.error("paper", f"no paper “{paper_slug}” (add it first).")
        if not series_slug or slugify(series_slug) != series_slug:
            row_plan.error("series", f"“{series_slug}” is not a slug (lower-case-with-dashes).")
            return
        series = self.series_for(row, row_plan, plan, series_slug, benchmark, paper)
        point = Result(
            location_kind=_choice(row, row_plan, "location_kind", LocationKind.values),
            location=row["location"].strip(),
            value=_number(row, row_plan, "value", required=True),
            uncertainty=_number(row, row_plan, "uncertainty"),
            compute_reported=_number(row, row_plan, "compute"),
            compute_unit=_choice(row, row_plan, "compute_unit", list(COMPUTE_UNITS)),
            steps=_number(row, row_plan, "steps", integer=True),
            note=row.get("note", "").strip(),
        )
        if row_plan.errors:
            return
        try:
            point.full_clean(exclude=["series"])
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                for message in messages:
                    row_plan.error(COLUMN_OF.get(name, name), message)
            return
        point.normalise_compute()
        identity = (
            series_slug,
            point.location_kind,
            point.location,
            point.compute_reported,
            point.compute_unit,
            point.steps,
        )
        if identity in seen:
            row_plan.error("location", "the same point (series, location, compute, steps) twice.")
            return
        seen.add(identity)
        row_plan.series = series
        existing = self.existing_points(series).get(identity[1:]) if series.pk else None
        if existing is None:
            row_plan.kind = RowPlan.NEW
            row_plan.in_new_series = series.pk is None
            row_plan.values = tuple(getattr(point, name) for name in NEW_POINT_FIELDS)
            return
        row_plan.point = existing
        row_plan.changes = {
            name: (getattr(existing, name), getattr(point, name))
            for name in POINT_UPDATES
            if getattr(existing, name) != getattr(point, name)
        }
        row_plan.kind = RowPlan.CHANGED if row_plan.changes else RowPlan.UNCHANGED

    def series_for(self, row, row_plan, plan, slug, benchmark, paper):
        series = self.series.get(slug) or plan.new_series.get(slug)
        if series is None:
            series = Series.objects.filter(slug=slug).first()
            if series is not None:
                self.series[slug] = series
        if series is None:
            name = row.get("series_name", "").strip()
            if not name:
                row_plan.error("series_name", f"series “{slug}” is new: give its name.")
            series = Series(
                slug=slug,
                name=name,
                benchmark=benchmark,
                paper=paper,
                model_name=row.get("model", "").strip(),
                model_params_b=_number(row, row_plan, "model_params_b"),
                base_model=row.get("base_model", "").strip(),
                recipe=row.get("recipe", "").strip(),
                task_family=_choice(row, row_plan, "task_family", TaskFamily.values),
                model_size=_choice(row, row_plan, "model_size", ModelSize.values),
                reward_type=_choice(row, row_plan, "reward_type", RewardType.values),
                entered_by=self.user,
            )
            if benchmark is not None and paper is not None and not row_plan.errors:
                try:
                    series.full_clean(exclude=["slug", "status", "version"])
                except ValidationError as error:
                    for name, messages in error.message_dict.items():
                        for message in messages:
                            row_plan.error(COLUMN_OF.get(name, name), message)
                else:
                    plan.new_series[slug] = series
            return series
        if benchmark is not None and series.benchmark_id != benchmark.pk:
            row_plan.error("benchmark", f"series “{slug}” is on another benchmark.")
        if paper is not None and series.paper_id != paper.pk:
            row_plan.error("paper", f"series “{slug}” is from another paper.")
        return series

    def existing_points(self, series):
        if series.slug not in self.points:
            self.points[series.slug] = {
                (p.location_kind, p.location, p.compute_reported, p.compute_unit, p.steps): p
                for p in series.points.all()
            }
        return self.points[series.slug]

    @staticmethod
    def apply(plan, user=None):
        """Write the plan in one transaction; refuse a plan with errors. New points are
        inserted in batches with their history rows; what a saved point sets off (its series'
        refit, the claims on its benchmark reviewed, cached pages) happens once per import
        (`results.signals.points_imported`), not once per point."""
        if not plan.ok:
            raise ImportRefused("The file has errors; nothing was written.")
        written = 0
        with transaction.atomic():
            for series in plan.new_series.values():
                series.save()
            batch = []
            for row in plan.rows:
                if row.kind == RowPlan.NEW:
                    point = Result(
                        series=row.series, **dict(zip(NEW_POINT_FIELDS, row.values, strict=True))
                    )
                    point.normalise_compute()
                    batch.append(point)
                    if len(batch) >= WRITE_BATCH:
                        written += _insert(batch, user)
                        batch = []
                elif row.changes:
                    for name, (_, new) in row.changes.items():
                        setattr(row.point, name, new)
                    row.point.save()
                    written += 1
            written += _insert(batch, user)
            touched = {row.series for row in plan.rows if row.kind == RowPlan.NEW}
            for series in touched:
                refit_on_commit(series.pk)
            if touched:
                announce(Result)
                points_imported.send(
                    sender=Result,
                    series_ids={series.pk for series in touched},
                    benchmark_ids={series.benchmark_id for series in touched},
                )
        return written


def _insert(points, user):
    if points:
        bulk_create_with_history(
            points,
            Result,
            batch_size=WRITE_BATCH,
            default_user=user,
            default_change_reason="Imported",
        )
    return len(points)
