"""Admin for benchmarks and series: a series is edited with its points inline, and shows the
stored fits (computed by the task queue after the save)."""

from django.contrib import admin
from django.utils import timezone

from publishing.admin import LengthCheckedOnSaveMixin, PublishableAdmin
from results.models import Benchmark, Fit, Result, Series

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
