from django.contrib import admin, messages
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from simple_history.admin import SimpleHistoryAdmin

from notes.guide import unsupported_copy
from notes.models import CommunityPost, GuideSection, Question, ResearchNote
from publishing.admin import PublishableAdmin
from publishing.history_admin import HistoryAdminMixin
from publishing.permissions import LiveRowsAdminMixin
from tags.admin import TagsInUseFilter


@admin.register(ResearchNote)
class ResearchNoteAdmin(PublishableAdmin):
    list_display = ["title", "is_featured", "status", "published_at", "review_by", "updated_at"]
    list_filter = ["status", "is_featured", "layers", ("tags", TagsInUseFilter)]
    search_fields = ["title", "dek", "body", "why_it_matters"]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["papers"]
    filter_horizontal = ["layers"]
    date_hierarchy = "published_at"
    readonly_fields = [*PublishableAdmin.readonly_fields, "claims_and_figures"]

    @admin.display(description="Claims and figures")
    def claims_and_figures(self, obj):
        """The note's claims, read-only: a note's figures are the figures of its published
        claims, which editors link to the note in the claim's own form."""
        claims_meta = ResearchNote._meta.get_field("claims").related_model._meta
        base = f"admin:{claims_meta.app_label}_{claims_meta.model_name}"
        try:
            add_url = reverse(f"{base}_add")
        except NoReverseMatch:  # the claim admin is not installed
            return "-"
        add = (
            format_html('<a href="{}?notes={}">Add a claim on this note</a>', add_url, obj.pk)
            if obj.pk
            else "Save the note first, then add claims on it."
        )
        claims = list(obj.claims.order_by("pk")) if obj.pk else []
        if not claims:
            return format_html("No claims yet. {}", add)
        rows = format_html_join(
            "",
            '<li><a href="{}">{}</a> ({})</li>',
            (
                (
                    reverse(f"{base}_change", args=[claim.pk]),
                    str(claim),
                    claim.get_publication_state_display(),
                )
                for claim in claims
            ),
        )
        return format_html(
            "<ul>{}</ul><p>The figures of the published ones show on the note, in this order. "
            "{}</p>",
            rows,
            add,
        )


@admin.register(CommunityPost)
class CommunityPostAdmin(PublishableAdmin):
    list_display = ["title", "author", "source", "year", "order", "status"]
    list_filter = ["status", "source", "year"]
    search_fields = ["title", "author", "summary"]
    prepopulated_fields = {"slug": ["title"]}


@admin.register(Question)
class QuestionAdmin(PublishableAdmin):
    list_display = ["question", "kind", "order", "status"]
    list_filter = ["status", "kind"]
    list_editable = ["order"]
    search_fields = ["question", "answer"]


@admin.register(GuideSection)
class GuideSectionAdmin(LiveRowsAdminMixin, HistoryAdminMixin, SimpleHistoryAdmin):
    list_display = ["key", "number", "heading", "order", "updated_at"]
    list_editable = ["order"]
    search_fields = ["key", "heading", "intro", "footnote"]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The section's words that what it lists no longer supports, said above the form."""
        if request.method == "GET":
            section = self.get_object(request, object_id)
            for unsupported in unsupported_copy([section]) if section else []:
                messages.warning(request, f"The data no longer supports {unsupported}.")
        return super().change_view(request, object_id, form_url, extra_context)
