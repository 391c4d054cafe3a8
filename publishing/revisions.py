"""Draft revisions of live items: an editor keeps working on a published item while readers
still see the published version, previews the draft revision as readers will see it, and
publishes it when ready (through the same save as any edit, so history records it).

A draft revision is the change form's posted data (fields, relations and inline rows), one per
item, shared by the editors, with the state it was written against (`base_state`: the item's
many-to-many relations and its inline rows as the form showed them), so publishing can tell
what changed live since from what the draft changed. Publishing it is saving that form;
discarding it deletes it."""

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.http import QueryDict

# The key of `DraftRevision.data` holding the state the draft was written against (not form
# data: never posted back).
BASE_KEY = "_base_state"
# Posted keys that are buttons or tokens, not content.
NOT_CONTENT = {
    BASE_KEY,
    "csrfmiddlewaretoken",
    "_save",
    "_continue",
    "_addanother",
    "_save_draft_revision",
    "_publish_draft_revision",
    "_discard_draft_revision",
    "_draft_revision",
    "_draft_revision_version",
}


class StaleDraftRevision(Exception):
    """Another editor saved a draft revision after this form was opened."""

    def __init__(self, current):
        self.current = current
        super().__init__("A newer draft revision was saved.")


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
    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.CharField(max_length=64)
    item = GenericForeignKey("content_type", "object_id")
    # The change form's data, {name: [values]}: what saving the form would store.
    data = models.JSONField(default=dict)
    # The item's version this revision was written against (it may have changed since).
    base_version = models.PositiveIntegerField(default=1)
    # Bumped on every save of the draft revision: a save from a form opened on an older one
    # (or before there was one: 0) is refused, as stale live saves are.
    revision = models.PositiveIntegerField(default=1)
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
    def store(cls, obj, posted, author, expected=None, base_version=None, base_state=None):
        """Keep `posted` (a QueryDict from the change form) as the item's draft revision. With
        `expected` (the revision number the form was opened on, 0 for none), a compare-and-swap:
        StaleDraftRevision if someone saved a draft revision since. `base_version` is the item's
        version the data was written against (its current one unless said: a draft keeping
        values that conflict with live changes stays based on the older one, so publishing
        still asks). `base_state` is the item's relations and inline rows the data was written
        against (see revisions_admin.base_state), kept the same way."""
        data = {
            key: posted.getlist(key)
            for key in posted
            if key not in NOT_CONTENT and not key.startswith("_conflict_")
        }
        if base_state is not None:
            data[BASE_KEY] = base_state
        content_type = ContentType.objects.get_for_model(type(obj))
        with transaction.atomic():
            current = (
                cls.objects.select_for_update()
                .filter(content_type=content_type, object_id=str(obj.pk))
                .first()
            )
            number = current.revision if current else 0
            if expected is not None and expected != number:
                raise StaleDraftRevision(current)
            revision, _ = cls.objects.update_or_create(
                content_type=content_type,
                object_id=str(obj.pk),
                defaults={
                    "data": data,
                    "base_version": obj.version if base_version is None else base_version,
                    "author": author,
                    "revision": number + 1,
                },
            )
        return revision

    @property
    def base_state(self):
        """{"m2m": {name: [...]}, "rows": {prefix: {pk: {field: value}}}}, or None for a draft
        revision saved before it was kept."""
        return self.data.get(BASE_KEY)

    def differences(self, posted):
        """The fields where `posted` (another editor's form) and this revision differ, as
        [(name, this revision's values, the posted values)]."""
        names = sorted((set(self.data) | set(posted)) - NOT_CONTENT - {"edit_version"})
        rows = []
        for name in names:
            mine, theirs = self.data.get(name, []), posted.getlist(name)
            if [str(v) for v in mine] != [str(v) for v in theirs] and "__prefix__" not in name:
                rows.append((name, mine, theirs))
        return rows

    def as_post(self, current_version):
        """The form data to post, against the item's current version (the stale-edit check
        then guards from this moment on)."""
        posted = QueryDict(mutable=True)
        for key, values in self.data.items():
            if key not in NOT_CONTENT:
                posted.setlist(key, values)
        posted.setlist("edit_version", [str(current_version)])
        posted.setlist("_draft_revision", [str(self.pk)])
        return posted


@receiver(post_delete, dispatch_uid="publishing.revisions.item_deleted")
def drop_revisions_of_deleted_items(sender, instance, **kwargs):
    from publishing.models import Publishable

    if isinstance(instance, Publishable):
        DraftRevision.objects.for_object(instance).delete()
