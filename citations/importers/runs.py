"""Import runs: a pasted text or uploaded file, its dry run, and (once confirmed) its application,
inline for small files and on the task queue (django-tasks, database backend) for large ones.

A run's text lives in the shared database as ImportChunk rows of about CHUNK_CHARS characters,
written while the upload is read in pieces and read back one chunk at a time: no process (web
or worker) ever holds a large upload whole, and any app server or worker can pick the run up."""

import codecs
import io
import itertools
import re

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.utils import timezone
from django.utils.functional import cached_property

from citations.importers import FORMAT_NAMES, BadImportFile, detect_format, make_plan, parse
from citations.importers.bulk import bulk_import, is_big, is_openalex_jsonl
from citations.importers.wording import counts_in_words

# Files with more records than this are dry-run and applied by the background worker.
BACKGROUND_FROM = getattr(settings, "IMPORT_BACKGROUND_FROM", 500)
# Texts longer than this (in characters) are dry-run by the worker too, whatever their format.
DRY_RUN_INLINE_UP_TO = getattr(settings, "IMPORT_DRY_RUN_INLINE_CHARS", 256 * 1024)
# Where a record starts, in each format a text can be in: an Atom entry, a BibTeX entry, a RIS
# reference, a JSON work's title. What a dry run costs follows its records (a lookup or more
# each), so a text with many is sent to the worker however short it is; one with no such mark
# is an arXiv id list, a record a line. An estimate: the dry run counts them exactly.
RECORD_START = re.compile(r'<entry[\s>]|^[ \t]*@[A-Za-z]+[ \t]*[{(]|^TY  -|"title"\s*:', re.M)
BATCH_SIZE = 500
CHUNK_CHARS = getattr(settings, "IMPORT_CHUNK_CHARS", 1_000_000)
READ_BYTES = 1024 * 1024  # an upload is read (and decoded) this much at a time
# Uploads are never held whole (see above), so the bound is the database's room, not memory.
MAX_UPLOAD_BYTES = getattr(settings, "IMPORT_MAX_UPLOAD_BYTES", 512 * 1024 * 1024)


class ImportRun(models.Model):
    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    class State(models.TextChoices):
        CHECKING = "checking", "Dry run in progress"
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
    size = models.PositiveBigIntegerField(default=0, help_text="Characters of text stored.")
    publish = models.BooleanField(default=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PREVIEWED)
    records = models.PositiveIntegerField(
        default=0, help_text="Lines of a JSONL file until its dry run counts the records."
    )
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
    def format_name(self):
        """The format's name as editors know it ("BibTeX"); the dry run finds a guessed one."""
        if not self.format:
            return "guessed from the content when the dry run reads it"
        return FORMAT_NAMES.get(self.format, self.format)

    @property
    def summary(self):
        """What the run did, or its dry run says it would do, in sentences."""
        if self.state == self.State.DONE:
            return counts_in_words(self.counts, applied=True)
        if self.state == self.State.FAILED:
            # A batched run keeps the batches written before the failure (run it again).
            return f"Failed after {self.processed:,} of {self.records:,} records: see the report."
        if self.state == self.State.CHECKING:
            return "The dry run is not finished yet."
        words = counts_in_words(self.counts, applied=False)
        if self.state == self.State.PREVIEWED:
            return words
        return f"{self.get_state_display()}: {words[0].lower()}{words[1:]}"

    @property
    def in_background(self):
        return self.records > BACKGROUND_FROM

    @property
    def dry_runs_on_worker(self):
        """Large texts are dry-run by the worker, the request answering at once; small ones
        (what an editor pastes) are dry-run inline."""
        return self.in_background or self.size > DRY_RUN_INLINE_UP_TO

    @staticmethod
    def upload_too_large(upload):
        """The error for an upload over MAX_UPLOAD_BYTES, or None."""
        if upload.size > MAX_UPLOAD_BYTES:
            return f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB."
        return None

    @cached_property
    def is_bulk(self):
        """A large OpenAlex JSONL file: the bulk path (bulk.py) plans and applies it."""
        lines = self.lines()
        first = next((line for line in lines if line.strip()), "")
        if not is_openalex_jsonl(first, self.format or None):
            return False
        return is_big(itertools.chain([first], lines))

    @classmethod
    def preview(cls, source, format=None, name="", publish=False, user=None, apply=False):
        """Store `source` (a str, bytes or an uploaded file) and dry-run it: inline for a small
        text, returning the run and its plan (a bulk.BulkReport for a large OpenAlex JSONL
        file); on the task queue for a large one, returning the run and None. With `apply`, a
        large file is queued to be applied at once (its report is the final one). A bad file
        is a BadImportFile here (nothing stored) or, found by the worker, a failed run."""
        with transaction.atomic():
            run = cls.objects.create(
                created_by=user,
                name=name[:200],
                format=format or "",
                publish=publish,
                state=cls.State.CHECKING,
            )
            run.store(source)
            if not run.dry_runs_on_worker:
                return run, run.make_dry_run()
        from citations.importers.tasks import apply_import_run, dry_run_import_run

        if apply:
            run.state = cls.State.QUEUED
            result = apply_import_run.enqueue(run.pk)
        else:
            result = dry_run_import_run.enqueue(run.pk)
        run.task_id = str(result.id)
        run.save(update_fields=["state", "task_id"])
        return run, None

    # -- the text, in chunks -----------------------------------------------------------------

    def store(self, source):
        """Write the text as chunks of CHUNK_CHARS characters, as it is read and decoded."""
        buffer, number, newlines, ends_a_line, starts = "", 0, 0, True, 0
        for piece in _text_pieces(source):
            if "\x00" in piece:
                line = newlines + piece[: piece.index("\x00")].count("\n") + 1
                raise BadImportFile("a NUL character: this is not a text file", f"line {line}")
            newlines += piece.count("\n")
            starts += len(RECORD_START.findall(piece))
            ends_a_line = piece.endswith("\n") if piece else ends_a_line
            buffer += piece
            self.size += len(piece)
            while len(buffer) >= CHUNK_CHARS:
                number += 1
                ImportChunk.objects.create(run=self, number=number, text=buffer[:CHUNK_CHARS])
                buffer = buffer[CHUNK_CHARS:]
        if buffer:
            number += 1
            ImportChunk.objects.create(run=self, number=number, text=buffer)
        if not self.size:
            raise BadImportFile("the file is empty")
        lines = newlines + (not ends_a_line)
        head = next((line for line in self.lines() if line.strip()), "").strip()
        if head.startswith("{") and head.endswith("}"):  # JSONL: a record a line
            self.records = lines
        else:
            self.records = starts or lines
        self.save(update_fields=["size", "records"])

    def texts(self):
        """The stored text, chunk after chunk, each read by a query of its own."""
        number = 0
        while True:
            chunk = (
                ImportChunk.objects.filter(run=self, number__gt=number)
                .order_by("number")
                .values_list("number", "text")
                .first()
            )
            if chunk is None:
                return
            number, text = chunk
            yield text

    def lines(self):
        """The stored text line by line, one chunk in memory at a time."""
        tail = ""
        for text in self.texts():
            text = tail + text
            end = text.rfind("\n") + 1
            tail = text[end:]
            yield from io.StringIO(text[:end])
        if tail:
            yield tail

    @property
    def text(self):
        """The whole text, for the formats parsed whole (BibTeX, Atom, JSON documents)."""
        return "".join(self.texts())

    # -- dry run and application -------------------------------------------------------------

    def make_dry_run(self):
        """The dry run (nothing written but this run's report); returns the plan."""
        if self.is_bulk:
            plan = bulk_import(
                [("", self.lines())], apply=False, publish=self.publish, progress=self.progress
            )
            records, counts, self.format = plan.records, plan.counts, "openalex"
        else:
            text = self.text
            self.format = self.format or detect_format(text)  # named, once known, on its page
            parsed = parse(text, self.format)
            plan = make_plan(parsed, publish=self.publish)
            records, counts = len(parsed), plan.counts()
        self.state, self.records, self.processed = self.State.PREVIEWED, records, 0
        self.dry_run, self.counts = plan.report(), counts
        fields = ["state", "records", "processed", "dry_run", "counts", "format"]
        self.save(update_fields=fields)
        return plan

    def make_dry_run_on_worker(self):
        """The worker's dry run: a bad file fails the run with the record named."""
        ImportRun.objects.filter(pk=self.pk).update(processed=0)
        try:
            self.make_dry_run()
        except BadImportFile as error:
            self.fail(str(error))
        except Exception as error:
            self.fail(f"{type(error).__name__}: {error}")
            raise

    def confirm(self):
        """Apply now (small files, one transaction) or queue it for the worker (large ones)."""
        if self.state == self.State.CHECKING:
            raise BadImportFile("the dry run of this import is not finished yet")
        if self.state != self.State.PREVIEWED:
            raise BadImportFile(f"this import is already {self.get_state_display().lower()}")
        if self.in_background:
            from citations.importers.tasks import apply_import_run

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
            if self.is_bulk:
                self.run_bulk()
                return
            records = parse(self.text, self.format or None)
            if len(records) <= BACKGROUND_FROM:
                plan = make_plan(records, publish=self.publish)
                plan.apply()
                self.finish(plan.report(applied=True), plan.counts(), len(records))
                return
            lines, counts = [], {}
            for start in range(0, len(records), BATCH_SIZE):
                with transaction.atomic():
                    plan = make_plan(records[start : start + BATCH_SIZE], publish=self.publish)
                    plan.apply()
                lines.append(plan.report(applied=True))
                for key, n in plan.counts().items():
                    counts[key] = counts.get(key, 0) + n
                ImportRun.objects.filter(pk=self.pk).update(
                    processed=min(start + BATCH_SIZE, len(records))
                )
            self.finish("\n".join(lines), counts, len(records))
        except BadImportFile as error:
            self.fail(str(error))
            raise
        except Exception as error:
            self.fail(f"{type(error).__name__}: {error}")
            raise

    def run_bulk(self):
        """Stream the chunks through the bulk path, in one transaction, saving progress."""
        report = bulk_import(
            [("", self.lines())], apply=True, publish=self.publish, progress=self.progress
        )
        self.finish(report.report(), report.counts, report.records)

    def progress(self, records):
        # Written on a connection of its own, so the admin sees it while the import's
        # transaction is open (PostgreSQL; SQLite has one writer at a time).
        if connection.vendor != "postgresql":
            return
        side = connections.create_connection(DEFAULT_DB_ALIAS)
        try:
            with side.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {ImportRun._meta.db_table} SET processed = %s WHERE id = %s",
                    [records, self.pk],
                )
        finally:
            side.close()

    def finish(self, report, counts, processed):
        self.state = self.State.DONE
        self.report, self.counts, self.processed = report, counts, processed
        self.finished_at = timezone.now()
        self.save(update_fields=["state", "report", "counts", "processed", "finished_at"])

    def fail(self, report):
        self.state, self.report, self.finished_at = self.State.FAILED, report, timezone.now()
        self.save(update_fields=["state", "report", "finished_at"])


class ImportChunk(models.Model):
    """About CHUNK_CHARS characters of an import run's text, in order (`number` from 1)."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    run = models.ForeignKey(ImportRun, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    text = models.TextField()

    class Meta:
        app_label = "citations"
        constraints = [
            models.UniqueConstraint(fields=["run", "number"], name="import_chunk_run_number")
        ]

    def __str__(self):
        return f"{self.run_id}/{self.number}"


def _text_pieces(source):
    """Pieces of text from a str, bytes or an uploaded file, decoded as UTF-8 as read."""
    if isinstance(source, str):
        source = source.removeprefix("\ufeff")
        yield from (source[i : i + READ_BYTES] for i in range(0, len(source), READ_BYTES))
        return
    blocks = [source] if isinstance(source, bytes) else source.chunks(READ_BYTES)
    decoder, offset = codecs.getincrementaldecoder("utf-8-sig")(), 0
    try:
        for block in blocks:
            yield decoder.decode(block)
            offset += len(block)
        yield decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise BadImportFile(f"not UTF-8 text (near byte {offset + error.start})") from None
