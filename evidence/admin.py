"""Admin for claims, failure signals and discriminating tests: drafts first, like everything."""

from django.contrib import admin, messages
from django.utils import timezone

from citations.models import Citation
from evidence.models import (
    Claim,
    DiscriminatingTest,
    EvidenceStatus,
    FailureSignal,
    SignalLayer,
    TestOutcome,
)
from evidence.receivers import CONTRASTING
from publishing.admin import LengthCheckedOnSaveMixin, PublishableAdmin, PublishableForm
from publishing.history import fit_change_reason


class ClaimForm(PublishableForm):
    def clean(self):
        cleaned_data = super().clean()
        if "contrasting_citations" in cleaned_data:
            # The model's clean() sees the citations being chosen, not only the saved ones.
            self.instance.contesting_chosen = list(cleaned_data["contrasting_citations"])
        if "papers" in cleaned_data:
            # Likewise the papers being chosen, whose placeholder dates the claim may not give.
            self.instance.papers_chosen = list(cleaned_data["papers"])
        return cleaned_data


class SourceFilter(admin.SimpleListFilter):
    title = "source on record"
    parameter_name = "source"

    def lookups(self, request, model_admin):
        return [("none", "No arXiv id, DOI or URL")]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.without_source()
        return queryset


class ReviewFilter(admin.SimpleListFilter):
    title = "review"
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [
            ("changed", "Evidence changed since the last review"),
            ("proposed", "A status is proposed"),
        ]

    def queryset(self, request, queryset):
        if self.value() == "changed":
            return queryset.evidence_changed_since_review()
        if self.value() == "proposed":
            return queryset.exclude(proposed_status="")
        return queryset


PUBLISHING_FIELDS = ["status", "published_at", "created_at", "updated_at", "version"]


def results_named(pairs):
    """The other papers' results of (own, other) pairs, as a claim's "reproduced by" or
    "contested by" names them."""
    named = dict.fromkeys(
        f"{other.series.paper} ({other.value:g} on {other.series.benchmark.name})"
        for _, other in pairs
    )
    return "; ".join(named)


@admin.register(Claim)
class ClaimAdmin(PublishableAdmin):
    form = ClaimForm
    list_display = [
        "__str__",
        "evidence_status",
        "proposed_status",
        "reported_on",
        "review_due",
        "status",
    ]
    list_filter = [
        "status",
        "evidence_status",
        ReviewFilter,
        SourceFilter,
        "layers",
        "task_family",
        "reward_type",
    ]
    readonly_fields = [
        *PublishableAdmin.readonly_fields,
        "proposed_status",
        "proposal_reason",
        "evidence_changed_at",
    ]
    actions = ["accept_proposed_status"]
    search_fields = ["statement", "figure", "unit", "model_name", "setup"]
    prepopulated_fields = {"slug": ["figure", "unit"]}
    autocomplete_fields = ["papers", "notes", "contrasting_citations", "superseded_by"]
    # Results are hundreds of thousands of rows at scale, edited inline in their series.
    raw_id_fields = ["results"]
    filter_horizontal = ["layers"]
    date_hierarchy = "reported_on"
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "statement",
                    "slug",
                    "figure",
                    "unit",
                    "direction",
                    ("reported_on", "reported_on_precision"),
                ]
            },
        ),
        ("Where it comes from", {"fields": ["papers", "notes", "layers"]}),
        (
            "The results that carry its figure",
            {
                "fields": ["results", "tolerance"],
                "description": "Another paper's comparable result within the tolerance "
                "proposes “reproduced”, one beyond it “contested” (same benchmark and setting, "
                "RL compute within a factor of two).",
            },
        ),
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
                    "setup_count",
                ]
            },
        ),
        (
            "Evidence status",
            {
                "fields": [
                    "proposed_status",
                    "proposal_reason",
                    "evidence_changed_at",
                    "evidence_status",
                    "reproduced_by",
                    "reproduction_url",
                    "contrasting_citations",
                    "contested_by",
                    "superseded_by",
                    "last_reviewed",
                    "review_due",
                ]
            },
        ),
        ("Publishing", {"fields": PUBLISHING_FIELDS}),
    ]

    @admin.action(
        description="Accept the proposed status (naming the contrasting citations or results)"
    )
    def accept_proposed_status(self, request, queryset):
        accepted = 0
        for claim in queryset.exclude(proposed_status=""):
            _, _, agreeing, contradicting = claim.results_verdict()
            if claim.proposed_status == EvidenceStatus.CONTESTED:
                contrasting = Citation.objects.filter(
                    cited_paper__in=claim.papers.all(), polarity__slug=CONTRASTING
                )
                if contradicting and not claim.contested_by:
                    claim.contested_by = results_named(contradicting)
                if not contrasting.exists() and not claim.contested_by:
                    continue
                claim.contrasting_citations.add(*contrasting)
            if claim.proposed_status == EvidenceStatus.REPRODUCED and not claim.reproduced_by:
                if not agreeing:
                    continue
                claim.reproduced_by = results_named(agreeing)[:300]
            reason = claim.proposal_reason
            claim.evidence_status = claim.proposed_status
            claim.last_reviewed = timezone.localdate()
            claim.review_due = None
            claim._change_reason = fit_change_reason(f"Accepted the proposed status: {reason}")
            claim.save()
            accepted += 1
        skipped = queryset.exclude(proposed_status="").count()
        self.message_user(request, f"Accepted {accepted} proposed statuses.", messages.SUCCESS)
        if skipped:
            self.message_user(
                request,
                f"{skipped} claims keep a proposal: nothing on record names what contests them.",
                messages.WARNING,
            )


class TestOutcomeInline(LengthCheckedOnSaveMixin, admin.TabularInline):
    model = TestOutcome
    extra = 1


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
    autocomplete_fields = ["claims", "papers", "series"]
    filter_horizontal = ["layers", "signals"]
    inlines = [TestOutcomeInline]
