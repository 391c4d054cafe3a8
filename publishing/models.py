"""Models and querysets of the draft/published mechanism."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.formats import date_format
from simple_history.models import HistoricalRecords

from core.constraints import NamedConstraintErrors
from publishing.history import RelationSnapshot
from publishing.permissions import may_change_live
from publishing.signals import announce, bulk_publication_changed


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    # A contributor's draft, ready for an editor with the publish permission (not public).
    REVIEW = "review", "Submitted for review"
    PUBLISHED = "published", "Published"
    # Published with a future `published_at`: not public until `manage.py publish_scheduled`
    # (run every minute) flips it to PUBLISHED. Saving "published" with a future time stores
    # this; the status alone decides what readers see.
    SCHEDULED = "scheduled", "Scheduled"


# The statuses an editor needs the publish permission for (each leads to public view).
GOING_PUBLIC = (Status.PUBLISHED, Status.SCHEDULED)


def publishable_models():
    """Every concrete model with the draft/published mechanism."""
    from django.apps import apps

    return [model for model in apps.get_models() if issubclass(model, Publishable)]


def can_publish(user, model):
    """May `user` publish or unpublish rows of `model` (the permission `publish_<model>`,
    created with the Editors group: publishing/editors.py)? The one check of every door
    (publishing/permissions.py)."""
    return may_change_live(user, model)


class PublicationState(models.TextChoices):
    """What editors are told of an item: its status, with an unpublished item whose expiry
    passed named "expired" (`manage.py publish_scheduled` unpublished it)."""

    DRAFT = "draft", "Draft"
    SCHEDULED = "scheduled", "Scheduled"
    PUBLISHED = "published", "Published"
    EXPIRED = "expired", "Expired"


def published_q(prefix=""):
    """The published rule as a Q, for this model (``prefix=""``) or across a relation
    (``published_q("citing_paper__")``): the one place the rule is spelled out. The status
    alone: scheduled publications and expiries change it when they come due (`manage.py
    publish_scheduled`), so the rule does not move with the clock."""
    return Q(**{f"{prefix}status": Status.PUBLISHED})


def format_moment(value):
    """A publication time as editors read it in lists, forms and banners."""
    return date_format(timezone.localtime(value), "j M Y, H:i T")


class PublishableQuerySet(models.QuerySet):
    def published(self):
        return self.filter(published_q())

    def drafts(self):
        return self.exclude(pk__in=self.published().values("pk"))

    def hidden_pks(self):
        """The primary keys of the rows not public: when few rows are hidden, checking a big
        table against this short list beats joining every row to its status."""
        return self.exclude(status=Status.PUBLISHED).order_by().values("pk")

    def scheduled(self):
        """Rows set to appear later."""
        return self.filter(status=Status.SCHEDULED)

    def with_publication_state(self, state, now=None):
        """Rows in one PublicationState at `now` (the changelist's Status filter)."""
        now = now or timezone.now()
        if state == PublicationState.PUBLISHED:
            return self.filter(published_q())
        if state == PublicationState.SCHEDULED:
            return self.scheduled()
        if state == PublicationState.EXPIRED:
            return self.filter(expired_q(now))
        return self.exclude(status__in=GOING_PUBLIC).exclude(expired_q(now))

    def visible_to(self, user):
        """All rows for editors who may view this model (previews); published ones for others."""
        if user.is_authenticated and user.has_perm(
            f"{self.model._meta.app_label}.view_{self.model._meta.model_name}"
        ):
            return self.all()
        return self.published()

    def publish(self):
        pks = list(self.values_list("pk", flat=True))
        count = self._publish()
        bulk_publication_changed.send(sender=self.model, pks=pks, published=True)
        return count

    def unpublish(self):
        pks = list(self.values_list("pk", flat=True))
        count = self._unpublish()
        bulk_publication_changed.send(sender=self.model, pks=pks, published=False)
        return count

    def _publish(self):
        """Publish the rows: those dated later become scheduled (`manage.py publish_scheduled`
        publishes them when their time comes)."""
        now = timezone.now().replace(microsecond=0)
        # A bulk change is an edit too: bumping the version makes open copies stale.
        edit = {"updated_at": now, "version": F("version") + 1}
        count = self.filter(published_at__gt=now).update(status=Status.SCHEDULED, **edit)
        # Rows published before keep their date; first-time publications get "now".
        count += self.filter(published_at__lte=now).update(status=Status.PUBLISHED, **edit)
        count += self.filter(published_at__isnull=True).update(
            status=Status.PUBLISHED, published_at=now, **edit
        )
        if count:
            announce_bulk_change(self.model, withdrawal=False)
        return count

    def _unpublish(self):
        count = self.update(
            status=Status.DRAFT, updated_at=timezone.now(), version=F("version") + 1
        )
        if count:
            announce_bulk_change(self.model, withdrawal=True)
        return count


def expired_q(now):
    """Unpublished rows whose expiry has passed (taken down by it, or after it)."""
    return ~Q(status__in=GOING_PUBLIC) & Q(published_at__isnull=False, unpublish_at__lte=now)


def announce_bulk_change(model, withdrawal):
    """A bulk UPDATE sends no save signal: announce it (publishing/signals.py)."""
    announce(model, withdrawal=withdrawal)


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
    if instance.status in GOING_PUBLIC or stored in GOING_PUBLIC:
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


class EditorialHistory(HistoricalRecords):
    """Historical rows take the app label of the model they record. simple-history would put an
    inherited history in the app of the module declaring the model, and evidence's models
    declare the `bottlenecks` label from their own package."""

    def get_meta_options(self, model):
        return {"app_label": model._meta.app_label, **super().get_meta_options(model)}


class Publishable(NamedConstraintErrors, models.Model):
    """Status, publication time, timestamps, an edit version and history for editorial rows."""

    status = models.CharField(max_length=10, choices=Status, default=Status.DRAFT, db_index=True)
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
    history = EditorialHistory(inherit=True, bases=[RelationSnapshot])

    objects = PublishableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        now = timezone.now()
        if self.status in GOING_PUBLIC and self.published_at is None:
            self.published_at = now
        # Whole seconds: a time with microseconds would differ from the one a form posts back
        # (which has none), and every save would record a phantom "Published at" change.
        for name in ("published_at", "unpublish_at"):
            value = self._meta.get_field(name).to_python(getattr(self, name))  # "2026-01-02"
            setattr(self, name, value.replace(microsecond=0) if value is not None else None)
        self.status = self.status_due(now)
        if self.pk is not None and not self._state.adding:
            self.version += 1
        super().save(*args, **kwargs)

    def adopt_recorded_state(self, recorded):
        """This copy is saved from a history record (a revert, a recovery): take `recorded`, the
        record's row, as what it was loaded from, so that what a save derives from a change
        (who classified an edge) comes only from the changes made since, not from the
        record's own values. Models that derive such things say how."""

    def save_if_version(self, expected_version, **kwargs):
        """Save only if the stored row is still at ``expected_version``; else StaleEditError.

        A compare-and-swap on the version column, so of two editors holding the same
        version only the first save wins, on SQLite and PostgreSQL alike.
        """
        rows = type(self)._base_manager.using(kwargs.get("using") or self._state.db)
        with transaction.atomic(using=rows.db):
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
        if self.status not in GOING_PUBLIC:
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

    def status_due(self, now):
        """The status this row should have at `now`: "published" with a future time is
        scheduled, a scheduled row whose time has come is published, and a published row whose
        expiry has passed is a draft again (what `manage.py publish_scheduled` does to stored
        rows, and a save does to the row it saves)."""
        if self.status not in GOING_PUBLIC:
            return self.status
        if self.unpublish_at is not None and self.unpublish_at <= now:
            return Status.DRAFT
        if self.published_at is not None and self.published_at > now:
            return Status.SCHEDULED
        return Status.PUBLISHED

    @property
    def is_published(self):
        return self.status == Status.PUBLISHED

    def publication_state(self, now=None):
        """The PublicationState of this row: its status (review counts as a draft), or
        "expired" for an unpublished row whose expiry has passed."""
        if self.status == Status.PUBLISHED:
            return PublicationState.PUBLISHED
        if self.status == Status.SCHEDULED:
            return PublicationState.SCHEDULED
        now = now or timezone.now()
        if self.published_at and self.unpublish_at is not None and self.unpublish_at <= now:
            return PublicationState.EXPIRED
        return PublicationState.DRAFT

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
