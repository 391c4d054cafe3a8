"""Admin pieces shared by every editorial model: the publish/unpublish actions, the form that
refuses stale edits, and the ModelAdmin base with history."""

import json

from django import forms
from django.contrib import admin, messages
from django.core.paginator import Paginator
from django.db import connections, models, transaction
from django.db.models import Case, Value, When
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.functional import cached_property
from simple_history.admin import SimpleHistoryAdmin

from core.markdown import (
    MARKDOWN_HELP,
    PLAIN_TEXT_HELP,
    is_markdown_field,
    stripped_by_sanitiser,
)
from core.text import name_null_character_refusal
from publishing.history import fit_change_reason
from publishing.history_admin import HistoryAdminMixin
from publishing.models import (
    PublicationState,
    Publishable,
    StaleEditError,
    Status,
    can_publish,
    publishing_refusal,
)
from publishing.revisions import DraftRevision
from publishing.revisions_admin import DraftRevisionAdminMixin


def has_review_date(model):
    return any(field.name == "review_by" for field in model._meta.get_fields())


def _set_status(request, queryset, status):
    """Save each row that changes (not a bulk UPDATE), so every one bumps its version, which
    makes any change form open on it stale, and gets a history entry naming the editor. A row
    that lacks what publishing needs (`publication_errors`) is left as it was. Returns the
    number changed and {row: errors} of those refused."""
    changed, refused = 0, {}
    pks = list(queryset.exclude(status=status).values_list("pk", flat=True))
    rows = queryset.model._base_manager.filter(pk__in=pks).order_by("pk")
    with transaction.atomic(using=queryset.db):
        for obj in rows.select_for_update().iterator():
            obj.status = status
            errors = obj.publication_errors()
            if errors:
                refused[obj] = errors
                continue
            obj._history_user = request.user
            obj.save()  # first-time publication sets published_at
            changed += 1
    return changed, refused


def _report_refusals(modeladmin, request, refused):
    for obj, errors in refused.items():
        reasons = " ".join(str(message) for messages_ in errors.values() for message in messages_)
        modeladmin.message_user(request, f"Not published: “{obj}”. {reasons}", messages.WARNING)


def submitted_children(queryset):
    """The rows submitted for review that hang on these (a publishable model's foreign key to
    them: a paper's citation edges, both ways), as {model: [row, ...]}: publishing the parent
    alone would leave them out of view without a word."""
    pks = list(queryset.values_list("pk", flat=True))
    found = {}
    for relation in queryset.model._meta.related_objects:
        child = relation.related_model
        if not relation.one_to_many or not issubclass(child, Publishable):
            continue
        rows = child._base_manager.filter(
            **{f"{relation.field.name}__in": pks}, status=Status.REVIEW
        )
        for row in rows.order_by("pk"):
            found.setdefault(child, {})[row.pk] = row
    return {model: list(rows.values()) for model, rows in found.items()}


@admin.action(description="Publish selected items", permissions=["publish"])
def publish_selected(modeladmin, request, queryset):
    children = submitted_children(queryset)
    decision = request.POST.get("submitted_children")
    if children and decision not in ("publish", "leave"):
        # Ask first: publish the submitted children with their parents, or leave them.
        context = {
            **modeladmin.admin_site.each_context(request),
            "opts": modeladmin.model._meta,
            "title": "Publish the submitted items too?",
            "rows": list(queryset),
            "children": [
                (model._meta.verbose_name_plural, rows) for model, rows in children.items()
            ],
        }
        return TemplateResponse(request, "admin/publishing/publish_children.html", context)
    count, refused = _set_status(request, queryset, Status.PUBLISHED)
    modeladmin.message_user(request, f"Published {count} item(s).", messages.SUCCESS)
    _report_refusals(modeladmin, request, refused)
    for model, rows in children.items():
        name = model._meta.verbose_name_plural
        if decision == "publish" and can_publish(request.user, model):
            rows = model._base_manager.filter(pk__in=[row.pk for row in rows])
            count, refused = _set_status(request, rows, Status.PUBLISHED)
            modeladmin.message_user(
                request, f"Published {count} submitted {name} with them.", messages.SUCCESS
            )
            _report_refusals(modeladmin, request, refused)
        else:
            modeladmin.message_user(
                request,
                f"Left in review, not public: {len(rows)} {name} "
                f"({', '.join(str(row) for row in rows[:5])}).",
                messages.WARNING,
            )


@admin.action(description="Unpublish selected items (back to draft)", permissions=["publish"])
def unpublish_selected(modeladmin, request, queryset):
    # Readers lose these pages at once (their links answer 404): ask first, listing what goes,
    # as Django's own delete action does.
    if request.POST.get("post") != "yes":
        context = {
            **modeladmin.admin_site.each_context(request),
            "opts": modeladmin.model._meta,
            "title": "Unpublish these items?",
            "rows": list(queryset),
            "live": [row for row in queryset if row.status == Status.PUBLISHED],
        }
        return TemplateResponse(request, "admin/publishing/unpublish_confirm.html", context)
    count, _ = _set_status(request, queryset, Status.DRAFT)
    modeladmin.message_user(request, f"Moved {count} item(s) back to draft.", messages.SUCCESS)


@admin.action(description="Submit selected drafts for review", permissions=["change"])
def submit_for_review(modeladmin, request, queryset):
    count, _ = _set_status(request, queryset.filter(status=Status.DRAFT), Status.REVIEW)
    modeladmin.message_user(request, f"Submitted {count} item(s) for review.", messages.SUCCESS)


class PublishableForm(forms.ModelForm):
    """Carries the version the editor started from, and refuses to save over a newer one;
    refuses to publish what lacks what publishing needs, and lets only users with the publish
    permission publish (`publishing_user`, set by the admin on the form class it builds)."""

    edit_version = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    change_reason = forms.CharField(
        label="Reason for change",
        required=False,
        max_length=100,
        help_text="Optional: a few words for the history (e.g. “fixed the figure's unit”).",
    )
    publishing_user = None
    saving_draft_revision = False
    # On a change form (not a revert, not a draft revision): a copy whose own fields are
    # untouched writes nothing of them, so it is not refused for being stale and does not
    # bump the version (its inline rows are judged row by row).
    untouched_saves_nothing = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["change_reason"].widget.attrs.pop("maxlength", None)  # refused, never cut
        if self.instance.pk is not None:
            # None: a deleted item being recovered from its history (no stored row to race).
            stored = self.initial_version()
            self.fields["edit_version"].required = stored is not None
            self.fields["edit_version"].initial = stored

    def initial_version(self):
        # The stored version, not the instance's: a revert form starts from an old copy.
        return self._stored_version(lock=False)

    def _stored_version(self, lock):
        rows = type(self.instance)._base_manager.filter(pk=self.instance.pk)
        if lock:
            # Held until the admin view's transaction ends, so a concurrent save waits.
            rows = rows.select_for_update()
        return rows.values_list("version", flat=True).first()

    def clean(self):
        cleaned_data = super().clean()
        expected = cleaned_data.get("edit_version")
        if self.instance.pk is None or expected is None or self.writes_nothing():
            return cleaned_data
        current = self._stored_version(lock=True)
        if current != expected:
            raise forms.ValidationError(
                StaleEditError(expected, current).message(
                    "admin", name=self.instance._meta.verbose_name
                ),
                code="stale_edit",
            )
        return cleaned_data

    def edited_fields(self):
        return [name for name in self.changed_data if name not in ("edit_version", "change_reason")]

    def writes_nothing(self):
        return self.untouched_saves_nothing and not self.edited_fields()

    def _post_clean(self):
        super()._post_clean()  # the instance now holds the posted values
        instance, changed = self.instance, self.edited_fields()
        refusal = publishing_refusal(self.publishing_user, instance, changed)
        for name, message in refusal.items():
            self.add_error(name if name in self.fields else None, message)
        if refusal or self.saving_draft_revision:
            return
        relations = {
            field.name: self.cleaned_data[field.name]
            for field in instance._meta.many_to_many
            if field.name in self.cleaned_data
        }
        for name, messages_ in instance.publication_errors(relations, changed).items():
            self.add_error(name if name in self.fields else None, messages_)


class PublicationStateFilter(admin.SimpleListFilter):
    """What readers see now: draft, scheduled, published or expired (status and times)."""

    title = "publication state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return PublicationState.choices

    def queryset(self, request, queryset):
        if self.value() in PublicationState.values:
            return queryset.with_publication_state(self.value())
        return queryset


class DraftRevisionFilter(admin.SimpleListFilter):
    """Live items with a draft revision waiting to be published (the dashboard links here)."""

    title = "draft revision"
    parameter_name = "draft_revision"

    def lookups(self, request, model_admin):
        return [("yes", "Has a draft revision")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(pk__in=DraftRevision.objects.object_pks(queryset.model))
        return queryset


class ReviewDueFilter(admin.SimpleListFilter):
    """Items whose review date has come (models with a `review_by` date)."""

    title = "review"
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [("due", "Due for review"), ("later", "Review date ahead"), ("none", "No date")]

    def queryset(self, request, queryset):
        today = timezone.localdate()
        if self.value() == "due":
            return queryset.filter(review_by__lte=today)
        if self.value() == "later":
            return queryset.filter(review_by__gt=today)
        if self.value() == "none":
            return queryset.filter(review_by__isnull=True)
        return queryset


def _after(fields, anchor, name):
    fields = list(fields)
    if anchor in fields:
        fields.insert(fields.index(anchor) + 1, name)
    return fields


class LengthCheckedOnSaveMixin:
    """Text fields as editors need them: inputs without the HTML `maxlength` (a browser cut a
    pasted 639-character title to 500 without a word; the form's own check refuses it instead,
    saying how long it is), a refusal of a null character that names the field, and each text
    area says whether it is Markdown or plain text."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if formfield is None:
            return formfield
        if isinstance(db_field, models.CharField):
            widget = getattr(formfield.widget, "widget", formfield.widget)
            widget.attrs.pop("maxlength", None)
        name_null_character_refusal(formfield, formfield.label or db_field.verbose_name)
        if isinstance(db_field, models.TextField) and not db_field.choices:
            note = MARKDOWN_HELP if is_markdown_field(db_field) else PLAIN_TEXT_HELP
            own = str(formfield.help_text or "").removesuffix("Markdown.").strip()
            formfield.help_text = f"{own} {note}".strip()
        return formfield


def warn_of_stripped_markup(modeladmin, request, obj):
    """Tell the editor what the sanitiser will not show of the Markdown fields just saved."""
    for field in obj._meta.concrete_fields:
        if is_markdown_field(field):
            removed = stripped_by_sanitiser(getattr(obj, field.attname))
            if removed:
                modeladmin.message_user(
                    request,
                    f"Saved, but readers will not see {', '.join(removed)} in “{obj}” "
                    f"({field.verbose_name}): only the Markdown described under the field is "
                    "shown.",
                    messages.WARNING,
                )


class PublishableAdmin(
    LengthCheckedOnSaveMixin, HistoryAdminMixin, DraftRevisionAdminMixin, SimpleHistoryAdmin
):
    """Status column and filter, bulk publish/unpublish, history with revert, stale-edit refusal."""

    form = PublishableForm
    actions = [publish_selected, unpublish_selected, submit_for_review]
    list_filter = ["status"]
    readonly_fields = ["publication_state", "created_at", "updated_at", "version"]
    date_hierarchy = None
    save_on_top = True
    # A URL typed without a scheme means https (Django 6's default, per field: the
    # FORMS_URLFIELD_ASSUME_HTTPS setting is itself deprecated).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_list_filter(self, request):
        filters = list(super().get_list_filter(request))
        if PublicationStateFilter not in filters:
            filters.insert(1 if "status" in filters else 0, PublicationStateFilter)
        if DraftRevisionFilter not in filters:
            filters.append(DraftRevisionFilter)
        if has_review_date(self.model) and ReviewDueFilter not in filters:
            filters.append(ReviewDueFilter)
        return filters

    def get_list_display(self, request):
        # Every list's status column says what readers see: "Scheduled for …", not "Published".
        columns = super().get_list_display(request)
        return ["get_publication_state_display" if c == "status" else c for c in columns]

    def has_publish_permission(self, request):
        return can_publish(request.user, self.model)

    def has_change_permission(self, request, obj=None):
        # A live item is changed only by those who may publish (contributors see it read-only).
        live = obj is not None and obj.status == Status.PUBLISHED
        if live and not self.has_publish_permission(request):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        live = obj is not None and obj.status == Status.PUBLISHED
        if live and not self.has_publish_permission(request):
            return False
        return super().has_delete_permission(request, obj)

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "status" and not self.has_publish_permission(request):
            kwargs["choices"] = [
                (value, label) for value, label in Status.choices if value != Status.PUBLISHED
            ]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.publishing_user = request.user  # a class made for this request
        # A draft revision of a live item may be incomplete: the rules apply when it is published.
        form.saving_draft_revision = getattr(request, "_saving_draft_revision", False)
        form.untouched_saves_nothing = (
            change
            and not form.saving_draft_revision
            and getattr(request, "_reverting_record", None) is None
        )
        return form

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        fields = [name for _, options in fieldsets for name in options["fields"]]
        # Declared fieldsets name neither the expiry nor the state: they go after the status
        # and the publication time.
        for anchor, name in (("published_at", "unpublish_at"), ("status", "publication_state")):
            if name not in fields and anchor in fields:
                fieldsets = [
                    (title, {**options, "fields": _after(options["fields"], anchor, name)})
                    for title, options in fieldsets
                ]
        if "change_reason" not in fields:
            # Declared fieldsets leave the reason out; it goes last, above the save buttons.
            (title, options) = fieldsets[-1]
            reason = [*options["fields"], "change_reason"]
            fieldsets = [*fieldsets[:-1], (title, {**options, "fields": reason})]
        if "edit_version" in fields:
            return fieldsets
        # Declared fieldsets leave the hidden field out; put it in the first one.
        (name, options), *rest = fieldsets
        return [(name, {**options, "fields": [*options["fields"], "edit_version"]}), *rest]

    @admin.display(description="Publication state")
    def publication_state(self, obj):
        """What readers see now: Draft, Scheduled for <time>, Published (until), Expired."""
        return obj.get_publication_state_display() if obj.pk else "Not saved yet"

    def save_model(self, request, obj, form, change):
        if getattr(request, "_saving_draft_revision", False):
            return self.save_draft_revision(request, obj, form)  # the live row stays as it is
        if change and form.writes_nothing():
            return  # the inline rows may change; the item's own row stays as stored
        obj._change_reason = fit_change_reason(form.cleaned_data.get("change_reason") or None)
        record = getattr(request, "_reverting_record", None)
        if record is not None:
            obj.adopt_recorded_state(record.instance)
        expected = form.cleaned_data.get("edit_version") if change else None
        if expected is None:  # adding, or a list_editable row on the changelist
            super().save_model(request, obj, form, change)
        else:
            obj._history_user = request.user  # what SimpleHistoryAdmin.save_model does
            obj.save_if_version(expected)
        warn_of_stripped_markup(self, request, obj)

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        for row in formset.forms:
            if getattr(row, "refusal", None):
                self.message_user(request, row.refusal, messages.WARNING)
            elif row.has_changed() and row.instance.pk is not None:
                warn_of_stripped_markup(self, request, row.instance)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except StaleEditError as error:  # lost a race after validation: rolled back
            return self._refuse_stale_edit(request, error)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        # A revert is an edit too: same transaction, lock and refusal as the change form.
        try:
            with transaction.atomic(using=self.model._base_manager.db):
                return super().history_form_view(request, object_id, version_id, extra_context)
        except StaleEditError as error:
            return self._refuse_stale_edit(request, error)

    def _refuse_stale_edit(self, request, error):
        message = error.message("admin", name=self.model._meta.verbose_name)
        self.message_user(request, message, messages.ERROR)
        return HttpResponseRedirect(request.path)


class LargeTablePaginator(Paginator):
    """The changelist paginator of tables with a million rows (citations, papers).

    - A page's rows are found by primary key first (an index walk over the OFFSET), then read
      with their joins: page 1000 of the citations took 7 s with the joins under the OFFSET,
      40 ms this way.
    - On PostgreSQL, a filtered list the planner expects to hold more than ESTIMATED_FROM rows
      is counted by that estimate (a search matching 233,000 edges took 4 s to COUNT); smaller
      ones, and every other database, are counted exactly."""

    ESTIMATED_FROM = 10_000

    @cached_property
    def count(self):
        rows = self.object_list
        if isinstance(rows, models.QuerySet) and connections[rows.db].vendor == "postgresql":
            estimate = planner_estimate(rows)
            if estimate >= self.ESTIMATED_FROM:
                return estimate
        return super().count

    def page(self, number):
        rows = self.object_list
        if not isinstance(rows, models.QuerySet):
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        pks = list(rows.values_list("pk", flat=True)[bottom:top])
        return self._get_page(rows_by_key(rows, pks), number, self)


def rows_by_key(rows, pks):
    """The rows of `pks`, read as `rows` reads them (joins, deferred fields, prefetches) and in
    the order of `pks`, but found by key alone: the list's own filters (a search over 100k
    titles) are not run a second time for the page's rows."""
    query = rows.query
    if query.annotations or query.extra or query.combinator or query.distinct:
        return rows.filter(pk__in=pks)
    page = rows.model._default_manager.filter(pk__in=pks)
    page.query.select_related = query.select_related
    page.query.deferred_loading = query.deferred_loading
    page = page.prefetch_related(*rows._prefetch_related_lookups)
    position = Case(
        *[When(pk=pk, then=Value(i)) for i, pk in enumerate(pks)],
        output_field=models.IntegerField(),
    )
    return page.order_by(position) if pks else page


def planner_estimate(queryset):
    """PostgreSQL's estimate of the number of rows `queryset` returns (EXPLAIN, not run)."""
    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])
