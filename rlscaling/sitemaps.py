"""sitemap.xml: every public page, with absolute URLs built from SITE_URL (published only).

The index and each section page cost the same at any corpus size (issue 15): a section is
paged by id ranges (`IdRangePaginator`: page n holds the published rows among `limit`
consecutive ids from the lowest), so the number of pages comes from the lowest and highest
ids, two index lookups, and
a page is an index range scan; no COUNT of the rows passing the publication rule. A section's
newest change is the newest `updated_at` among its published rows (an index walk from the
newest: `paper_updated`)."""

import math
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import SitemapIndexItem, x_robots_tag
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import Max, Min
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import cached_property
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from citations.models import Paper
from notes.models import ResearchNote

from .caching import reads_query
from .tags import public_tags


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


class ModelSitemap(SiteSitemap):
    """A sitemap of rows with `updated_at`, paged by id ranges."""

    limit = 500  # URLs per section page: a page costs the same at any corpus size

    def lastmod(self, item):
        return item.updated_at

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

    def items(self):
        return (
            Paper.objects.published().only("slug", "updated_at", "in_research_index").order_by("id")
        )

    def priority(self, paper):
        return 0.7 if paper.in_research_index else 0.4


class NoteSitemap(ModelSitemap):
    changefreq = "monthly"
    priority = 0.7

    def items(self):
        return ResearchNote.objects.published().only("slug", "updated_at").order_by("id")


class LayerSitemap(ModelSitemap):
    changefreq = "monthly"
    priority = 0.5

    def items(self):
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


@reads_query()
@require_safe
@x_robots_tag
def sitemap_index(request):
    """sitemap.xml: every page of every section sitemap, at SITE_URL (Django's own index view
    would take the host from the request)."""
    entries = []
    for section, sitemap_class in SITEMAPS.items():
        sitemap = sitemap_class()
        location = settings.SITE_URL + reverse("sitemap-section", kwargs={"section": section})
        lastmod = sitemap.get_latest_lastmod()
        entries.append(SitemapIndexItem(location, lastmod))
        for page in range(2, sitemap.paginator.num_pages + 1):
            entries.append(SitemapIndexItem(f"{location}?p={page}", lastmod))
    return TemplateResponse(
        request, "sitemap_index.xml", {"sitemaps": entries}, content_type="application/xml"
    )
