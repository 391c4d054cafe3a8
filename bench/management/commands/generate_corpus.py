from django.core.management.base import BaseCommand, CommandError

from bench.corpus import CorpusGenerator
from pagecache.caching import bump_generation


class Command(BaseCommand):
    help = (
        "Generate a reproducible synthetic corpus of papers and citation edges (slugs "
        "'<prefix>-...') next to whatever the database already holds, e.g. after load_demo. "
        "Bulk inserts (COPY on PostgreSQL); no history records are written for these rows."
    )

    def add_arguments(self, parser):
        parser.add_argument("--papers", type=int, default=1000, help="Papers (default 1000).")
        parser.add_argument(
            "--citations", type=int, default=None, help="Citation edges (default 10 per paper)."
        )
        parser.add_argument("--seed", type=int, default=0, help="Random seed (default 0).")
        parser.add_argument(
            "--hubs",
            type=int,
            default=3,
            help="Canonical references that take the largest share of citations (default 3).",
        )
        parser.add_argument(
            "--hub-share",
            type=float,
            default=0.07,
            help="Share of all citations that go to the hubs (default 0.07).",
        )
        parser.add_argument(
            "--prefix", default="synthetic", help="Slug prefix of the corpus (default synthetic)."
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Delete an existing corpus with the same prefix first.",
        )
        parser.add_argument("--batch-size", type=int, default=5000)

    def handle(self, *args, **options):
        citations = options["citations"]
        if citations is None:
            citations = min(10 * options["papers"], options["papers"] * (options["papers"] - 1))
        try:
            generator = CorpusGenerator(
                papers=options["papers"],
                citations=citations,
                seed=options["seed"],
                hubs=options["hubs"],
                hub_share=options["hub_share"],
                prefix=options["prefix"],
                batch_size=options["batch_size"],
                log=self.stdout.write,
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        existing = generator.existing().count()
        if existing:
            if not options["replace"]:
                raise CommandError(
                    f"The database already holds {existing:,} papers with slugs "
                    f"'{generator.prefix}-...'. Use --replace, or another --prefix."
                )
            generator.delete_existing()
        counts = generator.generate()
        # Bulk rows send no save signals: tell the page cache (pagecache/caching.py) itself.
        bump_generation()
        self.stdout.write(
            self.style.SUCCESS(
                f"Generated {counts['papers']:,} papers and {counts['citations']:,} citations "
                f"(seed {generator.seed}, prefix '{generator.prefix}')."
            )
        )
