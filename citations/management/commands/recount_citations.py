from django.core.management.base import BaseCommand

from citations.models import recount_citations


class Command(BaseCommand):
    help = (
        "Recount every paper's stored citing counts (citations/counts.py): after SQL written "
        "outside the ORM, or once a scheduled publication has gone live."
    )

    def handle(self, *args, **options):
        self.stdout.write(f"Recounted {recount_citations():,} papers.")
