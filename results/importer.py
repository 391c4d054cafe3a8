"""Reported results from a CSV file (the template: docs/results.md, `IMPORT_COLUMNS`).

Every row is checked before anything is written: the plan lists each row's outcome (a new
point, a changed value, unchanged) or its errors, each naming the line and the column. A file
with any error writes nothing; otherwise `apply()` writes the whole plan in one transaction.
A point is identified by its series, location and compute (and steps): importing the same
file again finds every point unchanged and writes nothing. A series named in the file that
does not exist yet is created as a draft (an editor checks and publishes it); an existing
series keeps its own fields. Benchmarks and papers must exist already (by slug).

The admin and the API keep each upload as a ResultsImportRun (`start_run`, `confirm_run`,
`apply_now`): a small file is planned and applied in the request, a large one
(BACKGROUND_FROM rows) by the task worker. Without the publish permission an import may not
add to or change series readers see or will see (`Plan.refusal`)."""

import csv
import io
import math
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django_tasks import task
from simple_history.utils import bulk_create_with_history

from bottlenecks.setting import ModelSize, RewardType, TaskFamily
from citations.models import Paper
from publishing.models import GOING_PUBLIC
from publishing.permissions import may_change_live
from publishing.signals import announce
from results.exports import DERIVED_COLUMNS, IMPORT_COLUMNS
from results.models import (
    COMPUTE_UNITS,
    Benchmark,
    LocationKind,
    Result,
    ResultsImportRun,
    Series,
)
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
# Files with more rows than this are checked and applied by the task worker, not the request:
# the 100,000-row apply measured in docs/results.md took 101 s, about 1 ms a row, so a file up
# to this size is answered within a few seconds.
BACKGROUND_FROM = getattr(settings, "RESULTS_IMPORT_BACKGROUND_FROM", 2000)
MAX_UPLOAD_BYTES = getattr(settings, "RESULTS_IMPORT_MAX_BYTES", 64 * 1024 * 1024)
# Who may import at all: whoever may add series and points (editors and contributors).
IMPORT_PERMISSIONS = ("results.add_series", "results.add_result", "results.add_resultsimportrun")
LIVE_REFUSED = (
    "This file adds or changes points of published series ({names}); only editors with the "
    "publish permission can apply it. Import into a new or draft series, or ask an editor."
)


class ImportRefused(Exception):
    pass


@dataclass(slots=True)
class RowPlan:
    line: int
    kind: str = ""  # NEW, CHANGED or UNCHANGED once the row is planned without errors
    errors: list = field(default_factory=list)  # "line 3, column value: ..."
    problems: list = field(default_factory=list)  # the same as {line, column, message}
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
        self.problems.append({"line": self.line, "column": column, "message": message})

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

    @property
    def problems(self):
        """Each error as {line, column, message} (column None for the header's)."""
        header = [{"line": 1, "column": None, "message": e} for e in self.header_errors]
        return header + [problem for row in self.rows for problem in row.problems]

    def report(self):
        """Each row's outcome or its errors, a line each, as `manage.py import_results`
        prints them."""
        lines = list(self.header_errors)
        for row in self.rows:
            lines += row.errors or [f"line {row.line}: {row.outcome}"]
        return "\n".join(lines)

    def as_dict(self):
        return {
            "summary": self.summary(),
            "counts": self.counts(),
            "rows": [
                {"line": row.line, "outcome": row.outcome} for row in self.rows if not row.errors
            ],
            "errors": self.problems,
        }

    def refusal(self, user):
        """Why `user` may not apply this plan ("" when they may): without the publish
        permission an import writes only into new series (drafts) and series not yet going
        public, never the points readers see (publishing/permissions.py)."""
        if may_change_live(user, Series):
            return ""
        live = sorted(
            {
                row.series.slug
                for row in self.rows
                if row.series is not None
                and row.series.pk
                and (row.kind == RowPlan.NEW or row.changes)
                and row.series.status in GOING_PUBLIC
            }
        )
        if live:
            return LIVE_REFUSED.format(names=", ".join(live[:5]))
        return ""

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
                    row.point._history_user = user
                    row.point._change_reason = "Imported"
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


# -- runs: the admin's and the API's imports, inline or on the task worker -----------------


def may_import(user):
    return bool(user is not None and user.is_authenticated and user.has_perms(IMPORT_PERMISSIONS))


class BadUpload(Exception):
    """An upload that is no CSV text (empty, too large, not UTF-8): nothing is stored."""


def read_upload(source):
    """The text of `source` (a str, bytes or an uploaded file), or BadUpload."""
    if hasattr(source, "size") and source.size > MAX_UPLOAD_BYTES:
        raise BadUpload(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
    if hasattr(source, "read"):
        source = source.read(MAX_UPLOAD_BYTES + 1)
    if isinstance(source, bytes):
        if len(source) > MAX_UPLOAD_BYTES:
            raise BadUpload(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
        try:
            source = source.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise BadUpload(f"The file is not UTF-8 text (near byte {error.start}).") from None
    text = source.removeprefix("\ufeff")
    if "\x00" in text:
        raise BadUpload("The file has a NUL character: it is not a CSV text.")
    if not text.strip():
        raise BadUpload("The file is empty.")
    return text


def plan_text(text, user=None):
    return ResultsImport(io.StringIO(text, newline=""), user=user).plan()


def in_background(text):
    """Whether a file is planned and applied by the worker: more rows than BACKGROUND_FROM."""
    return text.count("\n") > BACKGROUND_FROM


def start_run(text, name, user, apply=False):
    """Store the file as a run and dry-run it: inline for a small file, returning the run and
    its plan; on the task worker for a large one, returning the run and None (with `apply`,
    the worker applies it after its dry run, as `user`)."""
    run = ResultsImportRun.objects.create(
        created_by=user,
        applied_by=user if apply else None,
        name=name[:200],
        text=text,
        rows=max(text.rstrip("\n").count("\n"), 0),
    )
    if not in_background(text):
        return run, dry_run(run)
    if apply:
        run.state = ResultsImportRun.State.QUEUED
        result = apply_results_import.enqueue(run.pk)
    else:
        result = dry_run_results_import.enqueue(run.pk)
    run.task_id = str(result.id)
    run.save(update_fields=["state", "task_id"])
    return run, None


def dry_run(run):
    """Plan the run's file and keep its report on the run (nothing else written)."""
    plan = plan_text(run.text, run.created_by)
    run.state = ResultsImportRun.State.PREVIEWED
    run.has_errors = not plan.ok
    run.rows = len(plan.rows)
    run.summary = plan.summary()[:300]
    run.counts = plan.counts()
    run.report = plan.report()
    run.save(update_fields=["state", "has_errors", "rows", "summary", "counts", "report"])
    return plan


def confirm_run(run, user):
    """Apply a previewed run as `user`: now for a small file, queued for a large one. Returns
    the refusal or error ("" when applied or queued)."""
    if run.state != ResultsImportRun.State.PREVIEWED:
        return f"This import is {run.get_state_display().lower()}."
    if run.has_errors:
        return "The file has errors; nothing was written."
    run.applied_by = user
    if in_background(run.text):
        run.state = ResultsImportRun.State.QUEUED
        run.save(update_fields=["applied_by", "state"])
        result = apply_results_import.enqueue(run.pk)
        ResultsImportRun.objects.filter(pk=run.pk).update(task_id=str(result.id))
        return ""
    run.save(update_fields=["applied_by"])
    return apply_run(run)


def apply_run(run):
    """Plan the file again (what it would change now), judge it for the user applying it,
    and write it in one transaction. Returns the refusal or error ("" when applied); a
    refused or bad file leaves the run failed and nothing written."""
    run.state = ResultsImportRun.State.RUNNING
    run.save(update_fields=["state"])
    plan = plan_text(run.text, run.created_by)
    run.rows, run.summary, run.counts = len(plan.rows), plan.summary()[:300], plan.counts()
    problem = "" if plan.ok else "The file has errors; nothing was written."
    problem = problem or plan.refusal(run.applied_by)
    if problem:
        run.state, run.has_errors = ResultsImportRun.State.FAILED, not plan.ok
        run.report = f"{problem}\n{plan.report()}"
    else:
        run.written = ResultsImport.apply(plan, user=run.applied_by)
        run.state, run.report = ResultsImportRun.State.DONE, plan.report()
    run.finished_at = timezone.now()
    run.save()
    return problem


@task()
def dry_run_results_import(run_id):
    run = ResultsImportRun.objects.get(pk=run_id)
    try:
        dry_run(run)
    except Exception as error:
        _fail(run, error)
        raise
    return run.counts


@task()
def apply_results_import(run_id):
    """A large file's apply on the worker: with no dry run shown first (the API's apply), the
    plan is made here and judged as in the request."""
    run = ResultsImportRun.objects.get(pk=run_id)
    try:
        apply_run(run)
    except Exception as error:
        _fail(run, error)
        raise
    return run.counts


def _fail(run, error):
    ResultsImportRun.objects.filter(pk=run.pk).update(
        state=ResultsImportRun.State.FAILED,
        report=f"{type(error).__name__}: {error}",
        finished_at=timezone.now(),
    )


def apply_now(plan, text, name, user):
    """Apply a checked plan in the request, as `user`, and keep it as a run (its report); an
    error leaves neither the points nor the run."""
    with transaction.atomic():
        run = ResultsImportRun(
            created_by=user,
            applied_by=user,
            name=name[:200],
            text=text,
            rows=len(plan.rows),
            state=ResultsImportRun.State.DONE,
            summary=plan.summary()[:300],
            counts=plan.counts(),
            report=plan.report(),
        )
        run.written = ResultsImport.apply(plan, user=user)
        run.finished_at = timezone.now()
        run.save()
    return run
