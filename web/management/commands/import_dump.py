from django.core.management.base import BaseCommand, CommandError

from web.dump import load_dump


class Command(BaseCommand):
    help = (
        "Load a public data dump (export_dump's zip) into an empty database: checks its SHA-256 "
        "checksums, loads every table as loaddata does, then recounts the stored citing counts."
    )

    def add_arguments(self, parser):
        parser.add_argument("archive", help="The rlscaling-dump-<date>.zip to load.")

    def handle(self, *args, archive, **options):
        try:
            counts = load_dump(archive)
        except (OSError, ValueError, KeyError) as error:
            raise CommandError(f"Cannot load {archive}: {error}") from error
        total = sum(counts.values())
        self.stdout.write(
            f"Loaded {total} rows: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        )
