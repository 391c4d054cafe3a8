"""Editors' Markdown to HTML, then through an allow-list sanitiser (nh3, i.e. Ammonia)."""

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import markdown as markdown_lib
import nh3
from django.conf import settings

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h2", "h3", "h4", "hr", "i",
    "li", "ol", "p", "pre", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr",
    "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "th": {"align"}, "td": {"align"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


# A link in nh3's output: attributes always double-quoted, so the href is found by pattern.
LINK = re.compile(r"<a (?P<attributes>[^>]*)>")
HREF = re.compile(r'\bhref="(?P<url>[^"]*)"')
EXTERNAL_REL = 'rel="noopener noreferrer nofollow"'


def sanitise_html(html):
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel=None,
    )
    return LINK.sub(_with_rel, clean)


def _with_rel(match):
    """Links that leave the site are nofollow (the site does not vouch for them); its own
    pages are, and keep their standing."""
    href = HREF.search(match["attributes"])
    if href is None or not is_external(href["url"]):
        return match[0]
    return f"<a {EXTERNAL_REL} {match['attributes']}>"


def is_external(url):
    host = urlsplit(url.replace("&amp;", "&")).netloc.lower()
    return bool(host) and host != urlsplit(settings.SITE_URL).netloc.lower()


def render_markdown(text):
    """Safe HTML for a Markdown string written by an editor."""
    html = markdown_lib.markdown(text or "", extensions=["extra", "sane_lists"])
    return sanitise_html(html)


# The text fields rendered through `render_markdown` ("app_label.model.field"); every other
# text field is shown as plain text. The admin says which is which next to each field.
MARKDOWN_FIELDS = frozenset(
    {"notes.researchnote.body", "bottlenecks.analysis.body", "bottlenecks.analysisstep.body"}
)
MARKDOWN_HELP = (
    "Markdown: **bold**, *italic*, [link](https://…), - lists, ## headings, > quotes, tables. "
    "Raw HTML outside that is removed, and you are told what was."
)
PLAIN_TEXT_HELP = "Plain text: Markdown and HTML are shown as typed."


def is_markdown_field(model_field):
    opts = model_field.model._meta
    return f"{opts.app_label}.{opts.model_name}.{model_field.name}" in MARKDOWN_FIELDS


class _MarkupSeen(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.seen = []  # (tag, attributes)

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, attrs))


def _scheme(url):
    """The scheme of a link ("" for a relative one)."""
    head = (url or "").split("/", 1)[0]
    return head.split(":", 1)[0].strip().lower() if ":" in head else ""


def stripped_by_sanitiser(text):
    """What the sanitiser removes from this Markdown, in words an editor can act on ("the tag
    <script>", "the attribute onclick on <a>", "the link javascript:…"); [] when nothing."""
    html = markdown_lib.markdown(text or "", extensions=["extra", "sane_lists"])
    if sanitise_html(html) == html:
        return []
    parser = _MarkupSeen()
    parser.feed(html)
    removed = []
    for tag, attrs in parser.seen:
        if tag not in ALLOWED_TAGS:
            removed.append(f"the tag <{tag}>")
            continue
        for name, value in attrs:
            if name not in ALLOWED_ATTRIBUTES.get(tag, set()):
                removed.append(f"the attribute {name} on <{tag}>")
            elif name == "href" and _scheme(value) not in ALLOWED_URL_SCHEMES | {""}:
                removed.append(f"the link {_scheme(value)}:…")
    return list(dict.fromkeys(removed))
