"""sitemap.xml: every public page, with absolute URLs built from SITE_URL (published only)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.db.models import Q
from django.urls import reverse
from taggit.models import Tag

from bottlenecks.models import Layer
from citations.models import Paper
from notes.models import ResearchNote


def published_tags():
    """Tags carried by at least one published paper or note (the tag pages that exist)."""
    on_papers = Tag.objects.filter(paper__in=Paper.objects.published()).values("pk")
    on_notes = Tag.objects.filter(researchnote__in=ResearchNote.objects.published()).values("pk")
    return Tag.objects.filter(Q(pk__in=on_papers) | Q(pk__in=on_notes)).order_by("slug")


class SiteSitemap(Sitemap):
    """Absolute URLs from SITE_URL rather than from whatever Host the request carried."""

    def get_protocol(self, protocol=None):
        return urlsplit(settings.SITE_URL).scheme or "https"

    def get_domain(self, site=None):
        return urlsplit(settings.SITE_URL).netloc


class StaticPagesSitemap(SiteSitemap):
    changefreq = "weekly"
    priority = 0.8

    def items(self):
        return ["home", "citations:research-index", "bottlenecks:index"]

    def location(self, item):
        return reverse(item)


class PaperSitemap(SiteSitemap):
    changefreq = "weekly"

    def items(self):
        return Paper.objects.published().order_by("id")

    def lastmod(self, paper):
        return paper.updated_at

    def priority(self, paper):
        return 0.7 if paper.in_research_index else 0.4


class NoteSitemap(SiteSitemap):
    changefreq = "monthly"
    priority = 0.7

    def items(self):
        return ResearchNote.objects.published().order_by("id")

    def lastmod(self, note):
        return note.updated_at


class LayerSitemap(SiteSitemap):
    changefreq = "monthly"
    priority = 0.5

    def items(self):
        return Layer.objects.published()

    def lastmod(self, layer):
        return layer.updated_at


class TagSitemap(SiteSitemap):
    changefreq = "weekly"
    priority = 0.3

    def items(self):
        return published_tags()

    def location(self, tag):
        return reverse("tag-detail", kwargs={"slug": tag.slug})


SITEMAPS = {
    "pages": StaticPagesSitemap,
    "papers": PaperSitemap,
    "notes": NoteSitemap,
    "layers": LayerSitemap,
    "tags": TagSitemap,
}
