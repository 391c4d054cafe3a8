import re

from django import template
from django.utils.safestring import mark_safe

from core.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text):
    """Render editors' Markdown; the output has been through the nh3 allow-list."""
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitised by nh3 above


def _words(text):
    return re.findall(r"\w+", (text or "").casefold())


@register.filter
def after_standfirst(body, standfirst):
    """`body` without its opening line when that line is the standfirst again (the same
    words, whatever the case or punctuation), shown just above it. A line that only resembles
    it says something else and stays: a display rule never drops the editors' text."""
    first, _, rest = (body or "").strip().partition("\n")
    return rest.strip() if first and _words(first) == _words(standfirst) else body
