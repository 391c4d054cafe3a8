"""Recovering a deleted item brings back what its delete took with it (publishing/history.py
`deleted_with`): the cascaded rows with a history of their own, recovered from their own
deletion records with their relations (a paper's citation edges); cascaded plain rows (its other
identifiers); the other side's many-to-many links to it (a claim's link to a note); the foreign
keys the delete emptied. What cannot come back is named, with the reason: an edge whose other
paper is still deleted, a row whose values another row holds now."""

from collections import Counter

from django.core.exceptions import ObjectDoesNotExist
from django.db import IntegrityError, transaction

from publishing.history import fit_change_reason, restore_relations
from publishing.models import GOING_PUBLIC, can_publish


class RecoveryReport:
    """What a recovery brought back (counted by kind) and what it could not (sentences)."""

    def __init__(self):
        self.restored = Counter()
        self.missed = []

    def count(self, model, links=False, number=1):
        if number:
            key = (model._meta.verbose_name, model._meta.verbose_name_plural, links)
            self.restored[key] += number

    def phrases(self):
        """["3 citations", "links from 2 claims", ...]: the rows, then the links to it."""
        found = []
        kinds = sorted(self.restored.items(), key=lambda item: item[0][2])
        for (singular, plural, links), number in kinds:
            name = singular if number == 1 else plural
            found.append(f"links from {number} {name}" if links else f"{number} {name}")
        return found


def join_words(phrases):
    if len(phrases) < 2:
        return "".join(phrases)
    return f"{', '.join(phrases[:-1])} and {phrases[-1]}"


def describe(row):
    """How an editor knows a row: its own words, with a deleted row it points to named by its
    last recorded version (a citation "A → B" whose B is deleted)."""
    for field in row._meta.concrete_fields:
        if not field.is_relation or getattr(row, field.attname) is None:
            continue
        try:
            getattr(row, field.name)
        except ObjectDoesNotExist:
            last = last_version(field.related_model, getattr(row, field.attname))
            if last is not None:
                setattr(row, field.name, last)
    try:
        return str(row)
    except ObjectDoesNotExist:
        return f"#{row.pk}"


def last_version(model, pk):
    """The row as last recorded in its history (a deleted row), or None."""
    history = getattr(model, "history", None)
    if history is None:
        return None
    record = history.filter(**{model._meta.pk.attname: pk}).order_by("-history_date").first()
    return record.instance if record is not None else None


def missing_targets(row):
    """The rows `row` points to that do not exist (deleted), named."""
    missing = []
    for field in row._meta.concrete_fields:
        value = getattr(row, field.attname) if field.is_relation else None
        if value is None:
            continue
        if not field.related_model._base_manager.filter(pk=value).exists():
            last = last_version(field.related_model, value)
            missing.append(f"“{last}”" if last is not None else f"{field.verbose_name} #{value}")
    return missing


def restore_deleted(instance, snapshot, user, report, form_fields=()):
    """Put back the relations of a deleted item's last record (`snapshot`) on `instance`, just
    saved again, and what its delete took with it. Many-to-many fields the form in hand set
    (`form_fields`) are left to it; child rows recorded with their keys come back with them."""
    snapshot = snapshot or {}
    deleted = snapshot.get("deleted_with")
    children = snapshot.get("children", {})
    if deleted is not None:
        # Recorded whole, keys and links included: restored below rather than as new rows.
        children = {}
    m2m = {name: pks for name, pks in snapshot.get("m2m", {}).items() if name not in form_fields}
    restore_relations(instance, {"m2m": m2m, "children": children})
    recover_deleted_with(instance, snapshot, user, report)


def recover_deleted_with(instance, snapshot, user, report=None):
    """Put back what the delete recorded in `snapshot` took with `instance` (just recovered);
    returns the RecoveryReport."""
    report = report or RecoveryReport()
    deleted = (snapshot or {}).get("deleted_with") or {}
    relations = {
        relation.get_accessor_name(): relation for relation in instance._meta.related_objects
    }
    for kind in ("recorded", "rows", "links", "unset"):
        for name, values in deleted.get(kind, {}).items():
            relation = relations.get(name)
            if relation is None:
                continue
            if kind == "recorded":
                for pk in values:
                    _recover_recorded(relation.related_model, pk, instance, user, report)
            elif kind == "rows":
                for entry in values:
                    _recreate_row(relation.related_model, entry, instance, user, report)
            elif kind == "links":
                _restore_links(instance, relation, values, report)
            else:
                _restore_unset(instance, relation, values, user, report)
    return report


def _recover_recorded(model, pk, parent, user, report):
    if model._base_manager.filter(pk=pk).exists():
        return  # recovered before, or never deleted
    deletion = (
        model.history.filter(**{model._meta.pk.attname: pk}, history_type="-")
        .order_by("-history_date", "-history_id")
        .first()
    )
    if deletion is None:
        return
    row = deletion.instance
    what = f"the {model._meta.verbose_name} “{describe(row)}”"
    opts = model._meta
    if not user.has_perm(f"{opts.app_label}.add_{opts.model_name}"):
        report.missed.append(f"{what}: you may not add {opts.verbose_name_plural}")
        return
    if row.status in GOING_PUBLIC and not can_publish(user, model):
        report.missed.append(f"{what}: it was published, and you may not publish it")
        return
    missing = missing_targets(row)
    if missing:
        report.missed.append(
            f"{what}: {join_words(missing)} {'is' if len(missing) == 1 else 'are'} still "
            f"deleted; recover {'it' if len(missing) == 1 else 'them'} first, then this "
            f"{opts.verbose_name} from {str(opts.verbose_name_plural).capitalize()} › "
            "Recover deleted"
        )
        return
    row._state.adding = True
    row.adopt_recorded_state(deletion.instance)
    row._history_user = user
    row._change_reason = fit_change_reason(f"Recovered with “{parent}”")
    try:
        with transaction.atomic(using=model._base_manager.db):
            row.save()
    except IntegrityError:
        report.missed.append(f"{what}: another {opts.verbose_name} holds its values now")
        return
    report.count(model)
    restore_deleted(row, deletion.related_snapshot, user, report)


def _recreate_row(model, entry, parent, user, report):
    values = entry["row"]
    pk_name = model._meta.pk.attname
    if model._base_manager.filter(pk=values.get(pk_name)).exists():
        return
    fields = {field.attname: field for field in model._meta.concrete_fields}
    row = model(
        **{
            attname: fields[attname].to_python(value)
            for attname, value in values.items()
            if attname in fields
        }
    )
    what = f"the {model._meta.verbose_name} “{describe(row)}”"
    missing = missing_targets(row)
    if missing:
        report.missed.append(f"{what}: {join_words(missing)} is still deleted")
        return
    try:
        with transaction.atomic(using=model._base_manager.db):
            row._history_user = user
            row._change_reason = fit_change_reason(f"Recovered with “{parent}”")
            row.save(force_insert=True)
    except IntegrityError:
        report.missed.append(f"{what}: another {model._meta.verbose_name} holds its values now")
        return
    report.count(model)
    recover_deleted_with(row, {"deleted_with": entry.get("with", {})}, user, report)


def _restore_links(instance, relation, pks, report):
    other = relation.related_model
    existing = list(other._base_manager.filter(pk__in=pks).order_by("pk"))
    if existing:
        getattr(instance, relation.get_accessor_name()).add(*existing)
    report.count(other, links=True, number=len(existing))
    gone = set(pks) - {row.pk for row in existing}
    for pk in sorted(gone):
        last = last_version(other, pk)
        name = f"“{last}”" if last is not None else f"#{pk}"
        report.missed.append(
            f"the link from the {other._meta.verbose_name} {name}: it is deleted too"
        )


def _restore_unset(instance, relation, pks, user, report):
    other = relation.related_model
    field = relation.field
    # Only the rows still empty: an editor may have pointed one elsewhere since.
    rows = other._base_manager.filter(pk__in=pks, **{f"{field.name}__isnull": True})
    for row in rows:
        setattr(row, field.attname, instance.pk)
        row._history_user = user
        row._change_reason = fit_change_reason(f"Recovered with “{instance}”")
        row.save(update_fields=[field.attname])
        report.count(other, links=True)
