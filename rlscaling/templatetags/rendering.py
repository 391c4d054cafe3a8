from django import template
from django.utils.safestring import mark_safe

from rlscaling.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text):
    """Render editors' Markdown; the output has been through the nh3 allow-list."""
    return mark_safe(render_markdown(text))  # noqa: S308 - sanitised by nh3 above
