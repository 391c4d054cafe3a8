"""python manage.py generate_openalex --works N --references M [--seed S] --output FILE"""

import sys
import time

from django.core.management.base import BaseCommand, CommandError

from bench.openalex_sample import generate


class Command(BaseCommand):
    help = (
        "Write a reproducible synthetic OpenAlex works snapshot (JSONL, one work per line) for "
        "the bulk import's benchmark: references point at works of the file (popular ones more "
        "often) and some at works outside it. Touches no database."
    )

    def add_arguments(self, parser):
        parser.add_argument("--works", type=int, default=1000, help="Works (default 1000).")
        parser.add_argument(
            "--references", type=int, default=None, help="References in all (default 10 per work)."
        )
        parser.add_argument("--seed", type=int, default=0, help="Random seed (default 0).")
        parser.add_argument(
            "--outside-share",
            type=float,
            default=0.05,
            help="Share of references to works not in the file (default 0.05).",
        )
        parser.add_argument("--output", required=True, help="The file to write ('-': stdout).")

    def handle(self, *args, works, references, seed, outside_share, output, **options):
        references = works * 10 if references is None else references
        started = time.monotonic()
        try:
            if output == "-":
                counts = generate(sys.stdout, works, references, seed, outside_share)
            else:
                with open(output, "w", encoding="utf-8") as file:
                    counts = generate(file, works, references, seed, outside_share)
        except (ValueError, OSError) as error:
            raise CommandError(str(error)) from None
        if output != "-":
            self.stdout.write(
                f"{counts[0]:,} works, {counts[1]:,} references written to {output} "
                f"in {time.monotonic() - started:.1f}s"
            )
