import contextlib

from django.contrib import admin
from taggit.models import Tag as TaggitTag

from .models import Tag

# The site's tags are rlscaling.Tag (typed through models per tagged model); taggit's own
# table only held them before migration rlscaling 0002.
with contextlib.suppress(admin.sites.NotRegistered):
    admin.site.unregister(TaggitTag)


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    list_display = ["name", "display_name", "slug", "public_paper_count", "public_note_count"]
    list_editable = ["display_name"]
    search_fields = ["name", "display_name", "slug"]
    fields = [
        "name",
        "slug",
        "display_name",
        "description",
        "public_paper_count",
        "public_note_count",
    ]
    readonly_fields = ["public_paper_count", "public_note_count"]
    prepopulated_fields = {"slug": ["name"]}
    ordering = ["name"]
