"""The research index's `?q=` through the site's search engine (search/engine.py), so the
index finds what /search/ finds: the engine's paper match (its fields and authors on SQLite,
the stored document and titles on PostgreSQL) and, beyond it, the papers of every published
bottleneck layer the query matches (`?q=rollout` lists the Rollouts layer's papers, as
`?layer=rollouts` does)."""

from django.contrib.postgres.search import SearchRank
from django.db.models import F, Q

from citations.filters import ResearchIndexFilter
from citations.models import Paper
from search.engine import LayerSource, PaperSource, Query, on_postgresql


class SiteSearchIndexFilter(ResearchIndexFilter):
    def filter_search(self, queryset, name, value):
        query = Query(value)
        if not query:  # only one-letter words: nothing the engine searches for
            return queryset.none()
        papers = PaperSource().matches(queryset, query).order_by().values("pk")
        layers = LayerSource().matching(query).order_by().values("pk")
        in_layers = Paper.layers.through.objects.filter(layer__in=layers).values("paper")
        matched = queryset.filter(Q(pk__in=papers) | Q(pk__in=in_layers))
        if on_postgresql():
            # The index sorts a search by relevance when the rows carry a rank.
            return matched.annotate(rank=SearchRank(F("search_document"), query.fulltext))
        return matched
