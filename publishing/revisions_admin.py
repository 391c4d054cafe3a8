"""Draft revisions in the admin (see revisions.py): "Save as draft revision" on a live item's
change form, the draft revision loaded back into that form, a preview of it exactly as readers
will see it, "Publish draft revision" and "Discard draft revision".

Saving, loading and previewing a draft revision all run Django's own change-form code with the
draft's data, so validation, inline rows and the save itself are the ordinary ones:
- saving validates the posted form and formsets, then stores the data instead of the item;
- loading renders the form bound to the stored data (valid, so no errors are shown);
- previewing saves it for real inside a transaction, renders the item's public page from that
  state, and rolls everything back."""

import contextlib
import json
import re
from typing import NamedTuple

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, router, transaction
from django.http import Http404, HttpResponseRedirect, QueryDict
from django.shortcuts import get_object_or_404
from django.urls import path, resolve, reverse
from django.utils.cache import patch_cache_control
from taggit.managers import TaggableManager
from taggit.utils import edit_string_for_tags, parse_tags

from publishing.history import snapshot_relations, tracked_m2m_fields
from publishing.models import Status, can_publish
from publishing.revisions import DraftRevision, StaleDraftRevision


class DraftRevisionAdminMixin:
    change_form_template = "admin/publishing/change_form.html"

    def get_urls(self):
        info = f"{self.model._meta.app_label}_{self.model._meta.model_name}"
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/draft-revision/preview/",
                view(self.draft_revision_preview_view),
                name=f"{info}_draft_revision_preview",
            ),
            *super().get_urls(),
        ]

    def draft_revision_of(self, obj):
        if obj is None or obj.pk is None:
            return None
        return DraftRevision.objects.for_object(obj).select_related("author").first()

    @staticmethod
    def takes_draft_revisions(obj):
        """Live or scheduled items: a plain save of a draft is already private."""
        return obj is not None and obj.pk is not None and obj.status == Status.PUBLISHED

    # -- the change form ----------------------------------------------------------------------

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if object_id is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        revision = self.draft_revision_of(obj)
        may_change = self.has_change_permission(request, obj)
        extra_context = {
            **(extra_context or {}),
            "draft_revision": revision,
            "draft_revision_version": revision.revision if revision is not None else 0,
        }
        extra_context["takes_draft_revisions"] = may_change and self.takes_draft_revisions(obj)
        # Unpublished (or expired) since the draft revision was saved: it stays as the editors'
        # pending work; publishing it makes the item public again (with the permission).
        unpublished = revision is not None and obj.status != Status.PUBLISHED
        extra_context["draft_revision_unpublished"] = unpublished
        extra_context["shows_draft_revisions"] = may_change and (
            extra_context["takes_draft_revisions"] or revision is not None
        )
        extra_context["may_publish_draft_revision"] = not unpublished or can_publish(
            request.user, self.model
        )
        if revision and self._has_preview(obj):
            extra_context["draft_revision_preview_url"] = self._preview_url(obj)
        if request.method == "POST" and may_change:
            # Every door that writes, publishes or drops a draft revision checks that the form
            # was opened on the current one: otherwise another editor's would go unseen.
            if touches_draft_revision(request.POST) and (
                refused := self._refuse_stale_draft_revision(
                    request, obj, revision, object_id, form_url, extra_context
                )
            ):
                return refused
            if "_discard_draft_revision" in request.POST:
                if revision is not None:
                    revision.delete()
                    self.message_user(request, "The draft revision was discarded.")
                return HttpResponseRedirect(request.path)
            loaded = revision is not None and request.POST.get("_draft_revision")
            saving_draft = "_save_draft_revision" in request.POST
            if saving_draft and not self.takes_draft_revisions(obj):
                raise PermissionDenied
            republishing = loaded and unpublished and "_publish_draft_revision" in request.POST
            if republishing and not extra_context["may_publish_draft_revision"]:
                raise PermissionDenied
            if loaded:
                request.POST, conflicts, _ = self._reconcile(request, obj, revision, request.POST)
                if republishing:
                    request.POST.setlist("status", [Status.PUBLISHED])
                if conflicts and saving_draft:
                    # Saved again without choosing: still asked about when it is published.
                    request._draft_revision_base_version = revision.base_version
                    request._draft_revision_base_state = revision.base_state
                elif conflicts:
                    return self._ask_about_conflicts(
                        request, object_id, form_url, extra_context, conflicts
                    )
            request._saving_draft_revision = saving_draft
            try:
                response = super().changeform_view(request, object_id, form_url, extra_context)
            except StaleDraftRevision:  # lost a race after the check: rolled back
                self.message_user(
                    request,
                    "Another editor saved a draft revision at the same moment; nothing was "
                    "saved. Open the item again to see theirs.",
                    messages.ERROR,
                )
                return HttpResponseRedirect(request.path)
            saved_for_real = response.status_code == 302 and not saving_draft
            # A draft revision loaded into the saved form is now live: it is done.
            if saved_for_real and loaded:
                revision.delete()
            if saved_for_real and republishing:
                self.message_user(
                    request,
                    f"This {obj._meta.verbose_name} was unpublished after its draft revision "
                    "was saved; publishing the draft revision made it public again.",
                    messages.WARNING,
                )
            return response
        if revision is not None and may_change and request.GET.get("live") != "1":
            return self._render_with_draft(
                request, object_id, revision, obj, form_url, extra_context
            )
        return super().changeform_view(request, object_id, form_url, extra_context)

    def _reconcile(self, request, obj, revision, posted):
        """`posted` (a draft revision's data) against the live changes made since it was saved
        (see reconcile_with_live), over this change form's fields."""
        names = set(self.get_form(request, obj, change=True).base_fields)
        posted, conflicts, kept_live = reconcile_with_live(obj, revision, posted, names)
        base_rows = (revision.base_state or {}).get("rows", {})
        inlines = []
        for prefix, formset, inline in self._inline_formsets(request, obj):
            shown = self._rows_shown(request, obj, prefix, formset, inline, posted)
            asked, kept = reconcile_rows(posted, prefix, shown, base_rows.get(prefix, {}))
            conflicts, kept_live = conflicts + asked, kept_live + kept
            inlines.append((prefix, formset.model, set(formset.form.base_fields)))
        row_conflicts, rows_kept_live = rebase_inline_rows(posted, inlines)
        return posted, conflicts + row_conflicts, kept_live + rows_kept_live

    def _inline_formsets(self, request, obj):
        """[(prefix, formset class, inline)] of the change form's inline rows."""
        return [
            (formset.get_default_prefix(), formset, inline)
            for formset, inline in self.get_formsets_with_inlines(request, obj)
        ]

    def _rows_shown(self, request, obj, prefix, formset_class, inline, posted):
        """The inline rows of `prefix` that `posted` names, as the change form shows them now
        (RowsShown)."""
        model = formset_class.model
        pks = posted_row_pks(posted, prefix, model)
        queryset = inline.get_queryset(request).filter(pk__in=pks)
        formset = formset_class(instance=obj, prefix=prefix, queryset=queryset)
        return RowsShown(
            model=model,
            fields=dict(formset.empty_form.fields),
            now=row_values(formset),
            existing={
                str(pk)
                for pk in model._base_manager.filter(pk__in=pks).values_list("pk", flat=True)
            },
        )

    def base_state(self, request, obj, posted):
        """What a draft revision of `obj` made from `posted` is written against: the item's
        many-to-many relations and the inline rows the form posts, as they are now."""
        rows = {
            prefix: self._rows_shown(request, obj, prefix, formset, inline, posted).now
            for prefix, formset, inline in self._inline_formsets(request, obj)
        }
        return {"m2m": snapshot_relations(obj)["m2m"], "rows": rows}

    def _render_unsaved(self, request, object_id, form_url, context):
        """The posted form rendered back with `context`, nothing saved."""
        request._loading_draft_revision = True  # the form is rendered, never saved
        try:
            with transaction.atomic(using=router.db_for_write(self.model)):
                return self._changeform_view(request, object_id, form_url, context)
        finally:
            request._loading_draft_revision = False

    def _ask_about_conflicts(self, request, object_id, form_url, context, conflicts):
        """Publishing a draft revision over fields changed live since, without a choice for
        each: nothing is saved; the form comes back asking, both values shown."""
        names = ", ".join(conflict.verbose_name for conflict in conflicts)
        self.message_user(
            request,
            f"Changed since this draft revision was saved, on both sides: {names}. Nothing was "
            "published: choose, for each, the live value or the draft revision's, then publish.",
            messages.ERROR,
        )
        context = {
            **context,
            "draft_conflicts": conflicts,
            "draft_revision_loaded": True,
            "draft_row_bases": row_bases(request.POST),
        }
        return self._render_unsaved(request, object_id, form_url, context)

    def _refuse_stale_draft_revision(
        self, request, obj, revision, object_id, form_url, extra_context
    ):
        """A draft revision saved from a form opened on an older one (or on none) is refused:
        the editor's own form comes back with her text, the other's version shown beside it,
        and the version she has now seen, so saving again keeps hers knowingly."""
        expected = posted_revision_number(request.POST)
        current = revision.revision if revision is not None else 0
        if expected == current:
            return None
        who = getattr(revision, "author", None) or "Another editor"
        if revision is None:
            message = (
                "The draft revision you started from was published or discarded meanwhile. "
                "Your changes are still in the form: save them again as a new draft revision."
            )
        else:
            message = (
                f"{who} saved a draft revision of this {obj._meta.verbose_name} while you "
                "were editing it. Nothing was saved. Your changes are still in the form; "
                "their version is shown above it: read it, then save yours as the new draft "
                "revision (it replaces theirs) or copy what you want to keep."
            )
        self.message_user(request, message, messages.ERROR)
        context = {
            **extra_context,
            "draft_revision_version": current,
            "other_draft_revision": revision.differences(request.POST) if revision else [],
            "draft_revision_loaded": False,
        }
        return self._render_unsaved(request, object_id, form_url, context)

    def _render_with_draft(self, request, object_id, revision, obj, form_url, extra_context):
        """The change form bound to the draft revision's data (Django's own rendering: the POST
        branch with a form that reports itself invalid, so nothing is saved)."""
        posted, conflicts, kept_live = self._reconcile(
            request, obj, revision, revision.as_post(obj.version)
        )
        extra_context = {
            **extra_context,
            "draft_revision_loaded": True,
            "draft_conflicts": conflicts,
            "draft_revision_kept_live": kept_live,
            "draft_row_bases": row_bases(posted),
            "draft_revision_outdated": revision.base_version != obj.version,
        }
        request._loading_draft_revision = True
        method, post = request.method, request.POST
        request.method, request.POST = "POST", posted
        try:
            # In a transaction, as Django's changeform_view runs it: the stale-edit check locks
            # the row (SELECT ... FOR UPDATE), which PostgreSQL refuses outside one.
            with transaction.atomic(using=router.db_for_write(self.model)):
                return self._changeform_view(request, object_id, form_url, extra_context)
        finally:
            request.method, request.POST = method, post

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if not getattr(request, "_loading_draft_revision", False):
            return form

        class DraftRevisionForm(form):
            def is_valid(self):
                super().is_valid()  # validate (instance filled in), then render, never save
                return False

        DraftRevisionForm.__name__ = form.__name__
        return DraftRevisionForm

    # -- saving a draft revision instead of the item ------------------------------------------

    def save_draft_revision(self, request, obj, form):
        """Called by PublishableAdmin.save_model when the editor saved a draft revision."""
        live = type(obj)._base_manager.get(pk=obj.pk)
        base_state = getattr(request, "_draft_revision_base_state", None)
        request._draft_revision = DraftRevision.store(
            live,
            request.POST,
            request.user,
            expected=posted_revision_number(request.POST),
            base_version=getattr(request, "_draft_revision_base_version", None),
            base_state=base_state or self.base_state(request, live, request.POST),
        )

    def save_related(self, request, form, formsets, change):
        if getattr(request, "_saving_draft_revision", False):
            return  # the inline rows are in the draft revision's data
        super().save_related(request, form, formsets, change)

    def construct_change_message(self, request, form, formsets, add=False):
        if getattr(request, "_saving_draft_revision", False):
            return []  # nothing was saved (the inline formsets were not either)
        return super().construct_change_message(request, form, formsets, add)

    def log_change(self, request, obj, message):
        if getattr(request, "_saving_draft_revision", False) or getattr(
            request, "_previewing_draft_revision", False
        ):
            return None
        return super().log_change(request, obj, message)

    def response_change(self, request, obj):
        if getattr(request, "_previewing_draft_revision", False):
            return self._render_public_page(request, obj)
        if getattr(request, "_saving_draft_revision", False):
            self.message_user(
                request,
                "Saved as a draft revision. The published version is unchanged until you "
                "publish this revision.",
                messages.SUCCESS,
            )
            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

    # -- preview ------------------------------------------------------------------------------

    def _has_preview(self, obj):
        return hasattr(obj, "get_absolute_url")

    def _preview_url(self, obj):
        info = f"{self.model._meta.app_label}_{self.model._meta.model_name}"
        return reverse(f"admin:{info}_draft_revision_preview", args=[obj.pk])

    def draft_revision_preview_view(self, request, object_id):
        """The item's public page with the draft revision applied, as readers will see it once
        published: saved in a transaction that is rolled back after rendering."""
        obj = get_object_or_404(self.model._base_manager, pk=unquote(object_id))
        if not self.has_change_permission(request, obj):
            raise PermissionDenied
        revision = self.draft_revision_of(obj)
        if revision is None or not self._has_preview(obj):
            raise Http404("This item has no draft revision to preview.")
        request._previewing_draft_revision = revision
        request._draft_revision_back_url = reverse(
            f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk]
        )
        # What changed live only since the draft was saved stays as it is live.
        posted, _, _ = self._reconcile(request, obj, revision, revision.as_post(obj.version))
        method, post, get = request.method, request.POST, request.GET
        request.method, request.POST = "POST", posted
        try:
            with transaction.atomic(using=self.model._base_manager.db):
                response = self._changeform_view(request, object_id, "", {})
                transaction.set_rollback(True)
        finally:
            request.method, request.POST, request.GET = method, post, get
        if response.status_code == 200 and not getattr(request, "_draft_revision_page", False):
            # The form did not validate (the item changed since): show it, with the errors.
            return response
        patch_cache_control(response, private=True, no_store=True)
        return response

    def _render_public_page(self, request, obj):
        match = resolve(obj.get_absolute_url())
        request.method, request.GET = "GET", QueryDict()
        response = match.func(request, *match.args, **match.kwargs)
        if hasattr(response, "render"):
            response.render()  # inside the transaction, before the rollback
        request._draft_revision_page = True
        return response


def touches_draft_revision(posted):
    """A post that saves, publishes or discards a draft revision (a form loaded from one
    carries `_draft_revision`: saving it publishes the revision)."""
    return bool(
        "_save_draft_revision" in posted
        or "_discard_draft_revision" in posted
        or posted.get("_draft_revision")
    )


def posted_revision_number(posted):
    """The draft revision number the form was opened on; a form that does not say is taken
    as opened on none, so it can never replace one unseen."""
    try:
        return int(posted.get("_draft_revision_version", ""))
    except ValueError:
        return 0


class Conflict(NamedTuple):
    """A field changed both live and in the draft revision since it was saved."""

    name: str
    verbose_name: str
    live: str
    draft: str


def reconcile_with_live(obj, revision, posted, names):
    """The draft revision's form data (`posted`) set against live changes made since it was
    saved, for the form fields `names`: a field changed live only takes its live value (the
    draft never touched it); a field changed on both sides keeps the draft's value unless the
    editor chose (`_conflict_<name>`: "live" or "draft"). Returns (the data to use, the
    conflicts still to choose, the names of the fields given their live value)."""
    posted = posted.copy()
    conflicts, kept_live = [], []
    for field, base, live in live_changes_since(obj, revision, names):
        draft = posted_value(field, posted)
        if draft == base:
            set_posted(field, posted, live)
            kept_live.append(str(field.verbose_name))
            continue
        if draft == live:
            continue
        choice = posted.get(f"_conflict_{field.name}")
        if choice == "live":
            set_posted(field, posted, live)
        elif choice != "draft":
            verbose = str(field.verbose_name)
            conflicts.append(Conflict(field.name, verbose, shown(field, live), shown(field, draft)))
    return posted, conflicts, kept_live


# Kept in a draft revision's inline row rebased with a conflict still to choose: the row's
# version the draft was written against, so publishing still asks.
ROW_BASE = "draft_base_version"


def rebase_inline_rows(posted, inlines):
    """Rebase the draft revision's inline rows (`posted`, changed in place) on the rows as
    they are now, for each (prefix, model, form field names) of `inlines` whose model keeps
    versions: a row saved since the draft was written gets its current version (so the
    stale-edit check passes), its live changes where the draft did not touch the field, and
    the draft's values where the row did not change; a field changed on both sides keeps the
    draft's value unless the editor chose (`_conflict_<prefix>-<n>-<field>`). Returns (the
    conflicts still to choose, the fields given their live value)."""
    conflicts, kept_live = [], []
    for prefix, model, names in inlines:
        if not any(field.name == "version" for field in model._meta.concrete_fields):
            continue
        keys = {}
        for number in range(form_count(posted, prefix)):
            pk = posted.get(f"{prefix}-{number}-id", "")
            if pk.isdigit():
                keys[int(pk)] = f"{prefix}-{number}"
        for row in model._base_manager.filter(pk__in=keys):
            key = keys[row.pk]
            try:
                base = int(posted.get(f"{key}-{ROW_BASE}") or posted.get(f"{key}-edit_version"))
            except (TypeError, ValueError):
                continue
            if base == row.version:
                continue
            posted.setlist(f"{key}-edit_version", [str(row.version)])
            posted.pop(f"{key}-{ROW_BASE}", None)
            record = row.history.filter(version=base).order_by("-history_date", "-history_id")
            record = record.first()
            if record is None:
                continue
            asked = []
            for field in model._meta.concrete_fields:
                if field.name not in names or field.primary_key or not field.editable:
                    continue
                then = form_value(field, getattr(record, field.attname))
                now = form_value(field, getattr(row, field.attname))
                if then == now:
                    continue
                name = f"{key}-{field.name}"
                label = f"{row}: {field.verbose_name}"
                draft = posted_value(field, posted, name)
                if draft == then:
                    set_posted(field, posted, now, name)
                    kept_live.append(label)
                elif draft != now:
                    choice = posted.get(f"_conflict_{name}")
                    if choice == "live":
                        set_posted(field, posted, now, name)
                    elif choice != "draft":
                        asked.append(Conflict(name, label, shown(field, now), shown(field, draft)))
            if asked:
                posted.setlist(f"{key}-{ROW_BASE}", [str(base)])
                conflicts += asked
    return conflicts, kept_live


def row_bases(posted):
    """[(name, value)] of what the rows keep of their draft revision's base (the version, the
    deleted row a new one would re-create), posted back with the form."""
    kept = (f"-{ROW_BASE}", f"-{DELETED_ROW}")
    return [(key, posted[key]) for key in posted if key.endswith(kept)]


# Kept in a draft revision's new inline row that would re-create a row deleted live since, until
# the editor chooses: the deleted row's key.
DELETED_ROW = "draft_deleted_row"
# A row's form fields that are bookkeeping, not what the editor edits.
ROW_BOOKKEEPING = {"DELETE", "ORDER", "edit_version", "change_reason", ROW_BASE, DELETED_ROW}


class RowsShown(NamedTuple):
    """An inline's rows named by a draft revision, as the change form shows them now."""

    model: type
    fields: dict  # the row form's fields, by name
    now: dict  # {pk: {field: value}} of the rows still there
    existing: set  # the keys of the rows still there (shown here or not)


def posted_row_pks(posted, prefix, model):
    pk_name = model._meta.pk.name
    keys = (posted.get(f"{prefix}-{n}-{pk_name}", "") for n in range(form_count(posted, prefix)))
    return [int(key) for key in keys if key.isdigit()]


def row_values(formset):
    """{pk: {field: value}} of the formset's saved rows, as their unbound forms show them."""
    fk = getattr(formset, "fk", None)
    skip = {formset.model._meta.pk.name, getattr(fk, "name", None), *ROW_BOOKKEEPING}
    rows = {}
    for form in formset.initial_forms:
        values = {name: form[name].value() for name in form.fields if name not in skip}
        rows[str(form.instance.pk)] = json.loads(json.dumps(values, cls=DjangoJSONEncoder))
    return rows


def reconcile_rows(posted, prefix, shown, base):
    """The draft revision's inline rows of `prefix` (in `posted`, changed in place) set against
    the rows as they are now (`shown`) and as they were when it was saved (`base`, {pk:
    {field: value}}):

    - a row deleted live since is dropped when the draft did not change it (or deleted it
      too); when it did, the editor chooses (`_conflict_<prefix>-pk<key>`): "live" drops it,
      "draft" re-creates it as a new row; until then it waits as a new row marked DELETED_ROW;
    - a row of a model without versions (rebase_inline_rows rebases the others) takes the
      live value of a field the draft did not change; a field changed on both sides, or a
      row deleted in the draft and changed live, is asked about.

    Returns (the conflicts still to choose, what was kept as published)."""
    conflicts, kept_live = [], []
    model, fields = shown.model, shown.fields
    pk_name = model._meta.pk.name
    versioned = any(field.name == "version" for field in model._meta.concrete_fields)
    rows = read_rows(posted, prefix)
    initial = form_count(posted, prefix, "INITIAL_FORMS")
    kept, added = [], []
    for number, row in enumerate(rows):
        pk = row.get(pk_name, "")
        gone = row.get(DELETED_ROW) or (
            pk if number < initial and pk.isdigit() and pk not in shown.existing else None
        )
        if gone:
            choice = posted.get(f"_conflict_{prefix}-pk{gone}")
            then = base.get(gone)
            label = row_label(model, gone, then, fields)
            untouched = then is not None and not changed_fields(fields, row, then)
            if deleting(row) or choice == "live" or untouched:
                if untouched and not deleting(row):
                    kept_live.append(f"{label}: deleted")
                continue
            for name in (pk_name, "edit_version", ROW_BASE):
                row.pop(name, None)
            for name in [name for name in row if name.startswith("initial-")]:
                row.pop(name)
            if choice == "draft":
                row.pop(DELETED_ROW, None)
            else:
                row.setlist(DELETED_ROW, [gone])
                conflicts.append(
                    Conflict(
                        f"{prefix}-pk{gone}",
                        f"{label}: deleted on the published version since",
                        "Deleted (drop this row)",
                        "Re-create it with the draft revision's values",
                    )
                )
            added.append(row)
            continue
        (kept if number < initial else added).append(row)
        then, now = base.get(pk), shown.now.get(pk)
        if versioned or then is None or now is None:
            continue
        changed_live = changed_fields(fields, now, then)
        label = row_label(model, pk, then, fields)
        if deleting(row):
            choice = posted.get(f"_conflict_{prefix}-pk{pk}")
            if changed_live and choice == "live":
                row.pop("DELETE", None)
            elif changed_live and choice != "draft":
                conflicts.append(
                    Conflict(
                        f"{prefix}-pk{pk}",
                        f"{label}: deleted in the draft revision, changed on the published "
                        f"version ({', '.join(str(fields[n].label or n) for n in changed_live)})",
                        "Keep it",
                        "Delete it",
                    )
                )
            continue
        for name in changed_live:
            field, key = fields[name], f"{prefix}-pk{pk}-{name}"
            draft = field_value(field, row, name)
            if same(field, draft, then[name]):
                put(field, row, name, now[name])
                kept_live.append(f"{label}: {field.label or name}")
            elif not same(field, draft, now[name]):
                choice = posted.get(f"_conflict_{key}")
                if choice == "live":
                    put(field, row, name, now[name])
                elif choice != "draft":
                    conflicts.append(
                        Conflict(
                            key,
                            f"{label}: {field.label or name}",
                            shown_in_form(field, now[name]),
                            shown_in_form(field, draft),
                        )
                    )
    write_rows(posted, prefix, kept, added)
    return conflicts, kept_live


def changed_fields(fields, values, then):
    """The names of the row fields whose value in `values` (a row's form data or its {field:
    value}) differs from `then`."""
    return [
        name
        for name, value in then.items()
        if name in fields and not same(fields[name], field_value(fields[name], values, name), value)
    ]


def field_value(field, values, name):
    if isinstance(values, QueryDict):
        return field.widget.value_from_datadict(values, {}, name)
    return values.get(name)


def deleting(row):
    return forms.CheckboxInput().value_from_datadict(row, {}, "DELETE")


def row_label(model, pk, values, fields):
    """A row as an editor knows it: its last recorded state's name, else its first field."""
    history = getattr(model, "history", None)
    if history is not None:
        record = history.filter(**{model._meta.pk.name: pk}).order_by("-history_date").first()
        if record is not None:
            return f"{model._meta.verbose_name} “{record.instance}”"
    name = next((name for name in (values or {}) if name in fields), None)
    if name is None:
        return f"{model._meta.verbose_name} {pk}"
    return f"{model._meta.verbose_name} “{shown_in_form(fields[name], values[name])}”"


_ROW_KEY = r"^(initial-)?{prefix}-(\d+)-(.+)$"


def read_rows(posted, prefix):
    """The posted rows of `prefix`, in order, each a QueryDict of its own keys (without the
    prefix and number; a hidden initial value keeps its `initial-`)."""
    rows = [QueryDict(mutable=True) for _ in range(form_count(posted, prefix))]
    pattern = re.compile(_ROW_KEY.format(prefix=re.escape(prefix)))
    for key in posted:
        match = pattern.match(key)
        if match and int(match[2]) < len(rows):
            rows[int(match[2])].setlist((match[1] or "") + match[3], posted.getlist(key))
    return rows


def write_rows(posted, prefix, saved, new):
    """Put the rows of `prefix` back in `posted`: the saved rows first, then the new ones."""
    pattern = re.compile(_ROW_KEY.format(prefix=re.escape(prefix)))
    for key in [key for key in posted if pattern.match(key)]:
        posted.pop(key)
    for number, row in enumerate([*saved, *new]):
        for name in row:
            head, name_ = ("initial-", name[8:]) if name.startswith("initial-") else ("", name)
            posted.setlist(f"{head}{prefix}-{number}-{name_}", row.getlist(name))
    posted.setlist(f"{prefix}-INITIAL_FORMS", [str(len(saved))])
    posted.setlist(f"{prefix}-TOTAL_FORMS", [str(len(saved) + len(new))])


def comparable(field, value):
    """A row field's value (posted, or as its form shows it) in one form for comparing."""
    if isinstance(field.widget, forms.CheckboxInput):
        if isinstance(value, str):
            return value.lower() not in ("", "false", "0", "off")
        return bool(value)
    if isinstance(value, (list, tuple)):
        return tuple(sorted(str(item) for item in value))
    if not isinstance(field, forms.ModelChoiceField):
        with contextlib.suppress(ValidationError, TypeError, ValueError):
            value = field.to_python(value)
    return "" if value is None else str(value)


def same(field, first, second):
    return comparable(field, first) == comparable(field, second)


def put(field, row, name, value):
    if isinstance(field.widget, forms.CheckboxInput):
        if comparable(field, value):
            row.setlist(name, ["on"])
        else:
            row.pop(name, None)
    elif isinstance(value, (list, tuple)):
        row.setlist(name, [str(item) for item in value])
    else:
        row.setlist(name, ["" if value is None else str(value)])


def shown_in_form(field, value):
    """A row field's value as an editor reads it: names, not keys."""
    if isinstance(field.widget, forms.CheckboxInput):
        return "Yes" if comparable(field, value) else "No"
    if value in (None, "", [], ()):
        return "(empty)"
    if isinstance(field, forms.ModelChoiceField):
        keys = value if isinstance(value, (list, tuple)) else [value]
        try:
            rows = field.queryset.model._base_manager.filter(pk__in=keys)
            return ", ".join(sorted(str(row) for row in rows)) or str(value)
        except (ValidationError, TypeError, ValueError):
            return str(value)
    choices = dict(flat_choices(getattr(field, "choices", None) or ()))
    return str(choices.get(str(value), value))


def flat_choices(choices):
    for key, label in choices:
        if isinstance(label, (list, tuple)):
            yield from flat_choices(label)
        else:
            yield str(key), label


def form_count(posted, prefix, which="TOTAL_FORMS"):
    try:
        return min(int(posted.get(f"{prefix}-{which}", 0)), 1000)
    except ValueError:
        return 0


def live_changes_since(obj, revision, names):
    """[(field, value then, value now)], as the change form posts them, of the item's own
    fields and many-to-many relations among `names` changed live since the draft revision
    was saved (its history record at the revision's base version)."""
    record = (
        obj.history.filter(version=revision.base_version)
        .order_by("-history_date", "-history_id")
        .first()
    )
    if record is None:
        return []
    changes = []
    for field in obj._meta.concrete_fields:
        if field.name not in names or field.primary_key:
            continue
        if not field.editable or isinstance(field, models.DateTimeField):
            continue
        then = form_value(field, getattr(record, field.attname))
        now = form_value(field, getattr(obj, field.attname))
        if then != now:
            changes.append((field, then, now))
    # The relations when the draft was saved (a history record at that version may have been
    # refreshed since: a tag added from a shell does not bump the version).
    relations_then = (revision.base_state or {}).get("m2m") or (
        getattr(record, "related_snapshot", None) or {}
    ).get("m2m", {})
    relations_now = snapshot_relations(obj)["m2m"]
    for field in tracked_m2m_fields(type(obj)):
        if field.name not in names or field.name not in relations_then:
            continue
        then = relation_value(relations_then[field.name])
        now = relation_value(relations_now.get(field.name, []))
        if then != now:
            changes.append((field, then, now))
    return changes


def relation_value(values):
    return tuple(sorted(str(value) for value in values))


def form_value(field, value):
    """A stored value as the change form posts it."""
    if isinstance(field, models.BooleanField):
        return bool(value)
    return "" if value is None else str(value)


def posted_value(field, posted, key=None):
    """The value posted for `field` (under `key`: an inline row's `<prefix>-<n>-<name>`)."""
    key = key or field.name
    if isinstance(field, TaggableManager):
        return relation_value(parse_tags(posted.get(key, "")))
    if field.many_to_many:
        return relation_value(value for value in posted.getlist(key) if value)
    if isinstance(field, models.BooleanField):
        return posted.get(key) not in (None, "", "off", "false")
    return posted.get(key, "")


def set_posted(field, posted, value, key=None):
    key = key or field.name
    if isinstance(field, TaggableManager):
        posted.setlist(key, [edit_string_for_tags(FakeTag(name) for name in value)])
    elif field.many_to_many:
        posted.setlist(key, list(value))
    elif isinstance(field, models.BooleanField):
        if value:
            posted.setlist(key, ["on"])
        else:
            posted.pop(key, None)
    else:
        posted.setlist(key, [value])


class FakeTag(NamedTuple):
    """What taggit's edit_string_for_tags reads of a tag."""

    name: str


def shown(field, value):
    """A posted value as an editor reads it: names, not keys."""
    if isinstance(field, TaggableManager):
        return ", ".join(value) or "(none)"
    if field.many_to_many:
        rows = field.related_model._base_manager.filter(pk__in=value)
        return ", ".join(sorted(str(row) for row in rows)) or "(none)"
    if isinstance(field, models.BooleanField):
        return "Yes" if value else "No"
    if field.is_relation and value:
        row = field.related_model._base_manager.filter(pk=value).first()
        return str(row) if row is not None else value
    if field.choices and value:
        return str(dict(field.flatchoices).get(value, value))
    return value or "(empty)"
