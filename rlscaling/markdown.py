"""Editors' Markdown to HTML, then through an allow-list sanitiser (nh3, i.e. Ammonia)."""

import markdown as markdown_lib
import nh3

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h2", "h3", "h4", "hr", "i",
    "li", "ol", "p", "pre", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr",
    "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "th": {"align"}, "td": {"align"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def sanitise_html(html):
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )


def render_markdown(text):
    """Safe HTML for a Markdown string written by an editor."""
    html = markdown_lib.markdown(text or "", extensions=["extra", "sane_lists"])
    return sanitise_html(html)
