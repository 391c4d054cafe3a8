"""The Atom feed of a search (`/search/feed.atom?q=…`): new papers and research notes that
match, for a reader who wants to follow a topic."""

import dataclasses
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

from core.feeds import FEED_LENGTH, SiteFeed, tag_uri
from search.engine import SOURCES, Query

DATED_KINDS = ("papers", "notes")


@dataclasses.dataclass(frozen=True)
class FeedSearch:
    """What one request asked the feed for. A feed object may serve many requests (and
    threads), so this travels as the feed's `obj`, never on the feed."""

    query: Query
    parameters: dict

    @property
    def query_string(self):
        return urlencode(self.parameters)


class SearchFeed(SiteFeed):
    def get_object(self, request):
        parameters = {
            name: request.GET[name] for name in ("q", "kind", "year") if request.GET.get(name)
        }
        return FeedSearch(Query(request.GET.get("q", "")), parameters)

    def title(self, search):
        return f"{settings.SITE_NAME}: search results for “{search.query.text}”"

    def subtitle(self, search):
        return "Papers and research notes matching the search, newest first."

    def link(self, search):
        return f"{settings.SITE_URL}{reverse('search:search')}?{search.query_string}"

    def feed_url(self, search):
        return f"{settings.SITE_URL}{reverse('search:feed')}?{search.query_string}"

    def items(self, search):
        if not search.query:
            return []
        kind = search.parameters.get("kind")
        year = int(search.parameters["year"]) if "year" in search.parameters else None
        hits = []
        for key in DATED_KINDS:
            if kind and kind != key:
                continue
            source = SOURCES[key]
            rows = source.newest(search.query, year)
            hits += source.hits(rows[:FEED_LENGTH])
        hits.sort(key=lambda hit: hit.item.published_at, reverse=True)
        return hits[:FEED_LENGTH]

    def item_title(self, hit):
        return hit.title

    def item_description(self, hit):
        return hit.text

    def item_link(self, hit):
        return f"{settings.SITE_URL}{hit.url}"

    def item_guid(self, hit):
        # The same id as in the site's other feeds: the row's, whatever its address.
        return tag_uri({"papers": "paper", "notes": "note"}[hit.kind], hit.item.pk)

    item_guid_is_permalink = False

    def item_author_name(self, hit):
        item = hit.item
        if hit.kind == "notes":
            return settings.SITE_NAME
        return item.byline or ", ".join(item.author_names) or None

    def item_pubdate(self, hit):
        return hit.item.published_at

    def item_updateddate(self, hit):
        return hit.item.updated_at

    def item_categories(self, hit):
        return [SOURCES[hit.kind].label]
