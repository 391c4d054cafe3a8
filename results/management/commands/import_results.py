"""`manage.py import_results FILE.csv [--apply] [--user NAME]`: reported results from a CSV
file in the template of docs/results.md. Without --apply it is a dry run: each row's outcome
(or its errors, by line and column), nothing written. With --apply the whole file is written
in one transaction, or nothing when any row has an error."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from results.importer import ResultsImport


class Command(BaseCommand):
    help = "Import reported results from a CSV file (dry run unless --apply)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="The CSV file (UTF-8), in the template's columns.")
        parser.add_argument("--apply", action="store_true", help="Write it (default: dry run).")
        parser.add_argument("--user", help="The editor entering the results (entered by).")

    def handle(self, path, apply=False, user=None, **options):
        entered_by = None
        if user:
            entered_by = get_user_model().objects.filter(username=user).first()
            if entered_by is None:
                raise CommandError(f"No user “{user}”.")
        try:
            with open(path, encoding="utf-8-sig", newline="") as handle:
                importer = ResultsImport(handle, user=entered_by)
                plan = importer.plan()
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from None
        except UnicodeDecodeError:
            raise CommandError(f"{path} is not UTF-8 text.") from None
        for row in plan.rows:
            if not row.errors:
                self.stdout.write(f"line {row.line}: {row.outcome}")
        if not plan.ok:
            for error in plan.errors:
                self.stderr.write(error)
            raise CommandError(f"{len(plan.errors)} error(s); nothing was written.")
        if not apply:
            self.stdout.write(f"Dry run: {plan.summary()}. Nothing written (--apply).")
            return
        written = ResultsImport.apply(plan, user=entered_by)
        self.stdout.write(f"Applied: {plan.summary()}; {written} point(s) written.")
