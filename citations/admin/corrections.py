"""Readers' correction suggestions in the admin: inline on the edge's change form (accept or
dismiss each pending one there) and a changelist of their own with the same two actions."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html

from citations.corrections.models import CorrectionSuggestion
from citations.models import Citation
from publishing.permissions import may_change_live

DECISIONS = [("", "Keep pending"), ("accept", "Accept"), ("dismiss", "Dismiss")]


def may_reclassify(request):
    # Readers suggest on public edges: accepting one changes a live edge (the publish right).
    return request.user.has_perms(
        ["citations.change_citation", "citations.change_correctionsuggestion"]
    ) and may_change_live(request.user, Citation)


def decide(suggestion, decision, user):
    if decision == "accept":
        suggestion.accept(user)
    elif decision == "dismiss":
        suggestion.dismiss(user)


class SuggestionDecisionForm(forms.ModelForm):
    decision = forms.ChoiceField(choices=DECISIONS, required=False)

    class Meta:
        model = CorrectionSuggestion
        fields = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.status != CorrectionSuggestion.Status.PENDING:
            self.fields["decision"].disabled = True


class CorrectionSuggestionInline(admin.TabularInline):
    """Shown on the edge's change form; the decisions are carried out by
    `CitationAdmin.save_formset` (through `apply_decisions`), after the edge itself is saved."""

    model = CorrectionSuggestion
    form = SuggestionDecisionForm
    fields = [
        "suggested_role",
        "suggested_polarity",
        "reason",
        "email",
        "status",
        "created_at",
        "decision",
    ]
    readonly_fields = [name for name in fields if name != "decision"]
    extra = 0
    can_delete = False
    show_change_link = True
    verbose_name_plural = "reader suggestions"

    def has_add_permission(self, request, obj=None):
        return False


def apply_decisions(request, formset):
    """Accept or dismiss the suggestions the editor decided on in the inline."""
    if not may_reclassify(request):
        return
    for form in formset.forms:
        decision = form.cleaned_data.get("decision") if hasattr(form, "cleaned_data") else None
        if decision:
            decide(form.instance, decision, request.user)


def decide_selected(modeladmin, request, queryset, decision, done):
    count = 0
    for suggestion in queryset.select_related("citation"):
        try:
            decide(suggestion, decision, request.user)
            count += 1
        except ValidationError as error:
            modeladmin.message_user(
                request, f"#{suggestion.pk}: {error.messages[0]}", messages.WARNING
            )
    modeladmin.message_user(request, f"{done} {count} suggestion(s).", messages.SUCCESS)


@admin.action(
    description="Accept the selected suggestions (reclassify the edges)", permissions=["decide"]
)
def accept_selected(modeladmin, request, queryset):
    decide_selected(modeladmin, request, queryset, "accept", "Accepted")


@admin.action(description="Dismiss the selected suggestions", permissions=["decide"])
def dismiss_selected(modeladmin, request, queryset):
    decide_selected(modeladmin, request, queryset, "dismiss", "Dismissed")


@admin.register(CorrectionSuggestion)
class CorrectionSuggestionAdmin(admin.ModelAdmin):
    list_display = ["__str__", "edge", "classified_now", "suggested_terms", "status", "created_at"]
    list_filter = ["status"]
    list_select_related = [
        "citation__citing_paper",
        "citation__cited_paper",
        "citation__role",
        "citation__polarity",
        "suggested_role",
        "suggested_polarity",
    ]
    search_fields = ["reason", "email", "citation__citing_paper__title"]
    actions = [accept_selected, dismiss_selected]
    readonly_fields = [
        "edge",
        "classified_now",
        "suggested_role",
        "suggested_polarity",
        "reason",
        "email",
        "status",
        "created_at",
        "decided_at",
        "decided_by",
    ]
    fields = readonly_fields

    def has_add_permission(self, request):
        return False

    def has_decide_permission(self, request):
        return may_reclassify(request)

    @admin.display(description="edge")
    def edge(self, suggestion):
        url = reverse("admin:citations_citation_change", args=[suggestion.citation_id])
        return format_html('<a href="{}">{}</a>', url, suggestion.citation)

    @admin.display(description="classified now")
    def classified_now(self, suggestion):
        edge = suggestion.citation
        return " / ".join(str(term) for term in (edge.role, edge.polarity) if term) or "—"
