from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from rlscaling.admin import TagsInUseFilter
from rlscaling.publishing.admin import LengthCheckedOnSaveMixin, PublishableAdmin

from .models import CommunityPost, GuideSection, Question, ReportedFigure, ResearchNote


class ReportedFigureInline(LengthCheckedOnSaveMixin, admin.TabularInline):
    model = ReportedFigure
    extra = 1


@admin.register(ResearchNote)
class ResearchNoteAdmin(PublishableAdmin):
    list_display = ["title", "is_featured", "status", "published_at", "review_by", "updated_at"]
    list_filter = ["status", "is_featured", "layers", ("tags", TagsInUseFilter)]
    search_fields = ["title", "dek", "body", "why_it_matters"]
    prepopulated_fields = {"slug": ["title"]}
    autocomplete_fields = ["papers"]
    filter_horizontal = ["layers"]
    date_hierarchy = "published_at"
    inlines = [ReportedFigureInline]


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
class GuideSectionAdmin(SimpleHistoryAdmin):
    list_display = ["key", "number", "heading", "order", "updated_at"]
    list_editable = ["order"]
    search_fields = ["key", "heading", "intro", "footnote"]
