"""Structured data for search engines."""

import json

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

# The characters that could end the <script> element or start markup inside it.
JSON_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@register.simple_tag(takes_context=True)
def json_ld(context, data):
    """A JSON-LD data block. It needs no CSP nonce: a <script> of a non-JavaScript type is a
    data block, which the browser neither executes nor checks against script-src; and without a
    per-request nonce the page can be served from the shared page cache."""
    payload = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False)
    return format_html(
        '<script type="application/ld+json">{}</script>',
        mark_safe(payload.translate(JSON_SCRIPT_ESCAPES)),  # noqa: S308 - escaped above
    )
