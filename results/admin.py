"""Admin for benchmarks and series: a series is edited with its points inline, and shows the
stored fits (computed by the task queue after the save). Results import runs: upload a CSV,
see the dry run, apply it (a large file on the task worker)."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from core.text import NamedRefusalsForm
from publishing.admin import LengthCheckedOnSaveMixin, PublishableAdmin
from results.importer import (
    BadUpload,
    confirm_run,
    in_background,
    may_import,
    plan_text,
    read_upload,
    start_run,
)
from results.models import Benchmark, Fit, Result, ResultsImportRun, Series

PUBLISHING_FIELDS = ["status", "published_at", "created_at", "updated_at", "version"]


@admin.register(Benchmark)
class BenchmarkAdmin(PublishableAdmin):
    list_display = ["name", "metric", "unit", "task_family", "status"]
    list_filter = ["status", "task_family"]
    search_fields = ["name", "metric", "description"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "name",
                    "slug",
                    "task_family",
                    "metric",
                    "unit",
                    "higher_is_better",
                    "description",
                    "url",
                ]
            },
        ),
        ("Publishing", {"fields": PUBLISHING_FIELDS}),
    ]


class ResultInline(LengthCheckedOnSaveMixin, admin.TabularInline):
    model = Result
    extra = 3
    fields = Result.ENTERED_FIELDS


class FitInline(admin.TabularInline):
    """The stored fits, read-only: the worker writes them after the points change."""

    model = Fit
    extra = 0
    can_delete = False
    fields = ["kind", "axis", "params", "intervals", "r_squared", "reason_refused", "fitted_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Series)
class SeriesAdmin(PublishableAdmin):
    list_display = ["name", "benchmark", "paper", "model_name", "checked_at", "status"]
    list_filter = ["status", "benchmark", "task_family", "model_size", "reward_type"]
    search_fields = ["name", "model_name", "base_model", "recipe"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["paper", "benchmark", "recipe_tags"]
    list_select_related = ["benchmark", "paper"]
    inlines = [ResultInline, FitInline]
    change_list_template = "admin/results/series/change_list.html"
    fieldsets = [
        (None, {"fields": ["name", "slug", "paper", "benchmark", "source_location"]}),
        (
            "Model and recipe",
            {"fields": ["model_name", "model_params_b", "base_model", "recipe", "recipe_tags"]},
        ),
        ("Setting", {"fields": ["task_family", "model_size", "reward_type"]}),
        ("Provenance", {"fields": ["entered_by", "checked_by", "checked_at"]}),
        ("Publishing", {"fields": PUBLISHING_FIELDS}),
    ]
    readonly_fields = [*PublishableAdmin.readonly_fields, "entered_by"]

    def save_model(self, request, obj, form, change):
        if not change and obj.entered_by_id is None:
            obj.entered_by = request.user
        if obj.checked_by_id and obj.checked_at is None:
            obj.checked_at = timezone.now()
        super().save_model(request, obj, form, change)


class ResultsImportForm(NamedRefusalsForm, forms.Form):
    file = forms.FileField(help_text="A CSV in the template's columns (docs/results.md), UTF-8.")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        try:
            self.cleaned_data["text"] = read_upload(upload)
        except BadUpload as error:
            raise forms.ValidationError(str(error)) from None
        return upload


@admin.register(ResultsImportRun)
class ResultsImportRunAdmin(admin.ModelAdmin):
    """Upload, dry run, apply. The run's page (`run/`) shows the dry run or the outcome and
    refreshes itself while the worker has the run."""

    list_display = ["run_link", "created_by", "created_at", "state", "rows", "summary"]
    list_filter = ["state"]
    list_display_links = None
    readonly_fields = [
        "name",
        "state",
        "rows",
        "summary",
        "counts",
        "written",
        "created_by",
        "applied_by",
        "created_at",
        "finished_at",
        "task_id",
        "report",
    ]
    exclude = ["text"]

    def has_change_permission(self, request, obj=None):
        return False

    def may_import(self, request):
        return may_import(request.user)

    def has_add_permission(self, request):
        return self.may_import(request)

    def get_urls(self):
        return [
            path(
                "<int:pk>/run/",
                self.admin_site.admin_view(self.run_view),
                name="results_resultsimportrun_run",
            ),
            *super().get_urls(),
        ]

    @admin.display(description="import run")
    def run_link(self, run):
        url = reverse("admin:results_resultsimportrun_run", args=[run.pk])
        return format_html('<a href="{}">{}</a>', url, run)

    def changelist_view(self, request, extra_context=None):
        context = {**(extra_context or {}), "title": "Results imports"}
        return super().changelist_view(request, context)

    def add_view(self, request, form_url="", extra_context=None):
        """Upload, then the dry run (nothing written but the run itself); a large file's dry
        run is made by the worker, its page refreshing until the report is ready."""
        if not self.may_import(request):
            raise PermissionDenied
        form = ResultsImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            run, _ = start_run(form.cleaned_data["text"], upload.name, request.user)
            return redirect("admin:results_resultsimportrun_run", run.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "form": form,
            "title": "Import results (CSV)",
        }
        return TemplateResponse(request, "admin/results/import_form.html", context)

    def run_view(self, request, pk):
        run = get_object_or_404(ResultsImportRun, pk=pk)
        if not self.may_import(request):
            raise PermissionDenied
        if request.method == "POST":
            problem = confirm_run(run, request.user)
            if problem:
                self.message_user(request, problem, messages.ERROR)
            elif run.state == ResultsImportRun.State.QUEUED:
                self.message_user(request, f"{run.rows} rows queued for the worker.")
            else:
                self.message_user(
                    request,
                    f"Applied: {run.summary}; {run.written} point(s) written.",
                    messages.SUCCESS,
                )
            return redirect("admin:results_resultsimportrun_run", run.pk)
        refusal = ""
        previewed = run.state == ResultsImportRun.State.PREVIEWED and not run.has_errors
        # Judged now, for this user; a large file is judged by the worker as it is applied.
        if previewed and not in_background(run.text):
            refusal = plan_text(run.text, run.created_by).refusal(request.user)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "run": run,
            "refusal": refusal,
            "title": f"Results import: {run.name}",
        }
        return TemplateResponse(request, "admin/results/import_run.html", context)
