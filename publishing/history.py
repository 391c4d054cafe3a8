"""History of an item's relations: many-to-many fields (tags, layers, papers, ...) and child
rows edited with it (authors in order, steps, signal links).

django-simple-history records a row's own columns. Every Publishable's historical record also
carries `related_snapshot`: its relations as they were after that change, as JSON
(``{"m2m": {name: [pk or tag name, ...]}, "children": {name: [{field: value}, ...]}}``).
A model names its child rows in `history_children` (reverse foreign keys, in their order).

The snapshot is taken when the record is made, and refreshed when relations change after it
(the admin and the API save relations after the row): a change within a minute by the same
person updates that record; a later one (a tag added from a shell) gets a record of its own.
A deleted item's last record keeps the relations it had, so it can be recovered whole, and
what the delete took with it (`deleted_with`): the rows cascaded with it, the other side's
many-to-many links to it and the foreign keys the delete emptied.
`restore_relations()` puts a snapshot back (revert, recover); publishing/recovery.py puts back
what was deleted with it.
"""

import datetime
import functools
import json
import threading

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete
from django.dispatch import receiver
from django.utils import timezone
from simple_history.models import HistoricalRecords
from simple_history.signals import pre_create_historical_record
from taggit.managers import TaggableManager

# A later change of relations by the same person joins the record made this long before.
SAME_EDIT = datetime.timedelta(seconds=60)
# simple-history's history_change_reason column holds 100 characters (PostgreSQL refuses more).
HISTORY_REASON_LENGTH = 100
_deleting = threading.local()


def fit_change_reason(reason, limit=HISTORY_REASON_LENGTH):
    """A history reason that fits its column: a longer one is cut, ending in an ellipsis.
    Every writer of `_change_reason` goes through it (and so does every record, below), so
    a long slug or an editor's long note never makes a save fail."""
    if reason is None:
        return None
    reason = " ".join(str(reason).split())
    if len(reason) <= limit:
        return reason
    return reason[: limit - 1].rstrip() + "…"


class RelationSnapshot(models.Model):
    """The base of every Publishable's historical model (``HistoricalRecords(bases=...)``)."""

    related_snapshot = models.JSONField(default=dict, blank=True, editable=False)

    class Meta:
        abstract = True


def tracked_m2m_fields(model):
    """Many-to-many fields recorded by id (tags by name); one with its own through model is
    recorded as child rows instead (`history_children`)."""
    return [
        field
        for field in model._meta.many_to_many
        if isinstance(field, TaggableManager) or field.remote_field.through._meta.auto_created
    ]


def child_relations(model):
    return tuple(getattr(model, "history_children", ()))


def _child_fields(manager):
    parent_field = manager.field.name
    return [
        field
        for field in manager.model._meta.concrete_fields
        if not field.primary_key and field.name != parent_field
    ]


def snapshot_relations(instance, empty=False):
    """The instance's relations as a JSON-ready dict (`empty`: a row just created has none)."""
    model = type(instance)
    m2m, children = {}, {}
    for field in tracked_m2m_fields(model):
        if empty:
            m2m[field.name] = []
        elif isinstance(field, TaggableManager):
            m2m[field.name] = sorted(getattr(instance, field.name).names())
        else:
            m2m[field.name] = sorted(getattr(instance, field.name).values_list("pk", flat=True))
    for name in child_relations(model):
        manager = getattr(instance, name)
        attnames = [field.attname for field in _child_fields(manager)]
        rows = [] if empty else list(manager.all().values(*attnames))
        children[name] = json.loads(json.dumps(rows, cls=DjangoJSONEncoder))
    return {"m2m": m2m, "children": children}


def restore_relations(instance, snapshot):
    """Put the relations of `snapshot` back on `instance` (a saved row). Rows a snapshot points
    to that no longer exist (a layer deleted since) are left out."""
    model = type(instance)
    tracked = {field.name: field for field in tracked_m2m_fields(model)}
    for name, values in (snapshot or {}).get("m2m", {}).items():
        field = tracked.get(name)
        if field is None:
            continue
        if isinstance(field, TaggableManager):
            getattr(instance, name).set(values)
        else:
            existing = field.related_model._base_manager.filter(pk__in=values)
            getattr(instance, name).set(existing)
    for name, rows in (snapshot or {}).get("children", {}).items():
        if name not in child_relations(model):
            continue
        manager = getattr(instance, name)
        fields = {field.attname: field for field in _child_fields(manager)}
        manager.all().delete()
        for row in rows:
            values = {
                attname: fields[attname].to_python(value)
                for attname, value in row.items()
                if attname in fields
            }
            if not _targets_exist(fields, values):
                continue
            manager.model(**{manager.field.name: instance}, **values).save()


def _targets_exist(fields, values):
    for attname, value in values.items():
        field = fields[attname]
        if not field.is_relation or value is None:
            continue
        if not field.related_model._base_manager.filter(pk=value).exists():
            return False
    return True


def deleted_with(instance):
    """What deleting `instance` takes with it besides its own columns, as JSON, each kind
    keyed by the reverse accessor (``paper.citations_made``):

    - "recorded": primary keys of cascaded rows with a relation history of their own (a
      paper's citation edges); each is recovered from its own deletion record.
    - "rows": cascaded plain rows (a series' points, a paper's other identifiers), each as
      ``{"row": {column: value}, "with": what its own delete took}``: they come back with
      their own keys, so the links to them (a claim's points) come back too.
    - "links": primary keys of the rows whose many-to-many field pointed to it (a claim's
      notes, a note's papers).
    - "unset": primary keys of the rows whose foreign key the delete set to NULL.

    Rows a model marks `recomputed` (stored figures, fits) are counted again, not restored; a
    tag's link row is the tags' business (the snapshot's "m2m")."""
    model = type(instance)
    tag_throughs = {
        field.remote_field.through
        for field in model._meta.many_to_many
        if isinstance(field, TaggableManager)
    }
    found = {"recorded": {}, "rows": {}, "links": {}, "unset": {}}
    for relation in model._meta.related_objects:
        name = relation.get_accessor_name()
        other = relation.related_model
        if other in tag_throughs or getattr(other, "recomputed", False):
            continue
        rows = other._base_manager.filter(**{relation.field.name: instance.pk}).order_by("pk")
        if relation.many_to_many:
            if relation.field.remote_field.through._meta.auto_created:
                found["links"][name] = list(rows.values_list("pk", flat=True))
        elif relation.on_delete is models.SET_NULL:
            found["unset"][name] = list(rows.values_list("pk", flat=True))
        elif relation.on_delete is models.CASCADE:
            if has_relation_history(other):
                found["recorded"][name] = list(rows.values_list("pk", flat=True))
            else:
                found["rows"][name] = [_row_with_relations(row) for row in rows]
    return {kind: {k: v for k, v in found[kind].items() if v} for kind in found}


def _row_with_relations(row):
    attnames = [field.attname for field in row._meta.concrete_fields]
    values = {attname: getattr(row, attname) for attname in attnames}
    entry = {"row": json.loads(json.dumps(values, cls=DjangoJSONEncoder))}
    taken = deleted_with(row)
    if any(taken.values()):
        entry["with"] = taken
    return entry


def has_relation_history(model):
    history = getattr(model, "history", None)
    return history is not None and hasattr(history.model, "related_snapshot")


# -- recording ----------------------------------------------------------------------------------


@receiver(pre_create_historical_record, dispatch_uid="publishing.history.fit_reason")
def fit_reason_on_record(sender, instance, history_instance, **kwargs):
    """Whatever wrote the reason, the record keeps one that fits."""
    reason = getattr(history_instance, "history_change_reason", None)
    if reason:
        history_instance.history_change_reason = fit_change_reason(reason)


@receiver(pre_create_historical_record, dispatch_uid="publishing.history.snapshot")
def snapshot_on_record(sender, instance, history_instance, **kwargs):
    if not hasattr(history_instance, "related_snapshot"):
        return
    if history_instance.history_type == "-":
        history_instance.related_snapshot = getattr(instance, "_relations_before_delete", {})
    else:
        created = history_instance.history_type == "+"
        history_instance.related_snapshot = snapshot_relations(instance, empty=created)


def _deleting_keys():
    if not hasattr(_deleting, "keys"):
        _deleting.keys = set()
    return _deleting.keys


@receiver(pre_delete, dispatch_uid="publishing.history.before_delete")
def keep_relations_before_delete(sender, instance, **kwargs):
    """The deletion record keeps the relations (they are gone by the time it is made)."""
    if has_relation_history(sender):
        instance._relations_before_delete = {
            **snapshot_relations(instance),
            "deleted_with": deleted_with(instance),
        }
        _deleting_keys().add((sender, instance.pk))


@receiver(post_delete, dispatch_uid="publishing.history.after_delete")
def forget_deleting(sender, instance, **kwargs):
    _deleting_keys().discard((sender, instance.pk))
    _child_changed(sender, instance)


@receiver(post_save, dispatch_uid="publishing.history.child_saved")
def child_saved(sender, instance, raw=False, **kwargs):
    if raw:
        # loaddata (a restore): history comes from the fixture, as it was; the relations the
        # deserializer sets next on this object are not changes either.
        instance._loaded_raw = True
        return
    _child_changed(sender, instance)


def _child_changed(sender, instance):
    for parent_model, fk_attname in _parents_of(sender):
        parent = parent_model._base_manager.filter(pk=getattr(instance, fk_attname)).first()
        if parent is not None:
            refresh_relation_snapshot(parent)


@functools.cache
def _parents_of(child_model):
    from django.apps import apps

    found = []
    for model in apps.get_models():
        for name in child_relations(model):
            relation = model._meta.get_field(name)
            if relation.related_model is child_model:
                found.append((model, relation.field.attname))
    return found


@receiver(m2m_changed, dispatch_uid="publishing.history.m2m_changed")
def relations_changed(sender, instance, action, reverse, model, pk_set, **kwargs):
    if not action.startswith("post_") or getattr(instance, "_loaded_raw", False):
        return
    if not reverse:
        if has_relation_history(type(instance)):
            refresh_relation_snapshot(instance)
    elif has_relation_history(model) and pk_set:
        for other in model._base_manager.filter(pk__in=pk_set):
            refresh_relation_snapshot(other)


def refresh_relation_snapshot(instance):
    """Record the instance's current relations: on its latest record when that is the same
    edit (same person, within SAME_EDIT), else on a new record of its own."""
    if (type(instance), instance.pk) in _deleting_keys():
        return
    latest = instance.history.order_by("-history_date", "-history_id").first()
    snapshot = snapshot_relations(instance)
    if latest is None or latest.history_type == "-" or latest.related_snapshot == snapshot:
        return
    user = _current_user(instance)
    same_edit = (
        latest.history_date >= timezone.now() - SAME_EDIT
        and latest.history_user_id == getattr(user, "pk", None)
    )
    if same_edit:
        latest.related_snapshot = snapshot
        latest.save(update_fields=["related_snapshot"])
        return
    latest.pk = None
    latest.history_id = None
    latest.history_date = timezone.now()
    latest.history_type = "~"
    latest.history_user = user
    latest.history_change_reason = fit_change_reason("Related items changed")
    latest.related_snapshot = snapshot
    latest.save()


def _current_user(instance):
    user = getattr(instance, "_history_user", None)
    if user is not None:
        return user
    request = getattr(HistoricalRecords.context, "request", None)
    user = getattr(request, "user", None)
    return user if getattr(user, "is_authenticated", False) else None
