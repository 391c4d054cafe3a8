"""A complete dump of the database: pg_dump on PostgreSQL, dumpdata otherwise."""

import os
import shutil
import subprocess
from pathlib import Path

from django.conf import settings
from django.core import serializers
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.utils import timezone

from web import backup_format

# Everything, with its primary keys, except logged-in sessions (restoring logs people out) and
# the stored facet counts, which `restore` recounts from the papers (loading the papers' layers
# already counts them, so the dumped rows would collide with those).
DUMPDATA_EXCLUDE = ["sessions", "citations.PaperFacetCount"]


def postgres_environment(database):
    """libpq environment variables for a Django PostgreSQL database (no password on argv)."""
    env = {**os.environ}
    for variable, key in [
        ("PGHOST", "HOST"),
        ("PGPORT", "PORT"),
        ("PGUSER", "USER"),
        ("PGPASSWORD", "PASSWORD"),
        ("PGDATABASE", "NAME"),
    ]:
        if database.get(key):
            env[variable] = str(database[key])
    if database.get("OPTIONS", {}).get("sslmode"):
        env["PGSSLMODE"] = database["OPTIONS"]["sslmode"]
    return env


class Command(BaseCommand):
    help = (
        "Write a complete backup to backups/ (or --output): a pg_dump custom-format archive "
        "on PostgreSQL, a gzipped dumpdata fixture otherwise (or with --format fixture)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", "-o", help="File to write (default: a dated file).")
        parser.add_argument(
            "--format",
            choices=["auto", "pg", "fixture"],
            default="auto",
            help="auto: pg on PostgreSQL, fixture elsewhere. fixture also works on PostgreSQL.",
        )
        parser.add_argument("--database", default="default")

    def handle(self, *args, **options):
        connection = connections[options["database"]]
        kind = options["format"]
        if kind == "auto":
            kind = "pg" if connection.vendor == "postgresql" else "fixture"
        if kind == "pg" and connection.vendor != "postgresql":
            raise CommandError("--format pg needs a PostgreSQL database.")

        suffix = ".dump" if kind == "pg" else ".json.gz"
        output = Path(options["output"] or self.default_path(suffix))
        output.parent.mkdir(parents=True, exist_ok=True)
        # Write next to the target, then rename: a failed backup never looks like a good one.
        # (The name keeps its suffix: dumpdata gzips a file whose name ends in .gz.)
        partial = output.with_name(f"partial-{output.name}")
        try:
            if kind == "pg":
                self.pg_dump(connection.settings_dict, partial)
            else:
                serializers.register_serializer(backup_format.FORMAT, backup_format.__name__)
                call_command(
                    "dumpdata",
                    format=backup_format.FORMAT,
                    exclude=DUMPDATA_EXCLUDE,
                    output=str(partial),
                    database=options["database"],
                    verbosity=0,
                )
            partial.replace(output)
        finally:
            partial.unlink(missing_ok=True)

        size_kib = output.stat().st_size / 1024
        self.stdout.write(self.style.SUCCESS(f"Backup written: {output} ({size_kib:.0f} KiB)"))

    @staticmethod
    def default_path(suffix):
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        return Path(settings.BASE_DIR) / "backups" / f"rlscaling-{stamp}{suffix}"

    @staticmethod
    def pg_dump(database, path):
        if shutil.which("pg_dump") is None:
            raise CommandError("pg_dump is not installed (apt-get install postgresql-client).")
        completed = subprocess.run(
            ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", "--file", str(path)],
            env=postgres_environment(database),
            capture_output=True,
            text=True,
        )
        if completed.returncode != 0:
            raise CommandError(f"pg_dump failed: {completed.stderr.strip()}")
