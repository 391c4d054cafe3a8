import contextlib

from django import forms
from django.contrib import admin
from django.db.models import Exists, OuterRef
from taggit.models import Tag as TaggitTag

from publishing.permissions import LiveRowsAdminMixin
from tags.models import Tag

# The site's tags are rlscaling.Tag (typed through models per tagged model); taggit's own
# table only held them before migration rlscaling 0002.
with contextlib.suppress(admin.sites.NotRegistered):
    admin.site.unregister(TaggitTag)


class TagsInUseFilter(admin.RelatedFieldListFilter):
    """The tags that some row of this list carries, as RelatedOnlyFieldListFilter offers, but
    found with one EXISTS per tag on the tagged rows' (tag, item) index instead of a DISTINCT
    over every tagged row (0.36 s at 100k papers)."""

    def field_choices(self, field, request, model_admin):
        tagged = field.remote_field.through.objects.filter(tag=OuterRef("pk"))
        tags = field.related_model._default_manager.filter(Exists(tagged)).order_by("name")
        return [(tag.pk, str(tag)) for tag in tags]


class TagForm(forms.ModelForm):
    # taggit's slug field takes letters such as é; the tag's address (`<slug:slug>`) does not.
    slug = forms.SlugField(
        max_length=100,
        help_text="The tag's address: ASCII letters, digits, hyphens or underscores.",
    )

    class Meta:
        model = Tag
        fields = ["name", "slug", "display_name", "description"]


@admin.register(Tag)
class TagAdmin(LiveRowsAdminMixin, admin.ModelAdmin):
    form = TagForm
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
