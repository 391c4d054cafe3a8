"""Stored counts of public papers by year, tag and layer, for the research index
(its total, tag and year choices, and the count of a one-filter page), the Bottleneck Map's
paper counts per layer and the API's unfiltered `papers/?group_by=year` and `group_by=layer`.

Counting them per request scanned the paper table on every reader's request
(docs/decisions/0006-stored-facet-counts.md). `recount_paper_facets()` counts them again, a
few grouped queries over the papers, and replaces what it counted: every figure, or only the
groups a change can move (a tag's, a layer's, the totals and a year's). It runs on every
change that can move a count (citations/signals.py) and at the end of every bulk path, so
there is nothing to keep per paper and no order to get right.

Counts, as (scope, dimension, value):
- scope "index": papers in the research index (published, `in_research_index`); "public":
  every published paper.
- dimension "all" (value 0): the total; "tag" and "layer": the tag's or layer's pk (a layer
  counts its papers whether the layer itself is published or not: readers filter by the
  published layers); "year": the publication year where it is a fact (citations/dates.py, the
  one rule for a known date), 0 in scope "public" for a paper with no known date (so the API's
  `group_by=year` agrees with `?year=`), left out in scope "index" (as its year filter);
  "no-layer" (value 0, scope "public"): papers bearing on no published layer (`group_by=layer`'s
  null group); "layer-q" (scope "public", value the layer's pk, `quarter`): the layer's dated
  papers per quarter (its page's evidence strip): a date known to the day or the month; a
  year alone has no quarter, and a placeholder is no date)."""

import collections
import datetime

from django.apps import apps as django_apps
from django.db import connection, models, transaction
from django.db.models import Count, Exists, OuterRef, Q

from citations.dates import known_quarter_q, known_year_expression, quarter_number_expression
from publishing.models import published_q

BATCH = 2000
INDEX, PUBLIC = "index", "public"
ALL, TAG, YEAR, LAYER, NO_LAYER = "all", "tag", "year", "layer", "no-layer"
LAYER_QUARTER = "layer-q"


class PaperFacetCount(models.Model):
    scope = models.CharField(max_length=10)
    dimension = models.CharField(max_length=10)
    value = models.IntegerField(default=0)
    # Dimension "layer-q" only: the quarter, as year * 4 + quarter - 1.
    quarter = models.IntegerField(default=0)
    count = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "dimension", "value", "quarter"], name="paper_facet_count_unique"
            )
        ]

    def __str__(self):
        return f"{self.scope} {self.dimension} {self.value} {self.quarter}: {self.count}"


def facet_counts(scope):
    """{dimension: {value: count}} of one scope, the counts above zero, in one query."""
    found = collections.defaultdict(dict)
    rows = PaperFacetCount.objects.filter(scope=scope, count__gt=0).exclude(dimension=LAYER_QUARTER)
    for dimension, value, count in rows.values_list("dimension", "value", "count"):
        found[dimension][value] = count
    return found


def stored_years(scope):
    """The years with a counted paper in this scope, newest first (no undated 0)."""
    rows = PaperFacetCount.objects.filter(scope=scope, dimension=YEAR, value__gt=0, count__gt=0)
    return list(rows.order_by("-value").values_list("value", flat=True))


def stored_count(scope, dimension, value=0):
    """One stored count (0 when none is stored)."""
    rows = PaperFacetCount.objects.filter(scope=scope, dimension=dimension, value=value)
    return rows.values_list("count", flat=True).first() or 0


def layer_quarters_and_total(layer_id):
    """({first day of a quarter: published papers on the layer dated in it}, every published
    paper on the layer), in one query: the papers no quarter holds are the difference."""
    rows = PaperFacetCount.objects.filter(
        scope=PUBLIC, dimension__in=(LAYER_QUARTER, LAYER), value=layer_id, count__gt=0
    )
    quarters, total = {}, 0
    for dimension, quarter, n in rows.values_list("dimension", "quarter", "count"):
        if dimension == LAYER:
            total = n
        else:
            quarters[datetime.date(quarter // 4, quarter % 4 * 3 + 1, 1)] = n
    return quarters, total


def counted_now(tags=None, layers=None, years=None, apps=None):
    """{(scope, dimension, value, quarter): count} of the papers as they are now, above zero:
    every count, or only the groups named: the tag counts of `tags`; the counts layers
    `layers` move (theirs and "no-layer"); the totals and the year counts of `years` (None in
    it: the undated)."""
    models_from = (apps or django_apps).get_model
    paper_model = models_from("citations", "Paper")
    on_layers = paper_model.layers.through.objects.filter(published_q("paper__"))
    public = paper_model._base_manager.filter(published_q())
    indexed = public.filter(in_research_index=True)
    every_group = tags is None and layers is None and years is None
    counts = collections.Counter()

    def add(scope, dimension, rows, value, quarter=None):
        for row in rows.annotate(n=Count("*")).order_by():
            counts[(scope, dimension, row[value] or 0, row[quarter] if quarter else 0)] += row["n"]

    if every_group or years is not None:
        counts[(PUBLIC, ALL, 0, 0)] = public.count()
        counts[(INDEX, ALL, 0, 0)] = indexed.count()
        public_years = public.annotate(y=known_year_expression())
        if years is not None:
            known = {year for year in years if year is not None}
            undated = Q(y__isnull=True) if None in years else Q(pk__in=[])
            public_years = public_years.filter(Q(y__in=known) | undated)
        add(PUBLIC, YEAR, public_years.values("y"), "y")
        index_years = public_years.filter(in_research_index=True, y__isnull=False)
        add(INDEX, YEAR, index_years.values("y"), "y")
    if every_group or layers is not None:
        if layers is not None:
            on_layers = on_layers.filter(layer__in=layers)
        shown = paper_model.layers.through.objects.filter(published_q("layer__"))
        counts[(PUBLIC, NO_LAYER, 0, 0)] = public.exclude(
            Exists(shown.filter(paper=OuterRef("pk")))
        ).count()
        add(PUBLIC, LAYER, on_layers.values("layer"), "layer")
        indexed_on_layers = on_layers.filter(paper__in_research_index=True)
        add(INDEX, LAYER, indexed_on_layers.values("layer"), "layer")
        dated = on_layers.filter(
            known_quarter_q("paper__publication_date", "paper__date_precision")
        ).annotate(q=quarter_number_expression("paper__publication_date"))
        add(PUBLIC, LAYER_QUARTER, dated.values("layer", "q"), "layer", "q")
    if every_group or tags is not None:
        tagged = models_from("citations", "TaggedPaper").objects.filter(
            published_q("content_object__"), content_object__in_research_index=True
        )
        if tags is not None:
            tagged = tagged.filter(tag__in=tags)
        add(INDEX, TAG, tagged.values("tag"), "tag")
    return {key: n for key, n in counts.items() if n}


def recount_paper_facets(tags=None, layers=None, years=None, apps=None):
    """Count the stored figures again from the papers and replace them: all of them, or only
    the groups named (counted_now): some tags' (a tag put on or taken off a paper), some
    layers' (a paper's layers or a layer's publication changed), the totals and some years'
    (a new paper, which has no tags or layers yet). Returns how many counts it stored. `apps`:
    a migration's app registry, when called from one."""
    count_model = (apps or django_apps).get_model("citations", "PaperFacetCount")
    table = connection.ops.quote_name(count_model._meta.db_table)
    replaced = count_model.objects.all()
    if tags is not None or layers is not None or years is not None:
        groups = Q(pk__in=[])
        if tags is not None:
            groups |= Q(dimension=TAG, value__in=tags)
        if layers is not None:
            groups |= Q(dimension__in=(LAYER, LAYER_QUARTER), value__in=layers)
            groups |= Q(dimension=NO_LAYER)
        if years is not None:
            groups |= Q(dimension=ALL) | Q(dimension=YEAR, value__in={y or 0 for y in years})
        replaced = replaced.filter(groups)
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Recounts take turns: a later one waits, then counts what the earlier one left.
            # Readers are not blocked; they see the old counts until this commits.
            cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        counts = counted_now(tags, layers, years, apps)
        # A raw delete: a queryset's delete() would announce each row to the page cache.
        replaced._raw_delete(replaced.db)
        count_model.objects.bulk_create(
            [
                count_model(scope=scope, dimension=dimension, value=value, quarter=quarter, count=n)
                for (scope, dimension, value, quarter), n in counts.items()
            ],
            batch_size=BATCH,
        )
    return len(counts)
