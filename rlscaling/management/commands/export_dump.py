from django.core.management.base import BaseCommand

from rlscaling.dump import dump_directory, write_dump


class Command(BaseCommand):
    help = (
        "Write the public data dump (papers, authors, typed citation edges, notes, claims and the "
        "bottleneck framework as JSONL and CSV, with a README, licence and SHA-256 checksums) "
        "as rlscaling-dump-<date>.zip in --output (default: DUMP_DIR, which /data/dump/latest.zip "
        "serves)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", help="Directory to write the archive in.")
        parser.add_argument(
            "--schedule",
            action="store_true",
            help="Instead, enqueue the daily regeneration on the task queue (db_worker runs it).",
        )

    def handle(self, *args, output=None, schedule=False, **options):
        if schedule:
            from rlscaling.dump_tasks import regenerate_dump

            result = regenerate_dump.enqueue()
            self.stdout.write(f"Enqueued the daily dump ({result.id}).")
            return
        path = write_dump(output or dump_directory())
        self.stdout.write(f"Wrote {path}")
