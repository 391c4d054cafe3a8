import zipfile

from django.core.management.base import BaseCommand, CommandError

from web.dump import load_dump


class Command(BaseCommand):
    help = (
        "Load a public data dump (export_dump's zip) into an empty database: only its public "
        "tables, each file checked against SHA256SUMS and every row against its table's model, "
        "entries bounded by DUMP_MAX_ENTRY_BYTES; then recounts the stored citing counts."
    )

    def add_arguments(self, parser):
        parser.add_argument("archive", help="The rlscaling-dump-<date>.zip to load.")
        parser.add_argument(
            "--overwrite",
            action="store_true",
            help="Load into a database that holds content, replacing rows with the same keys.",
        )

    def handle(self, *args, archive, overwrite, **options):
        try:
            counts = load_dump(archive, overwrite=overwrite)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
            raise CommandError(f"Cannot load {archive}: {error}") from error
        total = sum(counts.values())
        self.stdout.write(
            f"Loaded {total} rows: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        )
