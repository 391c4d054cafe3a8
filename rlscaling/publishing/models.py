"""Models and querysets of the draft/published mechanism."""

import functools

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.formats import date_format
from simple_history.models import HistoricalRecords

from .history import RelationSnapshot
from .writes import SignalledWrites


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    # A contributor's draft, ready for an editor with the publish permission (not public).
    REVIEW = "review", "Submitted for review"
    PUBLISHED = "published", "Published"


def publishable_models():
    """Every concrete model with the draft/published mechanism."""
    from django.apps import apps

    return [model for model in apps.get_models() if issubclass(model, Publishable)]


def can_publish(user, model):
    """May `user` publish or unpublish rows of `model` (the permission `publish_<model>`,
    created with the Editors group: rlscaling/publishing/editors.py)?"""
    return user.has_perm(f"{model._meta.app_label}.publish_{model._meta.model_name}")


class PublicationState(models.TextChoices):
    """What a reader sees of an item right now, computed from status, published_at and
    unpublish_at (not stored: a scheduled item becomes published by the clock alone)."""

    DRAFT = "draft", "Draft"
    SCHEDULED = "scheduled", "Scheduled"
    PUBLISHED = "published", "Published"
    EXPIRED = "expired", "Expired"


def published_q(prefix="", now=None, expiry=True):
    """The published rule as a Q, for this model (``prefix=""``) or across a relation
    (``published_q("citing_paper__")``): the one place the rule is spelled out. Published,
    due (``published_at`` passed) and not expired (no ``unpublish_at``, or one still ahead).
    Pass `now` to check several relations against the same instant; `expiry=False` only for
    migrations that run before the expiry field exists."""
    now = now or timezone.now()
    rule = Q(**{f"{prefix}status": Status.PUBLISHED, f"{prefix}published_at__lte": now})
    if not expiry:
        return rule
    return rule & (
        Q(**{f"{prefix}unpublish_at__isnull": True}) | Q(**{f"{prefix}unpublish_at__gt": now})
    )


def format_moment(value):
    """A publication time as editors read it in lists, forms and banners."""
    return date_format(timezone.localtime(value), "j M Y, H:i T")


class PublishableQuerySet(models.QuerySet):
    def published(self):
        return self.filter(published_q())

    def drafts(self):
        return self.exclude(pk__in=self.published().values("pk"))

    def hidden_pks(self, now=None):
        """The primary keys of the rows not public at `now`, as the union of three index-friendly
        parts (drafts and undated rows; rows scheduled for later; expired rows): when few rows
        are hidden, checking a big table against this short list beats joining every row to
        its status."""
        now = now or timezone.now()
        not_published = self.filter(~Q(status=Status.PUBLISHED) | Q(published_at__isnull=True))
        scheduled = self.filter(status=Status.PUBLISHED, published_at__gt=now)
        expired = self.filter(status=Status.PUBLISHED, published_at__lte=now, unpublish_at__lte=now)
        return (
            not_published.order_by()
            .values("pk")
            .union(scheduled.order_by().values("pk"), expired.order_by().values("pk"), all=True)
        )

    def scheduled(self, now=None):
        """Rows set to appear later (published status, a future ``published_at``)."""
        return self.filter(status=Status.PUBLISHED, published_at__gt=now or timezone.now())

    def with_publication_state(self, state, now=None):
        """Rows in one PublicationState at `now` (the changelist's Status filter)."""
        now = now or timezone.now()
        if state == PublicationState.PUBLISHED:
            return self.filter(published_q(now=now))
        if state == PublicationState.SCHEDULED:
            return self.scheduled(now)
        if state == PublicationState.EXPIRED:
            return self.filter(
                status=Status.PUBLISHED, published_at__lte=now, unpublish_at__lte=now
            )
        return self.filter(~Q(status=Status.PUBLISHED) | Q(published_at__isnull=True))

    def visible_to(self, user):
        """All rows for editors who may view this model (previews); published ones for others."""
        if user.is_authenticated and user.has_perm(
            f"{self.model._meta.app_label}.view_{self.model._meta.model_name}"
        ):
            return self.all()
        return self.published()

    def publish(self):
        from .schedule import forget_next_scheduled_change

        forget_next_scheduled_change()  # rows with a future date become scheduled
        now = timezone.now().replace(microsecond=0)
        # A bulk change is an edit too: bumping the version makes open copies stale.
        changed = {"status": Status.PUBLISHED, "updated_at": now, "version": F("version") + 1}
        # Rows published before keep their date; first-time publications get "now".
        republished = self.filter(published_at__isnull=False).update(**changed)
        count = republished + self.filter(published_at__isnull=True).update(
            **changed, published_at=now
        )
        if count:
            announce_bulk_change(self.db, withdrawal=False)
        return count

    def unpublish(self):
        count = self.update(
            status=Status.DRAFT, updated_at=timezone.now(), version=F("version") + 1
        )
        if count:
            announce_bulk_change(self.db, withdrawal=True)  # gone from cached pages at once
        return count


def announce_bulk_change(using, withdrawal):
    """Tell the page cache about a bulk UPDATE (no save signal announces one): now, and again
    once committed, as a save does (rlscaling/caching.py)."""
    from rlscaling.caching import bump_generation

    bump_generation(withdrawal=withdrawal)
    transaction.on_commit(functools.partial(bump_generation, withdrawal=withdrawal), using=using)


PUBLISH_REFUSED = (
    "Only editors with the publish permission can publish or unpublish; save it as a draft "
    "or submit it for review."
)
LIVE_CHANGE_REFUSED = (
    "This item is published; only editors with the publish permission can change it."
)


def publishing_refusal(user, instance, changed):
    """Why `user` may not make this save ({field: message}; {} when they may): without the
    publish permission, nothing goes public or comes down, and a live item stays as it is."""
    if user is None or can_publish(user, type(instance)):
        return {}
    stored = instance.stored_status()
    if instance.status == Status.PUBLISHED or stored == Status.PUBLISHED:
        if "status" in changed or instance.pk is None:
            return {"status": PUBLISH_REFUSED}
        if changed:
            return {None: LIVE_CHANGE_REFUSED}
    return {}


STALE_EDIT_MESSAGES = {
    # An editor in the admin, who sees it on the form or after a redirect.
    "admin": (
        "Someone else saved this {name} while you were editing it (your copy is version "
        "{expected}, the saved one is version {current}). Nothing was changed. Open the item "
        "again in a new tab to see their changes, then make yours there."
    ),
    # A program writing through the API (409 Conflict).
    "api": (
        "Stale version: you sent version {expected}, but it is now version {current}. "
        "Fetch it again, reapply your change and send the new version."
    ),
}


class StaleEditError(Exception):
    """Someone saved the row after this copy of it was read; saving it would lose their edit."""

    def __init__(self, expected_version, current_version):
        self.expected_version = expected_version
        self.current_version = current_version
        super().__init__(
            f"Stale edit: this copy is version {expected_version}, "
            f"the stored row is version {current_version}."
        )

    def message(self, audience, name=""):
        """The refusal in the words of `audience` ("admin" or "api"); `name` names the row."""
        return STALE_EDIT_MESSAGES[audience].format(
            name=name, expected=self.expected_version, current=self.current_version
        )


class Publishable(models.Model):
    """Status, publication time, timestamps, an edit version and history for editorial rows."""

    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    published_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text=(
            "When this appears publicly. Set automatically on first publication; a future "
            "time schedules it (it stays hidden until then)."
        ),
    )
    unpublish_at = models.DateTimeField(
        "unpublish at",
        null=True,
        blank=True,
        db_index=True,
        help_text="Optional: when this stops appearing publicly (an expiry). Empty: stays up.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Incremented on every save; a save carrying an older version is refused (stale edit).
    version = models.PositiveIntegerField(default=1, editable=False)

    # Each record also keeps the item's relations (publishing/history.py).
    history = HistoricalRecords(inherit=True, bases=[RelationSnapshot])

    objects = PublishableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.status == Status.PUBLISHED and self.published_at is None:
            self.published_at = timezone.now()
        # Whole seconds: a time with microseconds would differ from the one a form posts back
        # (which has none), and every save would record a phantom "Published at" change.
        for name in ("published_at", "unpublish_at"):
            value = self._meta.get_field(name).to_python(getattr(self, name))  # "2026-01-02"
            setattr(self, name, value.replace(microsecond=0) if value is not None else None)
        if self.pk is not None and not self._state.adding:
            self.version += 1
        super().save(*args, **kwargs)

    def save_if_version(self, expected_version, **kwargs):
        """Save only if the stored row is still at ``expected_version``; else StaleEditError.

        A compare-and-swap on the version column, so of two editors holding the same
        version only the first save wins, on SQLite and PostgreSQL alike.
        """
        rows = type(self)._base_manager.using(kwargs.get("using") or self._state.db)
        with transaction.atomic(using=rows.db), SignalledWrites.part_of_a_save():
            claimed = rows.filter(pk=self.pk, version=expected_version).update(
                version=expected_version + 1
            )
            if not claimed:
                current = rows.filter(pk=self.pk).values_list("version", flat=True).first()
                raise StaleEditError(expected_version, current)
            self.version = expected_version  # save() bumps it to the claimed version
            self.save(**kwargs)

    def clean(self):
        super().clean()
        if self.unpublish_at and self.published_at and self.unpublish_at <= self.published_at:
            raise ValidationError(
                {"unpublish_at": "The unpublish time must come after the publication time."},
                code="unpublish_before_publish",
            )

    # Fields a publishing rule is reported on -> the fields it reads (see publication_errors).
    publishing_rule_fields = {}

    @classmethod
    def from_db(cls, db, field_names, values):
        item = super().from_db(db, field_names, values)
        item._loaded_status = item.__dict__.get("status")  # was it public before this save?
        return item

    def stored_status(self):
        """The status saved in the database (None for a new row), as read with this copy, or
        read now for a copy made otherwise (a revert builds one from history); for a deleted
        row being recovered, its status when it was deleted."""
        if self.pk is None:
            return None
        if not hasattr(self, "_loaded_status"):
            rows = type(self)._base_manager.filter(pk=self.pk)
            status = rows.values_list("status", flat=True).first()
            if status is None:  # deleted, being recovered: as it was when deleted
                records = type(self).history.filter(**{self._meta.pk.attname: self.pk})
                records = records.order_by("-history_date", "-history_id")
                status = records.values_list("status", flat=True).first()
            self._loaded_status = status
        return self._loaded_status

    def publishing_errors(self, relations=None):
        """What this item lacks to be published, as {field name: [message, ...]}; {} when it
        may be. Each model states its own needs. `relations`: values of many-to-many fields a
        form or serializer is about to set ({name: iterable}), which win over the stored ones."""
        return {}

    def related_values(self, name, relations=None):
        """The rows of the many-to-many field `name` this item will have: the ones about to be
        set (`relations`), else the stored ones."""
        if relations and name in relations:
            return list(relations[name] or [])
        if self.pk is None:
            return []
        return list(getattr(self, name).all())

    def publication_errors(self, relations=None, changed=None):
        """The publishing refusals for this save, the same at every door (admin form, bulk
        action, API). Nothing for an item that stays unpublished (drafts save incomplete);
        every rule for one going public now; for one already public, only the rules on the
        fields this save changes (`changed`: field names), so a rule that came after an item
        went up never blocks fixing a typo in it, while nobody empties what it needs."""
        if self.status != Status.PUBLISHED:
            return {}
        errors = self.publishing_errors(relations)
        if changed is not None and self.stored_status() == Status.PUBLISHED:
            changed = set(changed)
            errors = {
                name: messages
                for name, messages in errors.items()
                if changed & set(self.publishing_rule_fields.get(name, (name,)))
            }
        return errors

    @property
    def is_published(self):
        return self.publication_state() == PublicationState.PUBLISHED

    def publication_state(self, now=None):
        """The PublicationState readers see at `now` (default: this instant)."""
        now = now or timezone.now()
        if self.status != Status.PUBLISHED or self.published_at is None:
            return PublicationState.DRAFT
        if self.published_at > now:
            return PublicationState.SCHEDULED
        if self.unpublish_at is not None and self.unpublish_at <= now:
            return PublicationState.EXPIRED
        return PublicationState.PUBLISHED

    @admin.display(description="status", ordering="status")
    def get_publication_state_display(self, now=None):
        """The state in words, with its time: "Draft", "Scheduled for 4 Dec 2026, 09:00 UTC",
        "Published", "Published until …", "Expired on …"."""
        state = self.publication_state(now)
        if state == PublicationState.SCHEDULED:
            return f"Scheduled for {format_moment(self.published_at)}"
        if state == PublicationState.EXPIRED:
            return f"Expired on {format_moment(self.unpublish_at)}"
        if state == PublicationState.PUBLISHED and self.unpublish_at is not None:
            return f"Published until {format_moment(self.unpublish_at)}"
        if self.status == Status.REVIEW:
            return Status.REVIEW.label
        return state.label
