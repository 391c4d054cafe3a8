"""Receivers that keep the public counts of the tags research notes carry (tags/counts.py)
right after a single edit. Connected in NotesConfig.ready(); fixture loading (raw) brings
its own counts."""

from tags.counts import recount_tags

PUBLICATION_FIELDS = ("status", "published_at")


def publication(note):
    return tuple(note.__dict__.get(name) for name in PUBLICATION_FIELDS)


def note_loaded(sender, instance, **kwargs):
    instance._loaded_publication = publication(instance)


def note_saved(sender, instance, created, raw=False, **kwargs):
    """A note whose publication changed moves the counts of its tags."""
    now = publication(instance)
    if not created and not raw and now != getattr(instance, "_loaded_publication", now):
        recount_tags(set(instance.tagged_items.values_list("tag", flat=True)))
    instance._loaded_publication = now


def tagging_changed(sender, instance, raw=False, **kwargs):
    """A tag put on or taken off a note moves that tag's counts."""
    if not raw:
        recount_tags({instance.tag_id})
