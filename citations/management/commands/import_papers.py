"""python manage.py import_papers PATH... [--format F] [--apply] [--publish]"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from citations.importers import FORMATS, BadImportFile, make_plan, parse


class Command(BaseCommand):
    help = (
        "Import papers (and citation edges) from BibTeX, arXiv API Atom, OpenAlex works, "
        "Semantic Scholar Graph API or CSL-JSON files. Prints the dry run; --apply writes it."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--format", choices=[*FORMATS, "arxiv-ids"], help="Guessed from the content if omitted."
        )
        parser.add_argument("--apply", action="store_true", help="Write (in one transaction).")
        parser.add_argument(
            "--publish", action="store_true", help="Publish new papers and edges (default: drafts)."
        )

    def handle(self, *args, paths, format, apply, publish, **options):
        records = []
        for path in paths:
            try:
                records += parse(path.read_bytes(), format)
            except OSError as error:
                raise CommandError(f"{path}: {error.strerror}") from None
            except BadImportFile as error:
                raise CommandError(f"{path}: {error}") from None
        plan = make_plan(records, publish=publish)
        self.stdout.write(plan.report())
        if not apply:
            self.stdout.write("Dry run: nothing written. Run again with --apply to write it.")
            return
        try:
            plan.apply()
        except BadImportFile as error:
            raise CommandError(str(error)) from None
        self.stdout.write(self.style.SUCCESS("Applied."))
