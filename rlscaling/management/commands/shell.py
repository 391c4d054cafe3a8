from django.core.management.commands.shell import Command as DjangoShellCommand

from rlscaling.caching import bump_generation


class Command(DjangoShellCommand):
    help = (
        DjangoShellCommand.help
        + " When the session ends, cached pages are invalidated: a save announces itself, "
        "but an update(), a bulk write or raw SQL typed here does not."
    )

    def handle(self, **options):
        try:
            return super().handle(**options)
        finally:
            bump_generation()
