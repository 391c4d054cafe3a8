"""Import runs: a pasted text or uploaded file, its dry run, and (once confirmed) its application,
inline for small files and on the task queue (django-tasks, database backend) for large ones."""

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from . import BadImportFile, make_plan, parse

# Files with more records than this are applied by the background worker, in batches.
BACKGROUND_FROM = getattr(settings, "IMPORT_BACKGROUND_FROM", 500)
BATCH_SIZE = 500


class ImportRun(models.Model):
    class State(models.TextChoices):
        PREVIEWED = "previewed", "Dry run shown"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Applied"
        FAILED = "failed", "Failed"

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    name = models.CharField(max_length=200, blank=True, help_text="File name, or 'pasted text'.")
    format = models.CharField(max_length=20, blank=True)
    text = models.TextField()
    publish = models.BooleanField(default=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PREVIEWED)
    records = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    dry_run = models.TextField(blank=True)
    report = models.TextField(blank=True)
    counts = models.JSONField(default=dict, blank=True)
    task_id = models.CharField(max_length=64, blank=True)

    class Meta:
        app_label = "citations"
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"Import {self.pk}: {self.name or 'pasted text'} ({self.get_state_display()})"

    @property
    def percent(self):
        return round(100 * self.processed / self.records) if self.records else 0

    @property
    def in_background(self):
        return self.records > BACKGROUND_FROM

    @classmethod
    def preview(cls, text, format=None, name="", publish=False, user=None):
        """Parse and plan (nothing written but this row); BadImportFile on a bad file."""
        records = parse(text, format or None)
        plan = make_plan(records, publish=publish)
        return cls.objects.create(
            created_by=user,
            name=name[:200],
            format=format or "",
            text=text if isinstance(text, str) else text.decode("utf-8-sig"),
            publish=publish,
            records=len(records),
            dry_run=plan.report(),
            counts=plan.counts(),
        ), plan

    def confirm(self):
        """Apply now (small files, one transaction) or queue it for the worker (large ones)."""
        if self.state != self.State.PREVIEWED:
            raise BadImportFile(f"this import is already {self.get_state_display().lower()}")
        if self.in_background:
            from .tasks import apply_import_run

            self.state = self.State.QUEUED
            self.save(update_fields=["state"])
            result = apply_import_run.enqueue(self.pk)
            ImportRun.objects.filter(pk=self.pk).update(task_id=str(result.id))
            return self
        self.run()
        return self

    def run(self):
        """Apply the file: in one transaction when small; in batches (each one transaction,
        progress saved between them) when large. Re-running is harmless: imports are keyed on
        identifiers, so a batch applied twice changes nothing the second time."""
        ImportRun.objects.filter(pk=self.pk).update(state=self.State.RUNNING, processed=0)
        try:
            records = parse(self.text, self.format or None)
            if not self.in_background:
                plan = make_plan(records, publish=self.publish)
                plan.apply()
                self.finish(plan.report(), plan.counts(), len(records))
                return
            lines, counts = [], {}
            for start in range(0, len(records), BATCH_SIZE):
                with transaction.atomic():
                    plan = make_plan(records[start : start + BATCH_SIZE], publish=self.publish)
                    plan.apply()
                lines.append(plan.report())
                for key, n in plan.counts().items():
                    counts[key] = counts.get(key, 0) + n
                ImportRun.objects.filter(pk=self.pk).update(
                    processed=min(start + BATCH_SIZE, len(records))
                )
            self.finish("\n".join(lines), counts, len(records))
        except Exception as error:
            self.state = self.State.FAILED
            self.report = f"{type(error).__name__}: {error}"
            self.finished_at = timezone.now()
            self.save(update_fields=["state", "report", "finished_at"])
            raise

    def finish(self, report, counts, processed):
        self.state = self.State.DONE
        self.report, self.counts, self.processed = report, counts, processed
        self.finished_at = timezone.now()
        self.save(update_fields=["state", "report", "counts", "processed", "finished_at"])
