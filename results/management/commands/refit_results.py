"""`manage.py refit_results [--series SLUG ...] [--enqueue]`: fit every series again (after a
restore or a fixture load, which save points without the refit receiver). Series whose
stored fits were made from the same points are skipped."""

from django.core.management.base import BaseCommand

from results.models import Series
from results.tasks import refit, refit_series


class Command(BaseCommand):
    help = "Refit series whose points changed since their stored fits."

    def add_arguments(self, parser):
        parser.add_argument("--series", nargs="*", default=None, help="Only these slugs.")
        parser.add_argument(
            "--enqueue", action="store_true", help="Queue the refits for the worker instead."
        )

    def handle(self, series=None, enqueue=False, **options):
        rows = Series.objects.order_by("pk")
        if series:
            rows = rows.filter(slug__in=series)
        refitted = 0
        for item in rows.prefetch_related("points", "fits").iterator(chunk_size=200):
            if enqueue:
                refit_series.enqueue(item.pk)
                refitted += 1
            elif refit(item):
                refitted += 1
        verb = "queued" if enqueue else "refitted"
        self.stdout.write(f"{refitted} series {verb}.")
