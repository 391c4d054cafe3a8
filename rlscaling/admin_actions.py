"""Admin pieces shared by every editorial model."""

from django.contrib import admin, messages
from simple_history.admin import SimpleHistoryAdmin


@admin.action(description="Publish selected items", permissions=["change"])
def publish_selected(modeladmin, request, queryset):
    count = queryset.publish()
    modeladmin.message_user(request, f"Published {count} item(s).", messages.SUCCESS)


@admin.action(description="Unpublish selected items (back to draft)", permissions=["change"])
def unpublish_selected(modeladmin, request, queryset):
    count = queryset.unpublish()
    modeladmin.message_user(request, f"Moved {count} item(s) back to draft.", messages.SUCCESS)


class PublishableAdmin(SimpleHistoryAdmin):
    """Status column and filter, bulk publish/unpublish, and history with revert."""

    actions = [publish_selected, unpublish_selected]
    list_filter = ["status"]
    readonly_fields = ["created_at", "updated_at", "version"]
    date_hierarchy = None
    save_on_top = True
