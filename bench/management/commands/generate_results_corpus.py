from django.core.management.base import BaseCommand, CommandError

from bench.results_corpus import generate, remove
from pagecache.caching import bump_generation


class Command(BaseCommand):
    help = (
        "Generate synthetic benchmarks, series (marked synthetic) and points for scale tests "
        "of the results pages, on the published papers already loaded. Never part of the demo."
    )

    def add_arguments(self, parser):
        parser.add_argument("--benchmarks", type=int, default=1000)
        parser.add_argument("--series", type=int, default=20000)
        parser.add_argument("--points", type=int, default=200000, help="In all (spread evenly).")
        parser.add_argument(
            "--widest", type=int, default=500, help="Series of the first benchmark."
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--prefix", default="synthetic")
        parser.add_argument("--replace", action="store_true", help="Remove the old one first.")

    def handle(self, *args, **options):
        if options["replace"]:
            remove(options["prefix"])
        try:
            counts = generate(
                options["benchmarks"],
                options["series"],
                options["points"],
                seed=options["seed"],
                prefix=options["prefix"],
                widest=options["widest"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        bump_generation()
        self.stdout.write("{} benchmarks, {} series, {} points written.".format(*counts))
