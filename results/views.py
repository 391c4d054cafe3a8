"""Reported results as pages: the list of every public point (filterable, paginated), the
benchmarks, a benchmark with all its series on one chart and the table behind it (and as
CSV), and a compare view of two or more series' fitted parameters. All GET, all server
rendered: they work without JavaScript."""

import csv

from django import forms
from django.db.models import F, Prefetch, prefetch_related_objects
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from bottlenecks.setting import ModelSize, RewardType, TaskFamily
from citations.models import Paper
from core.pagination import paginate
from pagecache.caching import reads_query
from results.charts import BAND_LIMIT, build_charts, points_of
from results.exports import CSV_COLUMNS, csv_rows
from results.models import COMPUTE_UNITS, LIST_ORDER, Benchmark, Fit, FitKind, Result, Series
from tags.models import Tag

RESULTS_PAGE_SIZE = 50
BENCHMARKS_PAGE_SIZE = 50
RESULTS_COUNT_AHEAD = 500
# A benchmark page tables ten runs at a time (the chart shows them all): each run's table and
# fits are ~15 rows, and 25 runs' tables were a third of a 500-run page's time.
SERIES_PAGE_SIZE = 10
MAX_COMPARED = 8
# Each sort is an index of Result read backwards (`result_compute`, `result_value`), ties
# included: the newest point of equal compute or value first.
RESULT_SORTS = {
    "benchmark": ("Benchmark, then run", None),
    "compute": ("Compute (largest first)", (F("compute_sort").desc(nulls_last=True), "-id")),
    "value": ("Value (highest first)", ("-value", "-id")),
}


def _blank(choices):
    return [("", "Any"), *choices]


class ResultFilterForm(forms.Form):
    """The filters of /results/; an unknown value is a 400 with the form's errors."""

    benchmark = forms.SlugField(required=False)
    task_family = forms.ChoiceField(required=False, choices=_blank(TaskFamily.choices))
    model_size = forms.ChoiceField(required=False, choices=_blank(ModelSize.choices))
    reward_type = forms.ChoiceField(required=False, choices=_blank(RewardType.choices))
    paper = forms.SlugField(required=False)
    tag = forms.SlugField(required=False, label="Recipe tag")
    layer = forms.SlugField(
        required=False,
        label="Bottleneck layer",
        help_text="Runs from papers on the layer, or carrying a claim on it.",
    )
    sort = forms.ChoiceField(
        required=False, choices=[(k, label) for k, (label, _) in RESULT_SORTS.items()]
    )

    def clean_benchmark(self):
        slug = self.cleaned_data["benchmark"]
        if slug and not Benchmark.objects.published().filter(slug=slug).exists():
            raise forms.ValidationError(f"There is no benchmark “{slug}”.")
        return slug

    def clean_paper(self):
        slug = self.cleaned_data["paper"]
        if slug and not Paper.objects.published().filter(slug=slug).exists():
            raise forms.ValidationError(f"There is no paper “{slug}”.")
        return slug

    def clean_tag(self):
        slug = self.cleaned_data["tag"]
        if slug and not Tag.objects.filter(slug=slug).exists():
            raise forms.ValidationError(f"There is no tag “{slug}”.")
        return slug

    def clean_layer(self):
        slug = self.cleaned_data["layer"]
        if not slug:
            return None
        layer = Layer.objects.published().filter(slug=slug).first()
        if layer is None:
            raise forms.ValidationError(f"There is no layer “{slug}”.")
        return layer

    def filter(self, points):
        data = self.cleaned_data
        if data.get("layer"):
            points = points.on_layer(data["layer"])
        lookups = {
            "benchmark": "series__benchmark__slug",
            "task_family": "series__task_family",
            "model_size": "series__model_size",
            "reward_type": "series__reward_type",
            "paper": "series__paper__slug",
            "tag": "series__recipe_tags__slug",
        }
        for name, lookup in lookups.items():
            if data.get(name):
                points = points.filter(**{lookup: data[name]})
        ordering = RESULT_SORTS[data.get("sort") or "benchmark"][1]
        return points.order_by(*ordering) if ordering else points


@reads_query(ResultFilterForm, "page")
@require_safe
def result_list(request):
    """Every public point, with where it comes from."""
    form = ResultFilterForm(request.GET)
    context = {"nav": "results", "form": form, "page": None}
    if not form.is_valid():
        return render(request, "results/result_list.html", context, status=400)
    # The page is chosen as ids, narrow to sort, then read with what it shows; the count stops
    # RESULTS_COUNT_AHEAD rows past the page ("more than"), as the research index's does.
    ordered = form.filter(Result.objects.public().for_list()).values_list("pk", flat=True)
    page = paginate(request, ordered, RESULTS_PAGE_SIZE, count_ahead=RESULTS_COUNT_AHEAD)
    page.object_list = Result.objects.with_source("slug", "name", "model_name").in_order(
        list(page.object_list)
    )
    context["page"] = page
    return render(request, "results/result_list.html", context)


@reads_query("page")
@require_safe
def benchmark_list(request):
    benchmarks = Benchmark.objects.published().order_by("name", "id")
    context = {"nav": "results", "page": paginate(request, benchmarks, BENCHMARKS_PAGE_SIZE)}
    return render(request, "results/benchmark_list.html", context)


def public_series(queryset=None):
    """Public series with what their tables and fits show, loaded in a fixed number of
    queries however many series and points there are."""
    queryset = Series.objects.public() if queryset is None else queryset
    return queryset.select_related("paper", "benchmark").prefetch_related(*SERIES_PARTS)


SERIES_PARTS = [
    Prefetch(
        "points",
        queryset=Result.objects.order_by(F("compute_sort").asc(nulls_first=True), "id"),
    ),
    # The ScaleRL sigmoid before the power law.
    Prefetch("fits", queryset=Fit.objects.order_by("-kind")),
    Prefetch("recipe_tags", queryset=Tag.objects.only("name", "slug")),
]


def fits_of(series_list):
    return {series.pk: {fit.kind: fit for fit in series.fits.all()} for series in series_list}


@reads_query("page")
@require_safe
def benchmark_detail(request, slug):
    """Every public series of the benchmark on the chart; their tables and fits a page of
    `SERIES_PAGE_SIZE` at a time, so a benchmark with hundreds of runs stays one quick page:
    the chart reads the points as plain values and only the page's series load their rows."""
    benchmark = get_object_or_404(Benchmark.objects.published(), slug=slug)
    series_list = list(
        Series.objects.public().filter(benchmark=benchmark).with_paper().order_by("name", "id")
    )
    page = paginate(request, series_list, SERIES_PAGE_SIZE)
    prefetch_related_objects(page.object_list, *SERIES_PARTS)
    points = {}
    rows = Result.objects.public().filter(series__benchmark=benchmark, compute_sort__isnull=False)
    for series_id, unit, compute, value in rows.values_list(
        "series_id", "compute_unit", "compute_sort", "value"
    ):
        points.setdefault(series_id, []).append((COMPUTE_UNITS[unit][0], compute, value))
    fits = {}
    sigmoids = Fit.objects.public().filter(series__benchmark=benchmark, kind=FitKind.SIGMOID)
    drawn = ["series_id", "kind", "axis", "params", "compute_range", "reason_refused"]
    # The stored bands only where the chart shades them (charts.BAND_LIMIT runs or fewer).
    drawn += ["band"] if len(series_list) <= BAND_LIMIT else []
    for fit in sigmoids.only(*drawn):
        fits[fit.series_id] = {fit.kind: fit}
    for index, series in enumerate(series_list):  # the chart's legend links to each run
        on_page = f"?page={index // SERIES_PAGE_SIZE + 1}" if page.has_other_pages() else ""
        series.anchor = f"{on_page}#series-{series.slug}"
    context = {
        "nav": "results",
        "benchmark": benchmark,
        "series_list": series_list,
        "page": page,
        "charts": build_charts(series_list, points, fits, unit=benchmark.unit),
        "json_ld": dataset_json_ld(request, benchmark, series_list),
    }
    return render(request, "results/benchmark_detail.html", context)


def dataset_json_ld(request, benchmark, series_list):
    """The benchmark's table as a schema.org Dataset, for search engines' dataset indexes."""
    page = request.build_absolute_uri(benchmark.get_absolute_url())
    papers = {series.paper.pk: series.paper for series in series_list}
    site = request.build_absolute_uri("/").removesuffix("/")  # once, not once per paper
    return {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "@id": page,
        "url": page,
        "name": f"{benchmark.name}: reported RL scaling results",
        "description": (
            f"Results reported on {benchmark.name} ({benchmark.metric}) against RL compute, "
            "each with its source paper and location, and fitted scaling curves."
        ),
        "variableMeasured": [benchmark.metric, "RL compute"],
        "isBasedOn": [site + p.get_absolute_url() for p in papers.values()],
        "distribution": [
            {
                "@type": "DataDownload",
                "encodingFormat": "text/csv",
                "contentUrl": request.build_absolute_uri(
                    reverse("results:benchmark-csv", args=[benchmark.slug])
                ),
            }
        ],
    }


@reads_query()
@require_safe
def benchmark_csv(request, slug):
    """The table behind a benchmark's chart: every public point, one row each."""
    benchmark = get_object_or_404(Benchmark.objects.published(), slug=slug)
    points = Result.objects.public().filter(series__benchmark=benchmark).order_by(*LIST_ORDER)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{benchmark.slug}-results.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(csv_rows(points))
    return response


class CompareForm(forms.Form):
    series = forms.CharField(required=False)

    def __init__(self, data):
        super().__init__(data)
        self.slugs = list(dict.fromkeys(data.getlist("series")))

    def clean(self):
        if len(self.slugs) < 2:
            raise forms.ValidationError("Choose at least two series to compare.")
        if len(self.slugs) > MAX_COMPARED:
            raise forms.ValidationError(f"Compare at most {MAX_COMPARED} series at once.")
        return super().clean()


@reads_query("series")
@require_safe
def compare(request):
    """Two or more series side by side: A, B and C_mid with their intervals, and the
    extrapolation to ten times the largest measured compute, labelled as one."""
    form = CompareForm(request.GET)
    context = {"nav": "results", "form": form, "series_list": [], "errors": []}
    if not request.GET:  # nothing asked yet: the page says how to choose, no error
        return render(request, "results/compare.html", context)
    if not form.is_valid():
        context["errors"] = form.non_field_errors()
        return render(request, "results/compare.html", context, status=400)
    found = {s.slug: s for s in public_series().filter(slug__in=form.slugs)}
    missing = [slug for slug in form.slugs if slug not in found]
    if missing:
        context["errors"] = [f"There is no series “{slug}”." for slug in missing]
        return render(request, "results/compare.html", context, status=400)
    series_list = [found[slug] for slug in form.slugs]
    for series in series_list:
        series.anchor = series.get_absolute_url()
    fits = fits_of(series_list)
    units = {series.benchmark.unit for series in series_list}
    context.update(
        series_list=series_list,
        fits=fits,
        rows=compare_rows(series_list, fits),
        predictions=predictions(series_list, fits),
        charts=build_charts(
            series_list, points_of(series_list), fits, unit=units.pop() if len(units) == 1 else ""
        ),
        mixed_benchmarks=len({series.benchmark_id for series in series_list}) > 1,
    )
    return render(request, "results/compare.html", context)


def compare_rows(series_list, fits):
    """The compare table: per parameter, per series, (value, interval) or the refusal."""
    rows = []
    for kind, names in (("sigmoid", ("A", "B", "C_mid", "R0")), ("power", ("a", "b"))):
        for name in names:
            cells = []
            for series in series_list:
                fit = fits[series.pk].get(kind)
                if fit is None or fit.refused:
                    cells.append({"missing": True})
                else:
                    cells.append(
                        {"value": fit.params.get(name), "interval": fit.intervals.get(name)}
                    )
            rows.append({"kind": FitKind(kind).label, "name": name, "cells": cells})
    return rows


def predictions(series_list, fits):
    """Per series, the accepted sigmoid's value at ten times its largest measured compute
    (results/fits.py), or None: an extrapolation, shown only as one."""
    cells = []
    for series in series_list:
        fit = fits[series.pk].get("sigmoid")
        prediction = fit.params.get("prediction_10x") if fit and not fit.refused else None
        cells.append({**prediction, "axis": fit.get_axis_display()} if prediction else None)
    return cells
