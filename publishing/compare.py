"""Two revisions of an item side by side: each field's old and new value, long text compared
word by word (difflib), relations (tags, layers, authors in order, figures) included.

The admin's compare page renders the segments with CSS classes (`diff-del`, `diff-ins`); no
markup is built here, so every value is escaped by the template."""

import difflib
import re

from django.db import models
from taggit.managers import TaggableManager

from publishing.history import child_relations, tracked_m2m_fields

# Columns every record has that say nothing about the content.
SKIPPED_FIELDS = {"updated_at", "created_at", "version", "search_document"}
WORDS = re.compile(r"\s+|[^\s]+")


def word_diff(old, new):
    """(old_segments, new_segments): lists of (kind, text), kind "same", "del" or "ins"."""
    old_words, new_words = WORDS.findall(old or ""), WORDS.findall(new or "")
    left, right = [], []
    matcher = difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            text = "".join(old_words[i1:i2])
            left.append(("same", text))
            right.append(("same", "".join(new_words[j1:j2])))
            continue
        if i2 > i1:
            left.append(("del", "".join(old_words[i1:i2])))
        if j2 > j1:
            right.append(("ins", "".join(new_words[j1:j2])))
    return left, right


def _display(field, value):
    if value is None or value == "":
        return ""
    if isinstance(field, models.DateTimeField):
        return value.replace(microsecond=0).isoformat(sep=" ")
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(field, models.ForeignKey):
        target = field.related_model._base_manager.filter(pk=value).first()
        return str(target) if target is not None else f"#{value} (deleted)"
    return str(value)


def _normalised(field, value):
    """Values compared as an editor reads them: times to the second (an old row kept
    microseconds that a form never posts back: not a change)."""
    if isinstance(field, models.DateTimeField) and value is not None:
        return value.replace(microsecond=0)
    return value


class FieldComparison:
    def __init__(self, label, old, new, changed, long_text=False):
        self.label = label
        self.changed = changed
        if long_text and changed:
            self.old, self.new = word_diff(old, new)
        else:
            self.old = [("del" if changed else "same", old)] if old else []
            self.new = [("ins" if changed else "same", new)] if new else []


def compare_records(model, old, new):
    """Every field of two historical records of `model`, then their relations."""
    rows = []
    for field in model._meta.concrete_fields:
        if field.primary_key or field.name in SKIPPED_FIELDS or not field.editable:
            continue
        before = _normalised(field, getattr(old, field.attname))
        after = _normalised(field, getattr(new, field.attname))
        long_text = isinstance(field, models.TextField)
        rows.append(
            FieldComparison(
                str(field.verbose_name).capitalize(),
                _display(field, before),
                _display(field, after),
                before != after,
                long_text=long_text,
            )
        )
    rows += compare_relations(model, old, new)
    return rows


def compare_relations(model, old, new):
    old_snapshot = getattr(old, "related_snapshot", None) or {}
    new_snapshot = getattr(new, "related_snapshot", None) or {}
    if not old_snapshot and not new_snapshot:
        return []
    rows = []
    for field in tracked_m2m_fields(model):
        before = old_snapshot.get("m2m", {}).get(field.name, [])
        after = new_snapshot.get("m2m", {}).get(field.name, [])
        rows.append(
            FieldComparison(
                str(field.verbose_name).capitalize(),
                _names(field, before),
                _names(field, after),
                sorted(before) != sorted(after),
            )
        )
    for name in child_relations(model):
        relation = model._meta.get_field(name)
        before = old_snapshot.get("children", {}).get(name, [])
        after = new_snapshot.get("children", {}).get(name, [])
        rows.append(
            FieldComparison(
                str(relation.related_model._meta.verbose_name_plural).capitalize(),
                _rows_text(relation.related_model, before),
                _rows_text(relation.related_model, after),
                before != after,
                long_text=True,
            )
        )
    return rows


def _names(field, values):
    if isinstance(field, TaggableManager):
        return ", ".join(values)
    targets = field.related_model._base_manager.in_bulk(values)
    return ", ".join(str(targets[pk]) if pk in targets else f"#{pk} (deleted)" for pk in values)


def _rows_text(child_model, rows):
    """Child rows one per line, foreign keys by name, in their recorded order."""
    lines = []
    for row in rows:
        parts = []
        for attname, value in row.items():
            field = next(f for f in child_model._meta.concrete_fields if f.attname == attname)
            if value in (None, ""):
                continue
            parts.append(_display(field, field.to_python(value)))
        lines.append(" · ".join(parts))
    return "\n".join(lines)
