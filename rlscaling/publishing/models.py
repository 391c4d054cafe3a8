"""Models and querysets of the draft/published mechanism."""

from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone
from simple_history.models import HistoricalRecords


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


def published_q(prefix="", now=None):
    """The published rule as a Q, for this model (``prefix=""``) or across a relation
    (``published_q("citing_paper__")``): the one place the rule is spelled out. Pass `now`
    to check several relations against the same instant."""
    now = now or timezone.now()
    return Q(**{f"{prefix}status": Status.PUBLISHED, f"{prefix}published_at__lte": now})


class PublishableQuerySet(models.QuerySet):
    def published(self):
        return self.filter(published_q())

    def drafts(self):
        return self.exclude(pk__in=self.published().values("pk"))

    def hidden_pks(self, now=None):
        """The primary keys of the rows not public at `now`, as the union of two index-friendly
        halves (drafts and undated rows; rows scheduled for later): when few rows are hidden,
        checking a big table against this short list beats joining every row to its status."""
        now = now or timezone.now()
        not_published = self.filter(~Q(status=Status.PUBLISHED) | Q(published_at__isnull=True))
        scheduled = self.filter(status=Status.PUBLISHED, published_at__gt=now)
        return (
            not_published.order_by().values("pk").union(scheduled.order_by().values("pk"), all=True)
        )

    def visible_to(self, user):
        """All rows for editors who may view this model (previews); published ones for others."""
        if user.is_authenticated and user.has_perm(
            f"{self.model._meta.app_label}.view_{self.model._meta.model_name}"
        ):
            return self.all()
        return self.published()

    def publish(self):
        now = timezone.now()
        # A bulk change is an edit too: bumping the version makes open copies stale.
        changed = {"status": Status.PUBLISHED, "updated_at": now, "version": F("version") + 1}
        # Rows published before keep their date; first-time publications get "now".
        republished = self.filter(published_at__isnull=False).update(**changed)
        return republished + self.filter(published_at__isnull=True).update(
            **changed, published_at=now
        )

    def unpublish(self):
        return self.update(status=Status.DRAFT, updated_at=timezone.now(), version=F("version") + 1)


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
        help_text="When this appears publicly. Set automatically on first publication.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Incremented on every save; a save carrying an older version is refused (stale edit).
    version = models.PositiveIntegerField(default=1, editable=False)

    history = HistoricalRecords(inherit=True)

    objects = PublishableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.status == Status.PUBLISHED and self.published_at is None:
            self.published_at = timezone.now()
        if self.pk is not None and not self._state.adding:
            self.version += 1
        super().save(*args, **kwargs)

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

    @property
    def is_published(self):
        return (
            self.status == Status.PUBLISHED
            and self.published_at is not None
            and self.published_at <= timezone.now()
        )
