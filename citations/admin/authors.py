"""Admin for authors: the authors themselves (with the "Merge selected authors into …" action
and its confirmation page), their old slugs, and the author merge log with undo."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count
from django.template.response import TemplateResponse
from simple_history.admin import SimpleHistoryAdmin

from citations.admin.identity import may_merge
from citations.author_merging import (
    MergeRefused,
    merge_authors,
    merge_refusal,
    same_person_reason,
    undo_author_merge,
)
from citations.models import Author, AuthorMerge, AuthorSlugAlias
from citations.models.authors import author_alias_refusal
from publishing.history_admin import HistoryAdminMixin
from publishing.permissions import LiveRowsAdminMixin


class AuthorForm(forms.ModelForm):
    class Meta:
        model = Author
        fields = ["name", "slug", "orcid"]

    def clean_slug(self):
        slug = self.cleaned_data.get("slug")
        if slug and (refusal := author_alias_refusal(Author(pk=self.instance.pk, slug=slug))):
            raise forms.ValidationError(refusal, code="alias_taken")
        return slug


@admin.register(Author)
class AuthorAdmin(LiveRowsAdminMixin, HistoryAdminMixin, SimpleHistoryAdmin):
    contributors_may_add = True  # an author shows only once a published paper names them
    form = AuthorForm
    list_display = ["name", "slug", "orcid"]
    search_fields = ["name", "slug", "orcid"]
    actions = ["merge_authors"]

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not may_merge(request.user, Author):
            actions.pop("merge_authors", None)
        return actions

    @admin.action(description="Merge selected authors into …")
    def merge_authors(self, request, queryset):
        """A confirmation page choosing the author to keep; its POST (keep=<pk>) merges the
        others into that one, all or none."""
        if not may_merge(request.user, Author):
            raise PermissionDenied
        authors = list(queryset.annotate(paper_count=Count("authorships")).order_by("name", "pk"))
        if len(authors) < 2:
            self.message_user(request, "Select two or more authors to merge.", messages.ERROR)
            return None
        keep = next((a for a in authors if str(a.pk) == request.POST.get("keep")), None)
        if request.POST.get("post") and keep is not None:
            return self._merge(request, keep, [a for a in authors if a.pk != keep.pk])
        first = authors[0]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Merge authors",
            "authors": authors,
            "reasons": [
                (other, same_person_reason(first, other), merge_refusal(first, other))
                for other in authors[1:]
            ],
            "selected": [str(a.pk) for a in authors],
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/citations/author_merge_confirm.html", context)

    def _merge(self, request, keep, others):
        try:
            with transaction.atomic():
                merged = [merge_authors(keep, other, user=request.user) for other in others]
        except MergeRefused as refusal:
            self.message_user(request, f"Nothing merged: {refusal}", messages.ERROR)
            return None
        slugs = ", ".join(merge.merged_slug for merge in merged)
        self.message_user(
            request,
            f"Merged {slugs} into {keep.slug}; undo it from the author merge log.",
            messages.SUCCESS,
        )
        return None


@admin.register(AuthorSlugAlias)
class AuthorSlugAliasAdmin(LiveRowsAdminMixin, admin.ModelAdmin):
    """Old slugs answering 301 to the author's current page."""

    list_display = ["slug", "author", "created_at"]
    search_fields = ["slug", "author__name"]
    autocomplete_fields = ["author"]


@admin.register(AuthorMerge)
class AuthorMergeAdmin(admin.ModelAdmin):
    list_display = ["merged_slug", "merged_name", "kept", "merged_by", "merged_at", "undone_at"]
    readonly_fields = ["kept", "merged_name", "merged_slug", "merged_by", "merged_at", "undone_at"]
    exclude = ["snapshot"]
    actions = ["undo"]

    def has_add_permission(self, request):
        return may_merge(request.user, Author)

    def add_view(self, request, form_url="", extra_context=None):
        """A merge is made from the authors list: this page says how."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Merge authors",
        }
        return TemplateResponse(request, "admin/citations/author_merge_how.html", context)

    def has_change_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not may_merge(request.user, Author):
            actions.pop("undo", None)
        return actions

    @admin.action(description="Undo the selected merges")
    def undo(self, request, queryset):
        if not may_merge(request.user, Author):
            raise PermissionDenied
        for merge in queryset.filter(undone_at=None).order_by("-merged_at", "-id"):
            try:
                author = undo_author_merge(merge, user=request.user)
            except MergeRefused as refusal:
                self.message_user(request, str(refusal), messages.ERROR)
            else:
                self.message_user(request, f"{author.slug} is back as their own author.")
