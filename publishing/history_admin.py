"""History in the admin, for every Publishable: revert restores relations too, deleted items
are recovered from their last record, any two revisions are compared side by side."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from taggit.managers import TaggableManager
from taggit.models import Tag

from publishing.compare import compare_records, compare_relations
from publishing.history import restore_relations, tracked_m2m_fields
from publishing.models import format_moment
from publishing.recovery import RecoveryReport, join_words, restore_deleted


class HistoryAdminMixin:
    object_history_template = "admin/publishing/object_history.html"
    object_history_list_template = "admin/publishing/object_history_list.html"
    change_list_template = "admin/publishing/change_list.html"

    def get_urls(self):
        info = f"{self.model._meta.app_label}_{self.model._meta.model_name}"
        view = self.admin_site.admin_view
        return [
            path("recover/", view(self.recover_list_view), name=f"{info}_recover"),
            path(
                "<path:object_id>/history/compare/",
                view(self.history_compare_view),
                name=f"{info}_history_compare",
            ),
            *super().get_urls(),
        ]

    def set_history_delta_changes(self, request, historical_records, **kwargs):
        """simple-history lists the fields each record changed; relations (tags, layers,
        authors, figures) are not fields, so a change of only those left the column empty.
        Each record also lists the relations that differ from the record before it."""
        super().set_history_delta_changes(request, historical_records, **kwargs)
        records = list(historical_records)
        for newer, older in zip(records, records[1:], strict=False):
            changed = [row for row in compare_relations(self.model, older, newer) if row.changed]
            if not changed:
                continue
            listed = list(getattr(newer, "history_delta_changes", None) or [])
            for row in changed:
                old = " ".join(text for _, text in row.old)
                new = " ".join(text for _, text in row.new)
                listed.append({"field": row.label, "old": old or "—", "new": new or "—"})
            newer.history_delta_changes = listed

    def _history_record(self, object_id, version_id):
        history = self.model.history
        lookup = {self.model._meta.pk.attname: object_id, "history_id": version_id}
        return get_object_or_404(history.model, **lookup)

    # -- revert and recover -------------------------------------------------------------------

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        """The revert form shows the record's tags and other relations; saving it also puts
        back the record's child rows (authors in order, figures, ...), and a deleted item comes
        back whole, with what its delete took with it (publishing/recovery.py)."""
        request._reverting_record = self._history_record(object_id, version_id)
        request._recovering = not self.model._base_manager.filter(pk=object_id).exists()
        return super().history_form_view(request, object_id, version_id, extra_context)

    def response_change(self, request, obj):
        record = getattr(request, "_reverting_record", None)
        snapshot = getattr(record, "related_snapshot", None)
        if record is None:
            return super().response_change(request, obj)
        form_fields = set(self.get_form(request, obj).base_fields)
        report = RecoveryReport()
        if request._recovering:
            restore_deleted(obj, snapshot, request.user, report, form_fields)
        elif snapshot:
            restore_relations(
                obj,
                {
                    "m2m": {
                        name: values
                        for name, values in snapshot.get("m2m", {}).items()
                        if name not in form_fields
                    },
                    "children": snapshot.get("children", {}),
                },
            )
        # Django says "was changed successfully" after a revert or a recovery: say which.
        name = f"“{obj}”"
        when = format_moment(record.history_date)
        if request._recovering:
            phrases = report.phrases()
            also = f" and {join_words(phrases)}" if phrases else ""
            message = f"Recovered {name}{also}, as they were when deleted ({when})."
        else:
            who = record.history_user
            by = f" by {who.get_full_name() or who.get_username()}" if who else ""
            message = f"Reverted {name} to the version of {when}{by}."
        request._revert_message = message
        response = super().response_change(request, obj)
        if report.missed:
            self.message_user(
                request,
                f"Not recovered with {name}: {'; '.join(report.missed)}.",
                messages.WARNING,
            )
        return response

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        revert_message = getattr(request, "_revert_message", None)
        if revert_message and level == messages.SUCCESS and "successfully" in str(message):
            message = revert_message
        return super().message_user(request, message, level, *args, **kwargs)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        record = getattr(request, "_reverting_record", None)
        snapshot = getattr(record, "related_snapshot", None)
        if not snapshot:
            return form
        initial = {}
        for field in tracked_m2m_fields(self.model):
            values = snapshot.get("m2m", {}).get(field.name)
            if field.name in form.base_fields and values is not None:
                if isinstance(field, TaggableManager):
                    values = [Tag(name=name) for name in values]
                initial[field.name] = values

        class RevertForm(form):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.initial.update(initial)  # the record's relations, not today's

        RevertForm.__name__ = form.__name__
        return RevertForm

    def recover_list_view(self, request):
        """Deleted items of this model, newest deletion first, each with a link to its last
        record: saving that form recreates the item with its relations."""
        if not (self.has_add_permission(request) and self.has_view_permission(request)):
            raise PermissionDenied
        opts = self.model._meta
        pk_name = opts.pk.attname
        existing = self.model._base_manager.values(pk_name)
        deletions = (
            self.model.history.filter(history_type="-")
            .exclude(**{f"{pk_name}__in": existing})
            .select_related("history_user")
            .order_by("-history_date", "-history_id")
        )
        seen, items = set(), []
        for record in deletions[:500]:
            object_id = getattr(record, pk_name)
            if object_id in seen:
                continue
            seen.add(object_id)
            url_name = f"admin:{opts.app_label}_{opts.model_name}_simple_history"
            items.append(
                {
                    "record": record,
                    "title": str(record.instance),
                    "recover_url": reverse(url_name, args=[object_id, record.history_id]),
                }
            )
        context = {
            **self.admin_site.each_context(request),
            "opts": opts,
            "title": f"Recover deleted {opts.verbose_name_plural}",
            "items": items,
        }
        return TemplateResponse(request, "admin/publishing/recover_list.html", context)

    # -- compare ------------------------------------------------------------------------------

    def history_compare_view(self, request, object_id):
        """Any two records of one item side by side (?old=<history id>&new=<history id>)."""
        history = self.model.history.filter(**{self.model._meta.pk.attname: object_id})
        records = history.order_by("history_date", "history_id")
        if not records.exists():
            raise Http404
        obj = records.last().instance
        if not self.has_view_history_or_change_history_permission(request, obj):
            raise PermissionDenied
        try:
            old_id = int(request.GET.get("old") or records[max(records.count() - 2, 0)].pk)
            new_id = int(request.GET.get("new") or records.last().pk)
        except ValueError as error:
            raise Http404("Unknown revision.") from error
        found = history.in_bulk([old_id, new_id])
        if old_id not in found or new_id not in found:
            raise Http404("Unknown revision.")
        old, new = found[old_id], found[new_id]
        if (old.history_date, old.pk) > (new.history_date, new.pk):
            old, new = new, old
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "opts": opts,
            "object": obj,
            "title": f"Compare revisions of {obj}",
            "old": old,
            "new": new,
            "rows": compare_records(self.model, old, new),
            "records": records.select_related("history_user"),
            "history_url": reverse(
                f"admin:{opts.app_label}_{opts.model_name}_history", args=[object_id]
            ),
        }
        return TemplateResponse(request, "admin/publishing/history_compare.html", context)
