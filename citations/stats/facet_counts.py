"""Stored counts of public papers by year, tag and layer, for the research index
(its total, tag and year choices, and the count of a one-filter page), the Bottleneck Map's
paper counts per layer and the API's unfiltered `papers/?group_by=year` and `group_by=layer`.

Counting them per request scanned the paper table (tens of thousands of rows at 100k papers,
seconds at 1M citations). Instead each paper has a PaperFacetMembership row listing the counts
it is in, as last counted, and PaperFacetCount holds the sums. `recount_paper_facets(ids)`
works those papers' memberships out afresh from their rows (publication by the one rule,
`published_q`), and moves the sums by the difference: the one function every path calls
with the papers it touched, any number of times, in any order, with the same result. Single
edits reach it through the signals below (a paper saved or deleted, a tag or layer added or
taken off, a layer's publication changed); bulk paths (publish()/unpublish() on querysets,
generate_corpus, the bulk importer, loading a dump) call it themselves; a paper or layer
whose scheduled publication or expiry comes due is saved by `manage.py publish_scheduled`
and recounted by its save receiver; `manage.py recount_citations` recounts everything.

Counts, as (scope, dimension, value):
- scope "index": papers in the research index (published, `in_research_index`); "public":
  every published paper.
- dimension "all" (value 0): the total; "tag" and "layer": the tag's or layer's pk (a layer
  counts its papers whether the layer itself is published or not: readers filter by the
  published layers); "year": the publication year where it is a fact (citations/dates.py, the
  one rule for a known date), 0 in scope "public" for a paper with no known date (so the API's
  `group_by=year` agrees with `?year=`), left out in scope "index" (as its year filter);
  "no-layer"
  (value 0, scope "public"): papers bearing on no published layer (`group_by=layer`'s null
  group); "layer-q" (scope "public", value the layer's pk, `quarter`): the layer's dated
  papers per quarter (its page's evidence strip): a date known to the day or the month; a
  year alone has no quarter, and a placeholder is no date)."""

import collections
import datetime

from django.db import connection, models, transaction
from django.db.models import BooleanField, ExpressionWrapper, F
from django.db.models.signals import (
    m2m_changed,
    post_delete,
    post_init,
    post_save,
    pre_delete,
)
from django.dispatch import receiver
from django.utils import timezone

from citations.dates import known_quarter, known_year
from publishing.models import published_q
from publishing.signals import bulk_publication_changed

BATCH = 2000
INDEX, PUBLIC = "index", "public"
ALL, TAG, YEAR, LAYER, NO_LAYER = "all", "tag", "year", "layer", "no-layer"
LAYER_QUARTER = "layer-q"
# What a paper's save can move: other fields leave its memberships as they are.
COUNTED_FIELDS = (
    "status",
    "published_at",
    "unpublish_at",
    "in_research_index",
    "publication_date",
    "date_precision",
)
LAYER_PUBLICATION_FIELDS = ("status", "published_at", "unpublish_at")


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


class PaperFacetMembership(models.Model):
    """The counts a paper is in, as last counted ("scope:dimension:value" strings; none for a
    draft). Not a foreign key: the row outlives its paper, so the recount after a deletion
    takes the paper out of the sums."""

    paper_id = models.BigIntegerField(primary_key=True)
    keys = models.JSONField(default=list)

    def __str__(self):
        return f"{self.paper_id}: {len(self.keys)} counts"


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


def memberships(paper_ids, now, apps=None):
    """{paper id: set of keys} of these papers (a list of ids) as their rows are now (papers
    counted nowhere, drafts among them, are left out)."""
    from citations.models import Paper, TaggedPaper

    if apps is not None:
        Paper = apps.get_model("citations", "Paper")
        TaggedPaper = apps.get_model("citations", "TaggedPaper")
    papers = Paper._base_manager.filter(published_q(now=now), pk__in=paper_ids)
    found = {}
    indexed = set()
    quarters = {}
    for pk, in_index, date, precision in papers.values_list(
        "pk", "in_research_index", "publication_date", "date_precision"
    ):
        year = known_year(date, precision)
        keys = found[pk] = {f"{PUBLIC}:{ALL}:0", f"{PUBLIC}:{YEAR}:{year or 0}"}
        quarter = known_quarter(date, precision)
        if quarter is not None:
            quarters[pk] = quarter
        if in_index:
            indexed.add(pk)
            keys.add(f"{INDEX}:{ALL}:0")
            if year:
                keys.add(f"{INDEX}:{YEAR}:{year}")
    if not found:
        return found
    tagged = TaggedPaper.objects.filter(content_object__in=indexed)
    for pk, tag in tagged.values_list("content_object", "tag"):
        found[pk].add(f"{INDEX}:{TAG}:{tag}")
    on_layers = Paper.layers.through.objects.filter(paper__in=list(found)).annotate(
        shown=ExpressionWrapper(published_q("layer__", now), output_field=BooleanField())
    )
    shown_somewhere = set()
    for pk, layer, shown in on_layers.values_list("paper", "layer", "shown"):
        found[pk].add(f"{PUBLIC}:{LAYER}:{layer}")
        if pk in quarters:
            found[pk].add(f"{PUBLIC}:{LAYER_QUARTER}:{layer}:{quarters[pk]}")
        if pk in indexed:
            found[pk].add(f"{INDEX}:{LAYER}:{layer}")
        if shown:
            shown_somewhere.add(pk)
    for pk in found.keys() - shown_somewhere:
        found[pk].add(f"{PUBLIC}:{NO_LAYER}:0")
    return found


def recount_paper_facets(paper_ids=None, apps=None):
    """Recount the memberships of these papers (every paper when None) and move the stored
    sums by the difference. `apps`: a migration's app registry, when called from one."""
    if apps is None:
        membership_model, count_model = PaperFacetMembership, PaperFacetCount
    else:
        membership_model = apps.get_model("citations", "PaperFacetMembership")
        count_model = apps.get_model("citations", "PaperFacetCount")
    now = timezone.now()
    if paper_ids is None:
        return _recount_all(membership_model, count_model, now, apps)
    ids = sorted({pk for pk in paper_ids if pk is not None})
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        with transaction.atomic():
            # Claim the rows first, so concurrent recounts of one paper take turns.
            membership_model.objects.bulk_create(
                [membership_model(paper_id=pk, keys=[]) for pk in chunk], ignore_conflicts=True
            )
            stored = dict(
                membership_model.objects.select_for_update()
                .filter(paper_id__in=chunk)
                .values_list("paper_id", "keys")
            )
            fresh = memberships(chunk, now, apps)
            delta = collections.Counter()
            for pk in chunk:
                before, after = set(stored.get(pk, ())), fresh.get(pk, set())
                delta.update(dict.fromkeys(after - before, 1))
                delta.subtract(dict.fromkeys(before - after, 1))
            # Rows are updated, never deleted: a delete() would announce each row to the page
            # cache as a content change (pagecache/caching.py), drafts' rows included.
            membership_model.objects.bulk_create(
                [membership_model(paper_id=pk, keys=sorted(fresh.get(pk, ()))) for pk in chunk],
                update_conflicts=True,
                unique_fields=["paper_id"],
                update_fields=["keys"],
            )
            _move_counts(count_model, delta)
    return len(ids)


def _parse(key):
    """The fields of a key ("scope:dimension:value", and ":quarter" for "layer-q")."""
    scope, dimension, value, *quarter = key.split(":")
    return {
        "scope": scope,
        "dimension": dimension,
        "value": int(value),
        "quarter": int(quarter[0]) if quarter else 0,
    }


def _move_counts(count_model, delta):
    delta = {key: n for key, n in delta.items() if n}
    if not delta:
        return
    parsed = {key: _parse(key) for key in delta}
    count_model.objects.bulk_create(
        [count_model(count=0, **fields) for fields in parsed.values()],
        ignore_conflicts=True,
    )
    by_step = collections.defaultdict(list)
    for key, n in delta.items():
        by_step[n].append(parsed[key])
    for step, keys in by_step.items():
        rows = models.Q()
        for fields in keys:
            rows |= models.Q(**fields)
        count_model.objects.filter(rows).update(count=F("count") + step)


def _recount_all(membership_model, count_model, now, apps):
    paper_model = apps.get_model("citations", "Paper") if apps else None
    if paper_model is None:
        from citations.models import Paper as paper_model
    ids = list(
        paper_model._base_manager.filter(published_q(now=now))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    sums = collections.Counter()
    with transaction.atomic():
        with connection.cursor() as cursor:  # no per-row delete signals (see above)
            for model in (membership_model, count_model):
                cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")
        for start in range(0, len(ids), BATCH):
            found = memberships(ids[start : start + BATCH], now, apps)
            for keys in found.values():
                sums.update(keys)
            membership_model.objects.bulk_create(
                [membership_model(paper_id=pk, keys=sorted(keys)) for pk, keys in found.items()]
            )
        count_model.objects.bulk_create(
            [count_model(count=n, **_parse(key)) for key, n in sums.items()],
            batch_size=BATCH,
        )
    return len(ids)


def _fields(instance, names):
    # As held by the instance (deferred fields left alone).
    return tuple(instance.__dict__.get(name) for name in names)


@receiver(post_init, sender="citations.Paper")
def paper_loaded(sender, instance, **kwargs):
    instance._facet_fields = _fields(instance, COUNTED_FIELDS)


@receiver(post_save, sender="citations.Paper")
def paper_saved(sender, instance, created, raw=False, **kwargs):
    """A paper whose publication, index flag or date changed moves its counts (a new draft
    is counted nowhere). Fixture loading (raw) is recounted by whoever loads."""
    fields = _fields(instance, COUNTED_FIELDS)
    counted = created and instance.status != "published"
    if not raw and not counted and (created or fields != instance._facet_fields):
        recount_paper_facets({instance.pk})
    instance._facet_fields = fields


@receiver(post_delete, sender="citations.Paper")
def paper_deleted(sender, instance, **kwargs):
    recount_paper_facets({instance.pk})


@receiver(post_save, sender="citations.TaggedPaper")
@receiver(post_delete, sender="citations.TaggedPaper")
def paper_tagging_changed(sender, instance, raw=False, **kwargs):
    if not raw:
        recount_paper_facets({instance.content_object_id})


@receiver(m2m_changed, sender="citations.Paper_layers")
def paper_layers_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """A layer added to or taken off papers (from either side)."""
    if not reverse:
        if action in ("post_add", "post_remove", "post_clear"):
            recount_paper_facets({instance.pk})
    elif action == "pre_clear":
        instance._facet_cleared_papers = set(instance.papers.values_list("pk", flat=True))
    elif action == "post_clear":
        recount_paper_facets(getattr(instance, "_facet_cleared_papers", set()))
    elif action in ("post_add", "post_remove"):
        recount_paper_facets(pk_set or set())


def recount_layer_papers(layer_ids):
    """Papers on these layers: a layer that appears or disappears moves the "no-layer" count
    of the papers on it."""
    from citations.models import Paper

    through = Paper.layers.through.objects.filter(layer__in=layer_ids)
    recount_paper_facets(set(through.values_list("paper", flat=True)))


@receiver(bulk_publication_changed)
def layers_published_in_bulk(sender, pks, **kwargs):
    """A layer that appears or disappears moves the stored "no layer" count of its papers."""
    if sender._meta.label == "bottlenecks.Layer":
        recount_layer_papers(pks)


@receiver(post_init, sender="bottlenecks.Layer")
def layer_loaded(sender, instance, **kwargs):
    instance._facet_fields = _fields(instance, LAYER_PUBLICATION_FIELDS)


@receiver(post_save, sender="bottlenecks.Layer")
def layer_saved(sender, instance, created, raw=False, **kwargs):
    fields = _fields(instance, LAYER_PUBLICATION_FIELDS)
    if not raw and not created and fields != instance._facet_fields:
        recount_layer_papers([instance.pk])
    instance._facet_fields = fields


@receiver(pre_delete, sender="bottlenecks.Layer")
def layer_deleting(sender, instance, **kwargs):
    instance._facet_cleared_papers = set(instance.papers.values_list("pk", flat=True))


@receiver(post_delete, sender="bottlenecks.Layer")
def layer_deleted(sender, instance, **kwargs):
    recount_paper_facets(getattr(instance, "_facet_cleared_papers", set()))
