import difflib

from django import template
from django.utils.safestring import mark_safe

from rlscaling.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text):
    """Render editors' Markdown; the output has been through the nh3 allow-list."""
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitised by nh3 above


# How alike (difflib's ratio) a body's opening line and the standfirst may be before the line
# counts as a repeat of it.
REPEAT_RATIO = 0.6


@register.filter
def after_standfirst(body, standfirst):
    """`body` without its opening line when that line restates `standfirst` (shown just
    above it), so a page does not say the same sentence twice."""
    first, _, rest = (body or "").strip().partition("\n")
    ratio = difflib.SequenceMatcher(None, first.lower(), (standfirst or "").lower()).ratio()
    return rest.strip() if first and ratio >= REPEAT_RATIO else body
