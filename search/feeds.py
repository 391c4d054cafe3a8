"""The Atom feed of a search (`/search/feed.atom?q=…`): new papers and research notes that
match, for a reader who wants to follow a topic."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.urls import reverse

from rlscaling.feeds import FEED_LENGTH, CleanAtom1Feed

from .engine import SOURCES, Query

DATED_KINDS = ("papers", "notes")


class SearchFeed(Feed):
    feed_type = CleanAtom1Feed

    def get_object(self, request):
        self.parameters = {
            name: request.GET[name] for name in ("q", "kind", "year") if request.GET.get(name)
        }
        return Query(request.GET.get("q", ""))

    def title(self, query):
        return f"{settings.SITE_NAME}: search results for “{query.text}”"

    def subtitle(self, query):
        return "Papers and research notes matching the search, newest first."

    def link(self, query):
        return f"{settings.SITE_URL}{reverse('search:search')}?{urlencode(self.parameters)}"

    def feed_url(self, query):
        return f"{settings.SITE_URL}{reverse('search:feed')}?{urlencode(self.parameters)}"

    def items(self, query):
        if not query:
            return []
        kind = self.parameters.get("kind")
        year = int(self.parameters["year"]) if "year" in self.parameters else None
        hits = []
        for key in DATED_KINDS:
            if kind and kind != key:
                continue
            source = SOURCES[key]
            rows = source.newest(query, year)
            hits += [source.hit(item) for item in rows[:FEED_LENGTH]]
        hits.sort(key=lambda hit: hit.item.published_at, reverse=True)
        return hits[:FEED_LENGTH]

    def item_title(self, hit):
        return hit.title

    def item_description(self, hit):
        return hit.text

    def item_link(self, hit):
        return f"{settings.SITE_URL}{hit.url}"

    def item_pubdate(self, hit):
        return hit.item.published_at

    def item_updateddate(self, hit):
        return hit.item.updated_at

    def item_categories(self, hit):
        return [SOURCES[hit.kind].label]
