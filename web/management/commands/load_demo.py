from django.core.management.base import BaseCommand, CommandError

from pagecache.caching import bump_generation
from web.demo_content import DemoLoader

SHOWN = 20  # rows listed by name; the rest are counted


class Command(BaseCommand):
    help = (
        "Load the demo content from web/demo/*.toml: everything into an empty database, "
        "otherwise only the demo rows that are missing (rows editors changed, and rows they "
        "deleted, are left alone). --reset puts the demo values back after saying which rows "
        "it would overwrite and asking."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset",
            action="store_true",
            help="Overwrite demo rows that differ from the demo values (asks first).",
        )
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive",
            help="With --reset: do not ask for confirmation.",
        )  # fmt: skip

    def handle(self, *args, **options):
        if options["reset"]:
            self.reset(options["interactive"])
        else:
            self.add_missing()
        bump_generation()  # no cached page may outlive what was just written

    def add_missing(self):
        loader = DemoLoader()
        loader.load()
        if loader.added:
            self.stdout.write(self.style.SUCCESS(f"Demo content: added {len(loader.added)} rows."))
        else:
            self.stdout.write("Demo content: nothing missing.")
        if loader.not_restored:
            self.stdout.write(
                f"Not brought back ({len(loader.not_restored)} demo rows editors deleted or "
                f"re-keyed): {self.names(loader.not_restored)}."
            )
        self.stdout.write(
            "Existing rows are left as they are; `manage.py load_demo --reset` puts the demo "
            "values back."
        )

    def reset(self, interactive):
        plan = DemoLoader(reset=True).preview()
        if not plan.changed:
            self.stdout.write("Demo content: every demo row already has its demo values.")
            return
        self.stdout.write(f"--reset will overwrite {len(plan.overwritten)} rows:")
        for label, fields in list(plan.overwritten.items())[:SHOWN]:
            self.stdout.write(f"  {label}: {', '.join(dict.fromkeys(fields))}")
        if len(plan.overwritten) > SHOWN:
            self.stdout.write(f"  ... and {len(plan.overwritten) - SHOWN} more")
        if plan.added:
            self.stdout.write(f"and re-create {len(plan.added)}: {self.names(plan.added)}")
        if interactive:
            answer = input("Editors' changes to these rows will be lost. Type 'yes' to go on: ")
            if answer.strip().lower() != "yes":
                raise CommandError("Reset cancelled; nothing changed.")
        loader = DemoLoader(reset=True)
        loader.load()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo content reset: {len(loader.overwritten)} rows overwritten, "
                f"{len(loader.added)} added."
            )
        )

    @staticmethod
    def names(labels):
        more = f" and {len(labels) - SHOWN} more" if len(labels) > SHOWN else ""
        return ", ".join(labels[:SHOWN]) + more
