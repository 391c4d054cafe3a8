"""Which tags exist for readers, and how many published papers and notes carry each: the one
rule behind tag pages, the tag index, the sitemap, the API's `tags/` and the research index's
tag choices. A tag is public while a published paper or note carries it.

The public counts are stored on each tag (`Tag.public_paper_count`, `public_note_count`),
written by `recount_tags()`, which the apps of the tagged items call: their receivers after a
single edit (a tag added or removed, an item's publication changed: citations/signals.py,
notes/signals.py), bulk paths (publish()/unpublish() on querysets, generate_corpus,
importers) themselves; an item whose scheduled publication or expiry comes due is saved by
`manage.py publish_scheduled`, which moves its tags' counts through the same receivers."""

from django.db.models import Count, Prefetch, Q

from publishing.models import published_q
from tags.models import Tag


def tag_list():
    """The prefetch of an item's tags into the plain list `tag_list` (with `to_attr`, Django
    builds no queryset per item to hold them: a third of a feed's time went to that)."""
    return Prefetch("tags", to_attr="tag_list")


def public_tags():
    """Tags a published paper or note carries, by the stored counts (an index lookup)."""
    return Tag.objects.filter(Q(public_paper_count__gt=0) | Q(public_note_count__gt=0))


# Each typed through table that points at tags (by its related name on Tag), and the stored
# count it feeds. Reached from the Tag side, so this layer names no app above it.
STORED_COUNTS = {"tagged_papers": "public_paper_count", "tagged_notes": "public_note_count"}


def through_models(tag_model=Tag):
    """{stored count field: the through model (TaggedPaper, TaggedNote)}."""
    return {
        field: tag_model._meta.get_field(related_name).related_model
        for related_name, field in STORED_COUNTS.items()
    }


def recount_tags(tag_ids=None, apps=None):
    """Recount the stored public counts of the given tags (every tag when None). `apps`: a
    migration's app registry, when called from one."""
    tag_model = Tag if apps is None else apps.get_model("rlscaling", "Tag")
    tags = tag_model.objects.order_by("pk")
    if tag_ids is not None:
        tags = tags.filter(pk__in={pk for pk in tag_ids if pk is not None})
    tags = list(tags)
    if not tags:
        return 0

    def counts(through):
        rows = through.objects.filter(published_q("content_object__"))
        if tag_ids is not None:
            rows = rows.filter(tag__in=[tag.pk for tag in tags])
        return dict(rows.values_list("tag").annotate(n=Count("*")).order_by())

    counted = {field: counts(through) for field, through in through_models(tag_model).items()}
    changed = []
    for tag in tags:
        dirty = False
        for field, by_tag in counted.items():
            if getattr(tag, field) != by_tag.get(tag.pk, 0):
                setattr(tag, field, by_tag.get(tag.pk, 0))
                dirty = True
        if dirty:
            changed.append(tag)
    tag_model.objects.bulk_update(changed, list(STORED_COUNTS.values()))
    return len(tags)


def tags_of(items):
    """The ids of the tags these papers or notes (a queryset) carry."""
    through = items.model.tags.through
    return set(
        through.objects.filter(content_object__in=items.values("pk")).values_list("tag", flat=True)
    )


def recounting_tags(items, change):
    """Run a bulk publication change of `items` (a queryset's publish or unpublish), then
    recount the tags they carry (found before the change, which may move them out of
    `items`' own filter)."""
    touched = tags_of(items)
    changed = change()
    recount_tags(touched)
    return changed
