"""Admin for claims, failure signals and discriminating tests: drafts first, like everything."""

from django.contrib import admin

from rlscaling.publishing.admin import LengthCheckedOnSaveMixin, PublishableAdmin

from .evidence import Claim, DiscriminatingTest, FailureSignal, SignalLayer

PUBLISHING_FIELDS = ["status", "published_at", "created_at", "updated_at", "version"]


@admin.register(Claim)
class ClaimAdmin(PublishableAdmin):
    list_display = ["__str__", "evidence_status", "reported_on", "review_due", "status"]
    list_filter = ["status", "evidence_status", "layers", "task_family", "reward_type"]
    search_fields = ["statement", "figure", "unit", "model_name", "setup"]
    prepopulated_fields = {"slug": ["figure", "unit"]}
    autocomplete_fields = ["papers", "notes", "contrasting_citations", "superseded_by"]
    filter_horizontal = ["layers"]
    date_hierarchy = "reported_on"
    fieldsets = [
        (None, {"fields": ["statement", "slug", "figure", "unit", "direction", "reported_on"]}),
        ("Where it comes from", {"fields": ["papers", "notes", "layers"]}),
        (
            "The setup it holds in",
            {
                "fields": [
                    "model_name",
                    "model_size",
                    "task_family",
                    "reward_type",
                    "budget",
                    "setup",
                ]
            },
        ),
        (
            "Evidence status",
            {
                "fields": [
                    "evidence_status",
                    "reproduced_by",
                    "reproduction_url",
                    "contrasting_citations",
                    "superseded_by",
                    "last_reviewed",
                    "review_due",
                ]
            },
        ),
        ("Publishing", {"fields": PUBLISHING_FIELDS}),
    ]


class SignalLayerInline(LengthCheckedOnSaveMixin, admin.TabularInline):
    model = SignalLayer
    extra = 1


@admin.register(FailureSignal)
class FailureSignalAdmin(PublishableAdmin):
    list_display = ["text", "order", "status"]
    list_editable = ["order"]
    list_filter = ["status", "layers"]
    search_fields = ["text"]
    prepopulated_fields = {"slug": ["text"]}
    inlines = [SignalLayerInline]


@admin.register(DiscriminatingTest)
class DiscriminatingTestAdmin(PublishableAdmin):
    list_display = ["title", "cost", "status"]
    list_filter = ["status", "cost", "layers"]
    search_fields = ["title", "procedure", "interpretation"]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["claims", "papers"]
    filter_horizontal = ["layers"]
