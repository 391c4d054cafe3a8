from django.core.management.base import BaseCommand, CommandError

from citations.models import Paper
from discovery.bulk import refresh_all
from discovery.neighbours import refresh


class Command(BaseCommand):
    help = (
        "Recompute the stored similar papers, prior and derivative works and the graph's "
        "references and citers (discovery/"
        "neighbours.py) of every published paper, or of the papers named: after an import or "
        "SQL written outside the ORM, or an edge into a hub too large to refresh its whole "
        "ring with the edge."
    )

    def add_arguments(self, parser):
        parser.add_argument("slugs", nargs="*", help="Only these papers (slugs).")

    def handle(self, *args, slugs=(), verbosity=1, **options):
        if slugs:
            ids = dict(Paper.objects.filter(slug__in=slugs).values_list("slug", "pk"))
            missing = sorted(set(slugs) - set(ids))
            if missing:
                raise CommandError(f"No paper with the slug {', '.join(missing)}.")
            count = refresh(ids.values())
        else:

            def progress(done, total):
                if verbosity > 1:
                    self.stdout.write(f"  {done:,} of {total:,} papers")

            count = refresh_all(progress)
        self.stdout.write(f"Refreshed the neighbours of {count:,} papers.")
