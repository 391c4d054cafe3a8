"""The research index's `?q=` through the site's search engine (search/engine.py), so the
index finds what /search/ finds: the engine's paper match (its fields and authors on SQLite,
the stored document and titles on PostgreSQL) and, beyond it, the papers of every published
bottleneck layer the query matches (`?q=rollout` lists the Rollouts layer's papers, as
`?layer=rollouts` does)."""

from django.contrib.postgres.search import SearchRank
from django.db.models import F

from citations.filters import ResearchIndexFilter
from search.engine import PaperSource, Query, on_postgresql


class SiteSearchIndexFilter(ResearchIndexFilter):
    def filter_search(self, queryset, name, value):
        query = Query(value)
        if not query:  # only one-letter words: nothing the engine searches for
            return queryset.none()
        # The match is a condition on the papers themselves, which PostgreSQL tests as it walks
        # the date index (a common word) or finds with the GIN indexes (a rare one). As
        # `pk IN (the matches)` it first read every match of a common word, a scan of the
        # whole table, to count 201 or list a page; an OR with the layers' papers would force
        # that scan for every word, so it is added only when a layer matches (decision 0020).
        match = PaperSource().match_q(query)  # with the papers of the layers it matches
        matched = queryset.filter(match)
        if on_postgresql():
            # The index sorts a search by relevance when the rows carry a rank.
            return matched.annotate(rank=SearchRank(F("search_document"), query.fulltext))
        return matched
