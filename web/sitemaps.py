"""sitemap.xml: every public page, with absolute URLs built from SITE_URL (published only).

The index and each section page cost the same at any corpus size: a section is
paged by id ranges (`IdRangePaginator`: page n holds the published rows among `limit`
consecutive ids from the lowest), so the number of pages comes from the lowest and highest
ids, two index lookups, and
a page is an index range scan; no COUNT of the rows passing the publication rule. A section's
newest change is the newest `updated_at` among its published rows (an index walk from the
newest: `paper_updated`).

A page of 500 URLs costs little more than a page of 50: the rows are read as values (no model
instance each), their paths formatted from one reverse() per page, and the XML written one
line per URL rather than through Django's sitemap template (several tags and filters per URL:
at 500 URLs, most of the page's time)."""

import math
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import x_robots_tag
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import Max, Min
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.html import escape
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from citations.models import Paper
from notes.models import ResearchNote
from pagecache.caching import reads_query
from tags.counts import public_tags


class SiteSitemap(Sitemap):
    """Absolute URLs from SITE_URL rather than from whatever Host the request carried."""

    limit = 10_000

    def get_protocol(self, protocol=None):
        return urlsplit(settings.SITE_URL).scheme or "https"

    def get_domain(self, site=None):
        return urlsplit(settings.SITE_URL).netloc


class IdRangePage:
    def __init__(self, object_list, number):
        self.object_list, self.number = object_list, number


class IdRangePaginator:
    """Pages of `limit` consecutive ids of `queryset`'s model (see the module docstring). A
    page may hold fewer rows than the limit (drafts, deleted rows in its range)."""

    def __init__(self, queryset, limit):
        self.queryset, self.limit = queryset, limit

    @cached_property
    def id_range(self):
        """(lowest, highest) id of the model's rows, published or not: two index lookups."""
        bounds = self.queryset.model._base_manager.aggregate(lowest=Min("pk"), highest=Max("pk"))
        return bounds["lowest"] or 1, bounds["highest"] or 0

    @cached_property
    def num_pages(self):
        lowest, highest = self.id_range
        return max(1, math.ceil((highest - lowest + 1) / self.limit))

    def page(self, number):
        try:
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer") from None
        if not 1 <= number <= self.num_pages:
            raise EmptyPage("That page contains no results")
        bottom = self.id_range[0] - 1 + (number - 1) * self.limit
        rows = self.queryset.filter(pk__gt=bottom, pk__lte=bottom + self.limit).order_by("pk")
        return IdRangePage(rows, number)


SLUG = "SLUG"  # reversed in place of a row's slug, once per page


class ModelSitemap(SiteSitemap):
    """A sitemap of published rows with a slug and `updated_at`, read as values (dicts) and
    paged by id ranges; `url_name` is their page's URL name (one `slug` argument)."""

    limit = 500  # URLs per section page: a page costs the same at any corpus size
    url_name = ""
    fields = ("slug", "updated_at")

    def published(self):
        raise NotImplementedError

    def items(self):
        return self.published().order_by("id").values(*self.fields)

    @cached_property
    def path_around_slug(self):
        return reverse(self.url_name, kwargs={"slug": SLUG}).split(SLUG)

    def location(self, row):
        before, after = self.path_around_slug
        return f"{before}{row['slug']}{after}"

    def lastmod(self, row):
        return row["updated_at"]

    def get_latest_lastmod(self):
        newest = self.items().order_by("-updated_at").values_list("updated_at", flat=True)
        return newest.first()

    @property
    def paginator(self):
        return IdRangePaginator(self.items(), self.limit)


class StaticPagesSitemap(SiteSitemap):
    changefreq = "weekly"
    priority = 0.8

    def items(self):
        return [
            "home",
            "citations:research-index",
            "bottlenecks:index",
            "paper-list",
            "note-list",
            "tag-index",
        ]

    def location(self, item):
        return reverse(item)


class PaperSitemap(ModelSitemap):
    changefreq = "weekly"
    url_name = "citations:paper-detail"
    fields = ("slug", "updated_at", "in_research_index")

    def published(self):
        return Paper.objects.published()

    def priority(self, paper):
        return 0.7 if paper["in_research_index"] else 0.4


class NoteSitemap(ModelSitemap):
    changefreq = "monthly"
    priority = 0.7
    url_name = "notes:note-detail"

    def published(self):
        return ResearchNote.objects.published()


class LayerSitemap(ModelSitemap):
    changefreq = "monthly"
    priority = 0.5
    url_name = "bottlenecks:layer-detail"

    def published(self):
        return Layer.objects.published()


class TagSitemap(SiteSitemap):
    changefreq = "weekly"
    priority = 0.3

    def items(self):
        return public_tags().order_by("slug")

    def location(self, tag):
        return reverse("tag-detail", kwargs={"slug": tag.slug})


SITEMAPS = {
    "pages": StaticPagesSitemap,
    "papers": PaperSitemap,
    "notes": NoteSitemap,
    "layers": LayerSitemap,
    "tags": TagSitemap,
}


def xml_response(lines, headers=None):
    return HttpResponse(
        "".join(['<?xml version="1.0" encoding="UTF-8"?>\n', *lines, "\n"]),
        content_type="application/xml",
        headers=headers,
    )


def last_modified_header(lastmod):
    return {"Last-Modified": http_date(lastmod.timestamp())} if lastmod else None


@reads_query()
@require_safe
@x_robots_tag
def sitemap_index(request):
    """sitemap.xml: every page of every section sitemap, at SITE_URL (Django's own index view
    would take the host from the request)."""
    lines = ['<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n']
    for section, sitemap_class in SITEMAPS.items():
        sitemap = sitemap_class()
        path = reverse("sitemap-section", kwargs={"section": section})
        location = escape(settings.SITE_URL + path)
        lastmod = sitemap.get_latest_lastmod()
        lastmod = f"<lastmod>{timezone.localtime(lastmod).isoformat()}</lastmod>" if lastmod else ""
        lines.append(f"<sitemap><loc>{location}</loc>{lastmod}</sitemap>")
        for page in range(2, sitemap.paginator.num_pages + 1):
            lines.append(f"<sitemap><loc>{location}?p={page}</loc>{lastmod}</sitemap>")
    lines.append("\n</sitemapindex>")
    return xml_response(lines)


@reads_query("p")
@require_safe
@x_robots_tag
def sitemap_section(request, section):
    """One page (`?p=`) of a section's sitemap; Last-Modified: its newest URL's lastmod."""
    if section not in SITEMAPS:
        raise Http404("No such sitemap.")
    sitemap = SITEMAPS[section]()
    try:
        urls = sitemap.get_urls(page=request.GET.get("p", 1))
    except (EmptyPage, PageNotAnInteger):
        raise Http404("No such sitemap page.") from None
    lines = [
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
    ]
    for url in urls:
        lastmod = url["lastmod"] and timezone.localtime(url["lastmod"]).date().isoformat()
        lines.append(
            f"<url><loc>{escape(url['location'])}</loc>"
            + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
            + (f"<changefreq>{url['changefreq']}</changefreq>" if url["changefreq"] else "")
            + (f"<priority>{url['priority']}</priority>" if url["priority"] else "")
            + "</url>"
        )
    lines.append("\n</urlset>")
    return xml_response(lines, last_modified_header(getattr(sitemap, "latest_lastmod", None)))
