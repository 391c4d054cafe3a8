from django.core.management.base import BaseCommand

from citations.models import recount_citations, recount_paper_facets, refresh_cite_keys


class Command(BaseCommand):
    help = (
        "Recount every paper's stored citing counts (citations/counts.py) and the stored "
        "counts of papers by year, tag and layer (citations/facet_counts.py), and store every "
        "paper's base cite key (citations/cite_keys.py): after SQL "
        "written outside the ORM, or once a scheduled publication has gone live."
    )

    def handle(self, *args, **options):
        self.stdout.write(f"Recounted {recount_citations():,} papers.")
        self.stdout.write(
            f"Counted {recount_paper_facets():,} published papers by year, tag and layer."
        )
        self.stdout.write(f"Stored {refresh_cite_keys():,} changed base cite keys.")
