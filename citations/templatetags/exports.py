from django import template

from citations.exports.downloads import download_links
from citations.exports.formats import entry_kind

register = template.Library()


@register.inclusion_tag("includes/export_links.html", takes_context=True)
def export_links(context, url_name, label="Download", keep_query=False, **kwargs):
    """Download links in every export format (citations/exports/downloads.py) for a list page; with
    `keep_query`, the page's filters (not its page number) go along, so the file holds what
    the page lists."""
    query = ""
    request = context.get("request")
    if keep_query and request is not None:
        params = request.GET.copy()
        params.pop("page", None)
        query = params.urlencode()
    links = [
        (name, f"{url}?{query}" if query else url)
        for name, url in download_links(url_name, **kwargs)
    ]
    return {"label": label, "links": links}


@register.filter
def export_kind(paper):
    """What the exports call the paper ("article", "conference", "report", "preprint",
    "misc"), so the page's Google Scholar tags say what its BibTeX, RIS and CSL-JSON say."""
    return entry_kind(paper)
