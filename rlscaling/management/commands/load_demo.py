from django.core.management.base import BaseCommand

from rlscaling.demo_content import DemoLoader


class Command(BaseCommand):
    help = "Load the demo content from rlscaling/demo/*.toml. Safe to run again: it only updates."

    def handle(self, *args, **options):
        changed = DemoLoader().load()
        self.stdout.write(self.style.SUCCESS(f"Demo content loaded ({changed} rows changed)."))
