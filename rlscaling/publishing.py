"""The one draft/published mechanism shared by every editorial model."""

from django.db import models
from django.utils import timezone
from simple_history.models import HistoricalRecords


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


class PublishableQuerySet(models.QuerySet):
    def published(self):
        return self.filter(status=Status.PUBLISHED, published_at__lte=timezone.now())

    def drafts(self):
        return self.exclude(pk__in=self.published().values("pk"))

    def visible_to(self, user):
        """All rows for editors who may view this model (previews); published ones for others."""
        if user.is_authenticated and user.has_perm(
            f"{self.model._meta.app_label}.view_{self.model._meta.model_name}"
        ):
            return self.all()
        return self.published()

    def publish(self):
        now = timezone.now()
        # Rows published before keep their date; first-time publications get "now".
        republished = self.filter(published_at__isnull=False).update(
            status=Status.PUBLISHED, updated_at=now
        )
        return republished + self.filter(published_at__isnull=True).update(
            status=Status.PUBLISHED, published_at=now, updated_at=now
        )

    def unpublish(self):
        return self.update(status=Status.DRAFT, updated_at=timezone.now())


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

    @property
    def is_published(self):
        return (
            self.status == Status.PUBLISHED
            and self.published_at is not None
            and self.published_at <= timezone.now()
        )
