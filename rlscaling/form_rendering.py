"""Widgets rendered once per process for each distinct widget (issue 15).

A filter form's selects (the research index's tags, layers and years; the explorer's roles,
polarities, years and layers) were a third of an uncached page's time: Django renders every
option through its own template. A widget's HTML is a pure function of its template and its
context (name, value, attributes, options), so the renderer keeps the HTML of the last
MEMO_SIZE widgets it rendered, keyed by a digest of exactly those: the same widget with the
same options and value is not rendered again, and any difference (an option added by an
editor, another selected value, an error's attributes) is another key. Nothing here can be
stale, so the memo is per process, not shared (no round trip)."""

import collections
import hashlib
import json
import threading

import django
from django.forms.renderers import DjangoTemplates
from django.utils.safestring import SafeData, mark_safe

MEMO_SIZE = 256
# A widget with more options than this (an admin select over a large table) is not kept.
MAX_OPTIONS = 500
WIDGET_TEMPLATES = "django/forms/widgets/"


class MemoizedWidgetRenderer(DjangoTemplates):
    def __init__(self):
        super().__init__()
        self.memo = collections.OrderedDict()
        self.lock = threading.Lock()

    def render(self, template_name, context, request=None):
        if request is not None or not template_name.startswith(WIDGET_TEMPLATES):
            return super().render(template_name, context, request)
        widget = context.get("widget", {})
        if sum(len(group[1]) for group in widget.get("optgroups", ())) > MAX_OPTIONS:
            return super().render(template_name, context, request)
        key = widget_digest(template_name, context)
        with self.lock:
            html = self.memo.get(key)
            if html is not None:
                self.memo.move_to_end(key)
                return html
        html = mark_safe(super().render(template_name, context, request))  # noqa: S308
        with self.lock:
            self.memo[key] = html
            while len(self.memo) > MEMO_SIZE:
                self.memo.popitem(last=False)
        return html


def widget_digest(template_name, context):
    """A digest of everything the widget's HTML is made from. Lazy texts (translated labels)
    count as their text; Django's version stands for its widget templates."""
    made_of = json.dumps([django.get_version(), template_name, tagged(context)], default=str)
    return hashlib.blake2b(made_of.encode(), digest_size=16).digest()


def tagged(value):
    """`value` with text marked safe told apart from the same text unmarked (the template
    escapes only the latter; JSON would write both as the same string)."""
    if isinstance(value, SafeData):
        return {"safe": str(value)}
    if isinstance(value, dict):
        return {str(key): tagged(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [tagged(item) for item in value]
    return value
