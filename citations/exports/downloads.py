"""Downloads of papers in the formats reference managers read (BibTeX, CSL-JSON, RIS), for one
paper, a hub's citing papers (the explorer's filters), a tag, a layer and a research-index
search; and content negotiation on a paper's own URL (`negotiated`)."""

import dataclasses
import functools
import json

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from citations.exports.formats import (
    EXPORT_FIELDS,
    bibtex_entries,
    csl_item,
    csl_items,
    ris_records,
    scholarly_article,
)
from citations.filters import CitingPaperFilter, ResearchIndexFilter
from citations.models import Paper, with_author_names
from pagecache.caching import reads_query
from tags.counts import public_tags

# The most papers one download holds (a hub can have tens of thousands of citing papers): a
# longer list continues in the next file (`?page=2`, ...), which the answer names in its Link
# header (rel="next"), so what a download costs in time and memory is bounded by this, not by
# the list. The whole corpus is in the public dump (/data/).
EXPORT_LIMIT = 1000


@dataclasses.dataclass(frozen=True)
class ExportFormat:
    extension: str
    media_type: str
    label: str
    render: object  # papers (authors prefetched) -> str

    def response(self, papers, filename):
        body = self.render(papers)
        response = HttpResponse(body, content_type=f"{self.media_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{filename}.{self.extension}"'
        return response


def csl_json(papers):
    """A JSON array, one item a line: the C encoder writes each (an indented file goes through
    json's Python encoder, a third of a 1,000-item file's time)."""
    items = (json.dumps(item, ensure_ascii=False) for item in csl_items(papers))
    return "[\n" + ",\n".join(items) + "\n]\n"


EXPORT_FORMATS = {
    "bib": ExportFormat("bib", "application/x-bibtex", "BibTeX", bibtex_entries),
    "json": ExportFormat("json", "application/vnd.citationstyles.csl+json", "CSL-JSON", csl_json),
    "ris": ExportFormat("ris", "application/x-research-info-systems", "RIS", ris_records),
}
JSON_LD = "application/ld+json"
HTML = "text/html"
CSL = EXPORT_FORMATS["json"].media_type
# Other names clients send for the same formats (DOI content negotiation's among them), and
# the format each names.
MEDIA_TYPE_ALIASES = {
    "text/x-bibtex": "application/x-bibtex",
    "application/bibtex": "application/x-bibtex",
    "text/bibtex": "application/x-bibtex",
    "application/x-ris": "application/x-research-info-systems",
    "text/x-research-info-systems": "application/x-research-info-systems",
    "application/citeproc+json": CSL,
    "application/vnd.schemaorg.ld+json": JSON_LD,
}
# What a paper's URL answers, by Accept; HTML first, so `*/*` and browsers get the page.
PAPER_MEDIA_TYPES = [
    HTML,
    JSON_LD,
    *(fmt.media_type for fmt in EXPORT_FORMATS.values()),
    *MEDIA_TYPE_ALIASES,
]


def export_format(extension):
    try:
        return EXPORT_FORMATS[extension]
    except KeyError:
        raise Http404("No such export format.") from None


def bad_request(message):
    return HttpResponse(f"{message}\n", status=400, content_type="text/plain; charset=utf-8")


def requested_page(request):
    """The page of a list download asked for (1 without `?page=`), or None when malformed."""
    value = request.GET.get("page", "1")
    if not (value.isascii() and value.isdigit()) or len(value) > 9 or int(value) < 1:
        return None
    return int(value)


def page_link(request, page, relation):
    params = request.GET.copy()
    params["page"] = page
    return f'<{request.path}?{params.urlencode()}>; rel="{relation}"'


def list_download(request, fmt, paper_ids, filename):
    """One page of EXPORT_LIMIT papers of a list (`paper_ids`: the list's ordered query of paper
    ids), linked to the pages before and after it. The page's ids are found first and its
    papers read by id after, so the list is ordered on narrow rows (decision 0016)."""
    page = requested_page(request)
    if page is None:
        return bad_request("Bad page: a whole number from 1.")
    start = (page - 1) * EXPORT_LIMIT
    ids = list(paper_ids[start : start + EXPORT_LIMIT + 1])  # one more says a next page exists
    if page > 1 and not ids:
        raise Http404("No such page of this list.")
    if page > 1:
        filename = f"{filename}-page-{page}"
    response = fmt.response(exported_papers(ids[:EXPORT_LIMIT]), filename)
    links = []
    if page > 1:
        links.append(page_link(request, page - 1, "prev"))
    if len(ids) > EXPORT_LIMIT:
        links.append(page_link(request, page + 1, "next"))
    if links:
        response["Link"] = ", ".join(links)
    return response


class ExportedPaper:
    """What the formats read of one paper in a list download: EXPORT_FIELDS and the authors'
    names as plain attributes, with Paper's own properties over them. A model instance costs
    more to build (deferred fields, post_init receivers, the loaded status kept for a save)
    than its entry costs to write, and a download never saves (decision 0020)."""

    publication_date_parts = Paper.publication_date_parts
    publication_date_iso = Paper.publication_date_iso
    arxiv_url = Paper.arxiv_url
    doi_url = Paper.doi_url
    author_names = Paper.author_names

    def __init__(self, pk, values):
        self.pk = pk
        self.__dict__.update(values)


def exported_papers(ids):
    """The papers with these ids, in this order, as the formats read them: only the columns
    they use (EXPORT_FIELDS) and the authors' names, read as values."""
    # In the ids' order below, not the model's (a sort of 1,000 wide rows).
    rows = Paper.objects.filter(pk__in=ids).order_by().values_list("pk", *EXPORT_FIELDS)
    papers = {
        pk: ExportedPaper(pk, zip(EXPORT_FIELDS, values, strict=True)) for pk, *values in rows
    }
    return with_author_names([papers[pk] for pk in ids if pk in papers])


def visible_paper(request, slug):
    return get_object_or_404(Paper.objects.visible_to(request.user).with_authors(), slug=slug)


def paper_representation(request, paper, media_type):
    if media_type == JSON_LD:
        response = JsonResponse(
            scholarly_article(paper, with_citations=True),
            content_type=f"{JSON_LD}; charset=utf-8",
            json_dumps_params={"ensure_ascii": False, "indent": 2},
        )
        return response
    if media_type == CSL:
        # One paper is one CSL item, an object, as DOI content negotiation answers.
        response = JsonResponse(
            csl_item(paper),
            content_type=f"{CSL}; charset=utf-8",
            json_dumps_params={"ensure_ascii": False, "indent": 2},
        )
        response["Content-Disposition"] = f'attachment; filename="{paper.slug}.json"'
        return response
    fmt = next(fmt for fmt in EXPORT_FORMATS.values() if fmt.media_type == media_type)
    return fmt.response([paper], paper.slug)


# -- one paper --------------------------------------------------------------------------------


@reads_query()
@require_safe
def paper_export(request, slug, extension):
    """/papers/<slug>.bib, .json (CSL-JSON), .ris and .jsonld."""
    paper = visible_paper(request, slug)
    if extension == "jsonld":
        return paper_representation(request, paper, JSON_LD)
    return export_format(extension).response([paper], paper.slug)


def preferred_media_type(request):
    """The type of PAPER_MEDIA_TYPES the Accept header prefers (an empty header accepts
    anything), or None when it accepts none of them."""
    if not request.headers.get("Accept", "").strip():
        return HTML
    preferred = request.get_preferred_type(PAPER_MEDIA_TYPES)
    if not preferred:
        return None
    return MEDIA_TYPE_ALIASES.get(str(preferred), str(preferred))


def accept_variant(request):
    """The page cache's key for the representation (pagecache/caching.py)."""
    return preferred_media_type(request) or "not-acceptable"


def negotiated(html_view):
    """A paper's URL in every format by the Accept header: the hub page for browsers and `*/*`,
    JSON-LD, CSL-JSON, BibTeX or RIS for clients that ask, 406 for anything else; each answer
    says it varies by Accept."""

    @functools.wraps(html_view)
    def view(request, slug, **kwargs):
        media_type = preferred_media_type(request)
        if media_type is None:
            alternatives = "\n".join(PAPER_MEDIA_TYPES)
            response = HttpResponse(
                f"Not acceptable. This URL answers in:\n{alternatives}\n",
                status=406,
                content_type="text/plain; charset=utf-8",
            )
        elif media_type == HTML:
            response = html_view(request, slug=slug, **kwargs)
        elif request.method not in ("GET", "HEAD"):
            response = html_view(request, slug=slug, **kwargs)  # its 405
        else:
            response = paper_representation(request, visible_paper(request, slug), media_type)
        patch_vary_headers(response, ["Accept"])
        return response

    view.accept_variant = accept_variant
    return view


# -- lists of papers --------------------------------------------------------------------------


@reads_query(CitingPaperFilter, "page")
@require_safe
def hub_export(request, slug, extension):
    """A hub's citing papers as the explorer lists them (`?role=`, `?polarity=`, ...)."""
    fmt = export_format(extension)
    paper = get_object_or_404(Paper.objects.visible_to(request.user), slug=slug)
    explorer = CitingPaperFilter(request.GET or None, queryset=paper.citing_citations())
    if explorer.is_bound and not explorer.is_valid():
        return bad_request(f"Bad filter: {explorer.errors.as_text()}")
    citing = explorer.qs.values_list("citing_paper", flat=True)
    return list_download(request, fmt, citing, f"{paper.slug}-citing")


@reads_query("page")
@require_safe
def tag_export(request, slug, extension):
    fmt = export_format(extension)
    tag = get_object_or_404(public_tags(), slug=slug)
    papers = Paper.objects.published().filter(tags=tag).newest_first()
    return list_download(request, fmt, papers.values_list("pk", flat=True), f"tag-{tag.slug}")


@reads_query("page")
@require_safe
def layer_export(request, slug, extension):
    fmt = export_format(extension)
    layer = get_object_or_404(Layer.objects.visible_to(request.user), slug=slug)
    papers = Paper.objects.published().filter(layers=layer).newest_first()
    return list_download(request, fmt, papers.values_list("pk", flat=True), f"layer-{layer.slug}")


@reads_query(ResearchIndexFilter, "page")
@require_safe
def research_export(request, extension):
    """The research index as searched and filtered (`?q=`, `?tag=`, `?year=`, ...)."""
    fmt = export_format(extension)
    filterset = ResearchIndexFilter(
        request.GET or None, queryset=Paper.objects.in_research_index(), request=request
    )
    if filterset.is_bound and not filterset.is_valid():
        return bad_request(f"Bad filter: {filterset.errors.as_text()}")
    papers = filterset.listing.values_list("pk", flat=True)
    return list_download(request, fmt, papers, "research")


def download_links(url_name, **kwargs):
    """(label, URL) of every export format for one of the list exports above, for templates."""
    return [
        (fmt.label, reverse(url_name, kwargs={**kwargs, "extension": fmt.extension}))
        for fmt in EXPORT_FORMATS.values()
    ]
