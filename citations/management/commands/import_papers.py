"""python manage.py import_papers PATH... [--format F] [--apply] [--publish]"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from citations.importers import FORMATS, BadImportFile, iter_record_batches, make_plan, parse
from citations.importers.bulk import BATCH_SIZE, bulk_import, is_big_openalex_file
from citations.importers.wording import counts_in_words


class Command(BaseCommand):
    help = (
        "Import papers (and citation edges) from BibTeX, arXiv API Atom, OpenAlex works, "
        "Semantic Scholar Graph API, CSL-JSON or RIS files. Prints the dry run; --apply writes it."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--format", choices=[*FORMATS, "arxiv-ids"], help="Guessed from the content if omitted."
        )
        parser.add_argument("--apply", action="store_true", help="Write (in one transaction).")
        parser.add_argument(
            "--publish", action="store_true", help="Publish new papers and edges (default: drafts)."
        )

        parser.add_argument(
            "--batch-size",
            type=int,
            help="Plan and apply N records at a time, each batch in its own transaction "
            "(JSONL files are streamed line by line). For files too large for one transaction; "
            "imports are idempotent, so a failed run can be run again. With --bulk: the batch "
            "size of the stream (default 2000), still in one transaction.",
        )
        parser.add_argument(
            "--bulk",
            action="store_true",
            help="Stream OpenAlex JSONL files through the bulk path (constant memory, bulk "
            "inserts, one transaction; the dry run is a summary). Chosen by itself for "
            "OpenAlex JSONL files of more than IMPORT_BACKGROUND_FROM (500) lines.",
        )

    def handle(self, *args, paths, format, apply, publish, batch_size, bulk, **options):
        try:
            bulk = all(is_big_openalex_file(path, format, always=bulk) for path in paths)
        except OSError as error:
            raise CommandError(str(error)) from None
        if bulk:
            size = batch_size or BATCH_SIZE
            return self.handle_bulk(paths, apply, publish, size, options["verbosity"])
        if batch_size:
            return self.handle_in_batches(paths, format, apply, publish, batch_size)
        records = []
        for path in paths:
            try:
                records += parse(path.read_bytes(), format)
            except OSError as error:
                raise CommandError(f"{path}: {error.strerror}") from None
            except BadImportFile as error:
                raise CommandError(f"{path}: {error}") from None
        plan = make_plan(records, publish=publish)
        self.stdout.write(plan.report())
        if not apply:
            self.stdout.write("Dry run: nothing written. Run again with --apply to write it.")
            return
        try:
            plan.apply()
        except BadImportFile as error:
            raise CommandError(str(error)) from None
        self.stdout.write(counts_in_words(plan.counts(), applied=True))
        self.stdout.write(self.style.SUCCESS("Applied."))

    def handle_in_batches(self, paths, format, apply, publish, size):
        totals = {}
        for path in paths:
            try:
                for number, records in enumerate(iter_record_batches(path, format, size), 1):
                    with transaction.atomic():
                        plan = make_plan(records, publish=publish)
                        if apply:
                            plan.apply()
                    counts = plan.counts()
                    for key, n in counts.items():
                        totals[key] = totals.get(key, 0) + n
                    self.stdout.write(
                        f"{path} batch {number}: {len(records)} records. "
                        + counts_in_words(counts, apply)
                    )
            except OSError as error:
                raise CommandError(f"{path}: {error.strerror}") from None
            except BadImportFile as error:
                raise CommandError(f"{path}: {error}") from None
        self.stdout.write(f"Total: {counts_in_words(totals, apply)}")
        if not apply:
            self.stdout.write(
                "Dry run: nothing written (each batch is planned against what is already here, "
                "so edges to papers of later batches show as pending)."
            )

    def handle_bulk(self, paths, apply, publish, size, verbosity):
        def log(message):
            if verbosity > 1:
                self.stderr.write(message)

        try:
            files = [open(path, encoding="utf-8-sig") for path in paths]  # noqa: SIM115
            try:
                sources = [(str(path), file) for path, file in zip(paths, files, strict=True)]
                report = bulk_import(
                    sources, apply=apply, publish=publish, batch_size=size, log=log
                )
            finally:
                for file in files:
                    file.close()
        except OSError as error:
            raise CommandError(f"{error.filename}: {error.strerror}") from None
        except BadImportFile as error:
            raise CommandError(str(error)) from None
        self.stdout.write(report.report())
        if not apply:
            self.stdout.write("Dry run: nothing written. Run again with --apply to write it.")
            return
        self.stdout.write(self.style.SUCCESS("Applied."))
