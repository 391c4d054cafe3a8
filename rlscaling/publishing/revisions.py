"""Draft revisions of live items: an editor keeps working on a published item while readers
still see the published version, previews the draft revision as readers will see it, and
publishes it when ready (through the same save as any edit, so history records it).

A draft revision is the change form's posted data (fields, relations and inline rows), one per
item, shared by the editors. Publishing it is saving that form; discarding it deletes it."""

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.http import QueryDict

# Posted keys that are buttons or tokens, not content.
NOT_CONTENT = {
    "csrfmiddlewaretoken",
    "_save",
    "_continue",
    "_addanother",
    "_save_draft_revision",
    "_publish_draft_revision",
    "_discard_draft_revision",
    "_draft_revision",
}


class DraftRevisionQuerySet(models.QuerySet):
    def for_object(self, obj):
        return self.filter(
            content_type=ContentType.objects.get_for_model(type(obj)), object_id=str(obj.pk)
        )

    def for_model(self, model):
        return self.filter(content_type=ContentType.objects.get_for_model(model))

    def object_pks(self, model):
        """The primary keys of `model`'s rows that have a draft revision (a short list)."""
        field = model._meta.pk
        return [
            field.to_python(pk) for pk in self.for_model(model).values_list("object_id", flat=True)
        ]

    def waiting(self):
        """Every draft revision, oldest first, with its author (the editors' dashboard)."""
        return self.select_related("content_type", "author").order_by("updated_at")


class DraftRevision(models.Model):
    shown_to_readers = False  # no public page shows it (rlscaling.caching.shown_to_readers)

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.CharField(max_length=64)
    item = GenericForeignKey("content_type", "object_id")
    # The change form's data, {name: [values]}: what saving the form would store.
    data = models.JSONField(default=dict)
    # The item's version this revision was written against (it may have changed since).
    base_version = models.PositiveIntegerField(default=1)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DraftRevisionQuerySet.as_manager()

    class Meta:
        app_label = "rlscaling"
        constraints = [
            models.UniqueConstraint(
                fields=["content_type", "object_id"], name="one_draft_revision_per_item"
            )
        ]

    def __str__(self):
        return f"Draft revision of {self.content_type.model} {self.object_id}"

    @classmethod
    def store(cls, obj, posted, author):
        """Keep `posted` (a QueryDict from the change form) as the item's draft revision."""
        data = {key: posted.getlist(key) for key in posted if key not in NOT_CONTENT}
        revision, _ = cls.objects.update_or_create(
            content_type=ContentType.objects.get_for_model(type(obj)),
            object_id=str(obj.pk),
            defaults={"data": data, "base_version": obj.version, "author": author},
        )
        return revision

    def as_post(self, current_version):
        """The form data to post, against the item's current version (the stale-edit check
        then guards from this moment on)."""
        posted = QueryDict(mutable=True)
        for key, values in self.data.items():
            posted.setlist(key, values)
        posted.setlist("edit_version", [str(current_version)])
        posted.setlist("_draft_revision", [str(self.pk)])
        return posted


@receiver(post_delete, dispatch_uid="rlscaling.publishing.revisions.item_deleted")
def drop_revisions_of_deleted_items(sender, instance, **kwargs):
    from .models import Publishable

    if isinstance(instance, Publishable):
        DraftRevision.objects.for_object(instance).delete()
