"""sitemap.xml: every public page, with absolute URLs built from SITE_URL (published only)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import SitemapIndexItem, x_robots_tag
from django.db.models import Max
from django.template.response import TemplateResponse
from django.urls import reverse
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


class ModelSitemap(SiteSitemap):
    """A sitemap of rows with `updated_at`; the newest one is found by the database."""

    def lastmod(self, item):
        return item.updated_at

    def get_latest_lastmod(self):
        return self.items().aggregate(latest=Max("updated_at"))["latest"]


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
