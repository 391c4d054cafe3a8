"""Matches marked in result text, safely: the text is cut to an excerpt around the first
match, escaped, and only then are the matched words wrapped in <mark>."""

import re

from django.utils.html import escape
from django.utils.safestring import mark_safe

EXCERPT_LENGTH = 240
# A query word of six letters or more also marks the words sharing its stem ("scaling"
# marks "scaled"), as PostgreSQL's English stemming matches them.
STEM_FROM = 6


def term_pattern(terms):
    """One regex matching any of the query's words (and their stems), longest first."""
    parts = []
    for term in sorted({term.lower() for term in terms}, key=len, reverse=True):
        stem = term[: max(4, len(term) - 3)] if len(term) >= STEM_FROM else term
        parts.append(re.escape(stem) + (r"\w*" if stem != term else ""))
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def excerpt(text, pattern, length=EXCERPT_LENGTH):
    """About `length` characters of `text` around its first match, cut at word boundaries."""
    text = " ".join((text or "").split())
    if len(text) <= length:
        return text
    match = pattern.search(text) if pattern else None
    start = max(0, match.start() - length // 3) if match else 0
    if start:
        start = text.find(" ", start) + 1 or start
    end = start + length
    if end < len(text):
        end = text.rfind(" ", start, end) if text.rfind(" ", start, end) > start else end
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def highlight(text, terms, length=None):
    """`text` (cut to an excerpt of `length` when given) escaped, with matches in <mark>."""
    pattern = term_pattern(terms)
    text = excerpt(text, pattern, length) if length else str(text or "")
    if pattern is None:
        return escape(text)
    pieces = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() == match.end():
            continue
        pieces.append(escape(text[position : match.start()]))
        pieces.append(f"<mark>{escape(match.group())}</mark>")
        position = match.end()
    pieces.append(escape(text[position:]))
    return mark_safe("".join(pieces))  # noqa: S308 -- every piece is escaped above
