"""Publishing announces what readers may see change; whoever keeps copies of public answers (the
page cache, pagecache/apps.py) listens. As Wagtail's core sends `page_published` and its
frontend cache listens: publishing knows nothing of who keeps what.

`content_changed` is sent with `sender` (the model whose rows changed) and `withdrawal` (True
when something public left public view: a public row unpublished or deleted). It is sent for

- a save, delete or m2m change of a model readers are shown (`shown_to_readers`), unless the
  row stays out of public view before and after (a draft, a scheduled row, their tag rows);
- a queryset's publish() and unpublish() (publishing/models.py), which no save announces;
- `manage.py publish_scheduled` flipping the status of rows whose time has come (by saving
  them: the save announces it);
- fixture loading (raw saves), where the related rows may not exist yet to judge by.

Writes no signal announces (a queryset.update() elsewhere, raw SQL) are not seen here: a
management command announces when it ends (manage.py), and cached copies live at most
PAGE_CACHE_SECONDS.
"""

from django.core.exceptions import ObjectDoesNotExist
from django.db.models.fields.related_descriptors import ForwardManyToOneDescriptor
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import Signal

from publishing.editors import EDITORIAL_APPS

content_changed = Signal()
# Sent after a queryset's publish() or unpublish() (one UPDATE, which no save signal
# announces): sender is the model, `pks` the rows it changed, `published` whether they were
# published (or scheduled); for those that keep something per row in step.
bulk_publication_changed = Signal()


def announce(model, withdrawal=False):
    """Tell the listeners that rows of `model` changed as readers see them."""
    content_changed.send(sender=model, withdrawal=withdrawal)


def shown_to_readers(model):
    """Whether rows of `model` can show on a public page or in an API answer: the models of
    the editorial apps, except the admin's bookkeeping (import runs, duplicate scans, merges,
    readers' suggestions, draft revisions, ...), which says `shown_to_readers = False`; their
    writes announce nothing (what they lead to, a paper merged or a revision applied, is
    saved through the content models)."""
    return model._meta.app_label in EDITORIAL_APPS and getattr(model, "shown_to_readers", True)


def _is_public(status):
    return status == "published"  # Status.PUBLISHED: visibility follows the status alone


def _publishable():
    # publishing.models imports this module (to send its signals): imported when first used.
    from publishing.models import Publishable

    return Publishable


def out_of_public_view(instance, created=False):
    """A publishable row that was not public as loaded and is not public now (a draft being
    written, a scheduled item): no public page or API answer shows it, so its saves, deletes
    and m2m changes announce nothing; nor do the tag rows of such an item, a tag no item
    carries yet, and history rows (the row's own save decides). Anything else (children rows,
    vocabularies, tags) counts as a content change."""
    if getattr(type(instance), "instance_type", None) is not None:  # a simple_history row
        return True
    if created and getattr(instance, "public_paper_count", None) == 0:
        return not instance.public_note_count  # a new tag: shown once a public item has it
    if isinstance(getattr(type(instance), "content_object", None), ForwardManyToOneDescriptor):
        try:
            parent = instance.content_object  # a tag row (citations.TaggedPaper, ...)
        except ObjectDoesNotExist:
            return False
        return isinstance(parent, _publishable()) and out_of_public_view(parent)
    if not isinstance(instance, _publishable()):
        return False
    return not _is_public(instance.__dict__.get("status")) and not was_public(instance, created)


UNKNOWN = object()


def was_public(instance, created=False):
    """Whether the row was public before this write: its status as last saved by this copy,
    or as loaded (`Publishable.from_db`); a new row was not; a copy made otherwise (a revert
    builds one from history) may have been."""
    if created:
        return False
    before = getattr(instance, "_announced_status", instance.__dict__.get("_loaded_status"))
    before = UNKNOWN if before is None else before
    return before is UNKNOWN or _is_public(before)


def withdraws(instance, deleted, created=False):
    """Whether this save or delete takes a publishable row that was public out of view."""
    if not isinstance(instance, _publishable()):
        return False
    gone = deleted or not _is_public(instance.__dict__.get("status"))
    return gone and was_public(instance, created)


def remember_status(sender, instance, **kwargs):
    if isinstance(instance, _publishable()):
        instance._announced_status = instance.__dict__.get("status")


def row_changed(sender, instance=None, created=False, raw=False, signal=None, **kwargs):
    # Fixture loading (raw): related rows may not exist yet to judge by; announce it.
    if shown_to_readers(sender) and (raw or not out_of_public_view(instance, created)):
        withdrawal = not raw and withdraws(instance, signal is post_delete, created)
        announce(sender, withdrawal=withdrawal)
    remember_status(sender, instance)


def relation_changed(sender, instance, action, **kwargs):
    if (
        action.startswith("post_")
        and (shown_to_readers(sender) or shown_to_readers(type(instance)))
        and not out_of_public_view(instance)
    ):
        announce(type(instance))


def connect():
    """Called once by PublishingConfig.ready()."""
    post_save.connect(row_changed, dispatch_uid="publishing.signals.post_save")
    post_delete.connect(row_changed, dispatch_uid="publishing.signals.post_delete")
    m2m_changed.connect(relation_changed, dispatch_uid="publishing.signals.m2m_changed")
