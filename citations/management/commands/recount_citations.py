from django.core.management.base import BaseCommand

from citations.cite_keys import assign_cite_keys
from citations.models import recount_citations, recount_paper_facets
from tags.counts import recount_tags


class Command(BaseCommand):
    help = (
        "Recount every paper's stored citing counts (citations/stats/counts.py), the stored "
        "counts of papers by year, tag and layer (citations/stats/facet_counts.py) and each "
        "tag's public counts (tags/counts.py), and "
        "assign a cite key to any paper without one (citations/cite_keys.py; keys once "
        "assigned never change): after SQL written outside the ORM, or once a scheduled "
        "publication has gone live."
    )

    def handle(self, *args, **options):
        self.stdout.write(f"Recounted {recount_citations():,} papers.")
        self.stdout.write(
            f"Stored {recount_paper_facets():,} counts of papers by year, tag and layer."
        )
        self.stdout.write(f"Recounted the public papers and notes of {recount_tags():,} tags.")
        self.stdout.write(f"Assigned {len(assign_cite_keys()):,} missing cite keys.")
