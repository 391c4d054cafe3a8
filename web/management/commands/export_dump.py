from django.core.management.base import BaseCommand

from web.dump import dump_directory, write_dump


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
            help=(
                "Instead, make sure the daily regeneration is queued (db_worker runs it): enqueue "
                "a run unless one is waiting. Every migrate does this too."
            ),
        )

    def handle(self, *args, output=None, schedule=False, **options):
        if schedule:
            from web.dump_tasks import ensure_dump_scheduled, pending_runs

            result = ensure_dump_scheduled()
            if result is not None:
                due = f"{result.task.run_after:%Y-%m-%d %H:%M %Z}"
                self.stdout.write(f"Enqueued the daily dump ({result.id}, due {due}).")
            else:
                runs = ", ".join(str(run.pk) for run in pending_runs())
                self.stdout.write(f"The daily dump is already queued ({runs or 'no queue'}).")
            return
        path = write_dump(output or dump_directory())
        self.stdout.write(f"Wrote {path}")
