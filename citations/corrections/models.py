"""Readers' suggestions to correct an edge's role or polarity. Never published by themselves:
an editor accepts one (the edge is reclassified with the provenance "editor, on reader
suggestion", and its history says why) or dismisses it."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone

from citations.models import Citation, CitationPolarity, CitationRole, CitationSource
from publishing.history import fit_change_reason


class CorrectionSuggestion(models.Model):
    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DISMISSED = "dismissed", "Dismissed"

    citation = models.ForeignKey(Citation, on_delete=models.CASCADE, related_name="suggestions")
    suggested_role = models.ForeignKey(
        CitationRole, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    suggested_polarity = models.ForeignKey(
        CitationPolarity, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(max_length=2000)
    email = models.EmailField(blank=True, help_text="Given by the reader for a reply; optional.")
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "correction suggestion"

    def __str__(self):
        return f"Suggestion #{self.pk} on {self.citation_id}: {self.suggested_terms}"

    @property
    def suggested_terms(self):
        terms = [str(term) for term in (self.suggested_role, self.suggested_polarity) if term]
        return " / ".join(terms) or "no change"

    def clean(self):
        super().clean()
        if self.suggested_role_id is None and self.suggested_polarity_id is None:
            raise ValidationError("Suggest a role, a polarity or both.", code="empty")

    def history_reason(self):
        """Why the edge changed, as its history keeps it (at most 100 characters)."""
        return fit_change_reason(f"Reader suggestion #{self.pk} accepted: {self.reason}")

    def accept(self, user):
        """Reclassify the edge as suggested (an omitted term stays), with the provenance
        "editor, on reader suggestion", a history entry naming the editor and the reason."""
        if self.status != self.Status.PENDING:
            raise ValidationError(f"This suggestion was already {self.get_status_display()}.")
        with transaction.atomic():
            edge = Citation.objects.select_for_update().get(pk=self.citation_id)
            edge.classify(
                self.suggested_role or edge.role,
                self.suggested_polarity or edge.polarity,
                source=CitationSource.READER_SUGGESTION,
                user=user,
            )
            edge._history_user = user
            edge._change_reason = self.history_reason()
            edge.save()
            self._decide(self.Status.ACCEPTED, user)
        return edge

    def dismiss(self, user):
        if self.status != self.Status.PENDING:
            raise ValidationError(f"This suggestion was already {self.get_status_display()}.")
        self._decide(self.Status.DISMISSED, user)

    def _decide(self, status, user):
        self.status, self.decided_at, self.decided_by = status, timezone.now(), user
        self.save(update_fields=["status", "decided_at", "decided_by"])
