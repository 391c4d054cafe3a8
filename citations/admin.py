from django import forms
from django.contrib import admin
from django.forms.models import InlineForeignKeyField
from simple_history.admin import SimpleHistoryAdmin

from rlscaling.publishing.admin import PublishableAdmin

from .models import Author, Authorship, Citation, CitationPolarity, CitationRole, Paper


class AuthorshipInline(admin.TabularInline):
    model = Authorship
    extra = 1
    autocomplete_fields = ["author"]


class CitationInlineForm(forms.ModelForm):
    """An edge edited on one of its papers' pages. That paper is the inline's hidden foreign
    key, so an error the model puts on it (`Citation.check_edge`) is shown on the other end,
    the field the editor chose."""

    ENDS = ("citing_paper", "cited_paper")

    def add_error(self, field, error):
        if field is None and hasattr(error, "error_dict"):
            for hidden, shown in (self.ENDS, self.ENDS[::-1]):
                if isinstance(self.fields.get(hidden), InlineForeignKeyField):
                    moved = error.error_dict.pop(hidden, [])
                    if moved:
                        error.error_dict.setdefault(shown, []).extend(moved)
        super().add_error(field, error)


class CitationInline(admin.TabularInline):
    """A paper's edges in one direction: the paper is the foreign key `fk_name`, and the editor
    picks the paper at the `other_end` (with autocomplete)."""

    model = Citation
    form = CitationInlineForm
    extra = 0
    show_change_link = True
    other_end = None

    def get_fields(self, request, obj=None):
        return [self.other_end, "role", "polarity", "is_representative", "context", "status"]

    def get_autocomplete_fields(self, request):
        return [self.other_end]


class CitationsReceivedInline(CitationInline):
    fk_name, other_end = "cited_paper", "citing_paper"
    verbose_name, verbose_name_plural = "citing paper", "cited by (citations received)"


class CitationsMadeInline(CitationInline):
    fk_name, other_end = "citing_paper", "cited_paper"
    verbose_name, verbose_name_plural = "cited paper", "cites (citations made)"


@admin.register(Paper)
class PaperAdmin(PublishableAdmin):
    list_display = [
        "title",
        "byline",
        "publication_date",
        "is_canonical_reference",
        "in_research_index",
        "status",
    ]
    list_filter = [
        "status",
        "is_canonical_reference",
        "in_research_index",
        "layers",
        ("tags", admin.RelatedOnlyFieldListFilter),
    ]
    search_fields = ["title", "byline", "institution", "arxiv_id", "doi", "summary"]
    prepopulated_fields = {"slug": ["title"]}
    filter_horizontal = ["layers"]
    date_hierarchy = "publication_date"
    inlines = [AuthorshipInline, CitationsMadeInline, CitationsReceivedInline]
    fieldsets = [
        (None, {"fields": ["title", "slug", "byline", "institution", "publication_date"]}),
        ("Identifiers", {"fields": ["arxiv_id", "doi", "url"]}),
        ("Publication", {"fields": ["publication_type", "venue", "arxiv_category"]}),
        ("Editorial", {"fields": ["summary", "abstract", "tags", "layers"]}),
        (
            "Publishing",
            {
                "fields": [
                    "status",
                    "published_at",
                    "is_canonical_reference",
                    "in_research_index",
                    "created_at",
                    "updated_at",
                    "version",
                ]
            },
        ),
    ]


@admin.register(Citation)
class CitationAdmin(PublishableAdmin):
    list_display = [
        "citing_paper",
        "cited_paper",
        "role",
        "polarity",
        "source",
        "is_representative",
        "status",
    ]
    list_filter = ["status", "role", "polarity", "source", "is_representative"]
    search_fields = ["citing_paper__title", "cited_paper__title", "context"]
    autocomplete_fields = ["citing_paper", "cited_paper"]
    list_select_related = ["citing_paper", "cited_paper", "role", "polarity"]
    # Recorded by Citation.record_classification() whenever the role or polarity changes.
    readonly_fields = [*PublishableAdmin.readonly_fields, "classified_at", "classified_by"]


class VocabularyAdmin(SimpleHistoryAdmin):
    list_display = ["name", "slug", "order"]
    list_editable = ["order"]
    search_fields = ["name", "description"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(CitationRole)
class CitationRoleAdmin(VocabularyAdmin):
    pass


@admin.register(CitationPolarity)
class CitationPolarityAdmin(VocabularyAdmin):
    pass


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    search_fields = ["name"]


# Imports, possible duplicates and merges (citations/admin_identity.py).
from . import admin_identity  # noqa: E402, F401
