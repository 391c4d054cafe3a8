from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from bottlenecks.models import Analysis, AnalysisStep, Dimension, Layer, LoopStage
from publishing.admin import LengthCheckedOnSaveMixin, PublishableAdmin
from publishing.history_admin import HistoryAdminMixin
from publishing.permissions import LiveRowsAdminMixin


class OrderedItemAdmin(PublishableAdmin):
    list_display = ["name", "order", "status", "updated_at"]
    list_editable = ["order"]
    search_fields = ["name", "description"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Dimension)
class DimensionAdmin(OrderedItemAdmin):
    pass


@admin.register(LoopStage)
class LoopStageAdmin(OrderedItemAdmin):
    pass


@admin.register(Layer)
class LayerAdmin(OrderedItemAdmin):
    search_fields = ["name", "description", "failure_signal", "diagnostic_question"]


class AnalysisStepInline(LengthCheckedOnSaveMixin, admin.TabularInline):
    model = AnalysisStep
    extra = 1


@admin.register(Analysis)
class AnalysisAdmin(PublishableAdmin):
    list_display = ["title", "number", "status", "published_at", "updated_at"]
    search_fields = ["title", "dek", "body"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [AnalysisStepInline]


@admin.register(AnalysisStep)
class AnalysisStepAdmin(LiveRowsAdminMixin, HistoryAdminMixin, SimpleHistoryAdmin):
    list_display = ["title", "analysis", "order"]
    list_filter = ["analysis"]
    search_fields = ["title", "body"]
