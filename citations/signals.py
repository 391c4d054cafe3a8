"""Receivers that keep the stored figures right after a single edit: a paper's citing counts
and timeline (`recount_citations`, for the papers whose edges moved), the facet counts
(`recount_paper_facets`) and the public counts of its tags (`recount_tags`). Bulk paths call
the recounts themselves. Connected in CitationsConfig.ready(); fixture loading (raw) is
recounted by whoever loads."""

from citations.dates import known_year
from citations.stats.counts import (
    CitationCount,
    CitingTimelineCount,
    counted_fields,
    recount_citations,
)
from citations.stats.facet_counts import recount_paper_facets
from tags.counts import recount_tags

LAYER_PUBLICATION_FIELDS = ("status", "published_at")


def paper_saved(sender, instance, created, raw=False, **kwargs):
    """A new paper gets its (zero) citing counts and, once public, a place in the facets; a
    paper whose publication, date or index flag changed moves the counts of the papers it
    cites and the facets. `_loaded_counted` is set when the paper is read (Paper.from_db)."""
    counted = counted_fields(instance)
    changed = counted != getattr(instance, "_loaded_counted", counted)
    instance._loaded_counted = counted
    if raw:
        return
    if created:
        recount_citations({instance.pk})
        if instance.status == "published":
            # It has no tags or layers yet (those come after its save, each with its own
            # recount): only the totals, its year and the "no layer" count can move.
            date = instance._meta.get_field("publication_date").to_python(instance.publication_date)
            year = known_year(date, instance.date_precision)
            recount_paper_facets(years={year}, layers=set())
    elif changed:
        recount_citations(set(instance.citations_made.values_list("cited_paper", flat=True)))
        recount_tags(set(instance.tagged_items.values_list("tag", flat=True)))
        recount_paper_facets()


def paper_deleted(sender, instance, **kwargs):
    """A paper's delete collects its count rows first, then deletes its edges, whose
    recounts may write those rows again; the paper goes last, so its rows go here."""
    for model in (CitationCount, CitingTimelineCount):
        rows = model.objects.filter(paper_id=instance.pk)
        rows._raw_delete(rows.db)
    recount_paper_facets()


def citation_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        recount_citations(
            {instance.cited_paper_id, getattr(instance, "_loaded_cited_paper_id", None)}
        )
    instance._loaded_cited_paper_id = instance.cited_paper_id


def citation_deleted(sender, instance, **kwargs):
    recount_citations({instance.cited_paper_id})


def tagging_changed(sender, instance, raw=False, **kwargs):
    """A tag put on or taken off a paper moves that tag's counts."""
    if not raw:
        recount_tags({instance.tag_id})
        recount_paper_facets(tags={instance.tag_id})


def paper_layers_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """Layers put on or taken off papers, from either side. A clear from the paper's side
    names no layer, so every layer is counted again; an add of layers already there, none."""
    if action not in ("post_add", "post_remove", "post_clear"):
        return
    if reverse:
        recount_paper_facets(layers={instance.pk})
    elif pk_set is None:
        recount_paper_facets()
    elif pk_set:
        recount_paper_facets(layers=pk_set)


def layer_saved(sender, instance, created, raw=False, **kwargs):
    """A layer that appears or disappears moves the "no layer" count of its papers."""
    fields = counted_fields(instance, LAYER_PUBLICATION_FIELDS)
    if not raw and not created and fields != getattr(instance, "_loaded_publication", fields):
        recount_paper_facets(layers={instance.pk})
    instance._loaded_publication = fields


def layer_loaded(sender, instance, **kwargs):
    instance._loaded_publication = counted_fields(instance, LAYER_PUBLICATION_FIELDS)


def layer_deleted(sender, instance, **kwargs):
    recount_paper_facets(layers={instance.pk})


def layers_published_in_bulk(sender, pks, **kwargs):
    if sender._meta.label == "bottlenecks.Layer":
        recount_paper_facets(layers=set(pks))
