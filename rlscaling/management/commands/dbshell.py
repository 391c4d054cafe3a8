from django.core.management.commands.dbshell import Command as DjangoDbshellCommand

from rlscaling.caching import bump_generation


class Command(DjangoDbshellCommand):
    help = DjangoDbshellCommand.help + " Cached pages are invalidated when the session ends."

    def handle(self, **options):
        try:
            return super().handle(**options)
        finally:
            bump_generation()
