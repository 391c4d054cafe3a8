from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from rlscaling.publishing.admin import PublishableAdmin

from .models import Author, Authorship, Citation, CitationPolarity, CitationRole, Paper


class AuthorshipInline(admin.TabularInline):
    model = Authorship
    extra = 1
    autocomplete_fields = ["author"]


class CitationFieldsMixin:
    model = Citation
    extra = 0
    fields = ["role", "polarity", "is_representative", "context", "status"]
    show_change_link = True


class CitationsReceivedInline(CitationFieldsMixin, admin.TabularInline):
    fk_name = "cited_paper"
    fields = ["citing_paper", *CitationFieldsMixin.fields]
    autocomplete_fields = ["citing_paper"]
    verbose_name = "citing paper"
    verbose_name_plural = "cited by (citations received)"


class CitationsMadeInline(CitationFieldsMixin, admin.TabularInline):
    fk_name = "citing_paper"
    fields = ["cited_paper", *CitationFieldsMixin.fields]
    autocomplete_fields = ["cited_paper"]
    verbose_name = "cited paper"
    verbose_name_plural = "cites (citations made)"


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
        "is_representative",
        "status",
    ]
    list_filter = ["status", "role", "polarity", "is_representative"]
    search_fields = ["citing_paper__title", "cited_paper__title", "context"]
    autocomplete_fields = ["citing_paper", "cited_paper"]
    list_select_related = ["citing_paper", "cited_paper", "role", "polarity"]


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
