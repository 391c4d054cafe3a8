"""Replace the database's contents with a backup written by `manage.py backup`."""

import shutil
import subprocess
from pathlib import Path

from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections, transaction

from citations.cite_keys import assign_cite_keys
from citations.models import Paper
from citations.stats.counts import recount_citations
from citations.stats.facet_counts import recount_paper_facets
from pagecache.caching import bump_generation
from web.management.commands.backup import postgres_environment

PG_DUMP_MAGIC = b"PGDMP"
FIXTURE_SUFFIXES = (".json", ".json.gz", ".xml", ".xml.gz")


class Command(BaseCommand):
    help = (
        "Restore a backup made by `manage.py backup`, replacing what the database holds: "
        "pg_restore for a .dump archive (PostgreSQL only), flush + loaddata for a fixture."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="A .dump (pg_dump) or .json.gz (dumpdata) file.")
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive",
            help="Do not ask for confirmation.",
        )  # fmt: skip
        parser.add_argument("--database", default="default")

    def handle(self, *args, **options):
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No such backup file: {path}")
        connection = connections[options["database"]]
        with path.open("rb") as backup:
            is_pg_archive = backup.read(len(PG_DUMP_MAGIC)) == PG_DUMP_MAGIC
        if not is_pg_archive and not path.name.endswith(FIXTURE_SUFFIXES):
            raise CommandError("Not a backup: expected a pg_dump archive or a dumpdata fixture.")
        if is_pg_archive and connection.vendor != "postgresql":
            raise CommandError("A pg_dump archive can only be restored into PostgreSQL.")

        name = connection.settings_dict["NAME"]
        if options["interactive"]:
            answer = input(f"This replaces everything in the database {name!r}. Type 'yes': ")
            if answer.strip().lower() != "yes":
                raise CommandError("Restore cancelled.")

        if is_pg_archive:
            self.pg_restore(connection, path)
        else:
            self.load_fixture(options["database"], path)
        # pg_restore and loaddata announce nothing to the page cache, and rows may be gone.
        bump_generation()
        self.stdout.write(self.style.SUCCESS(f"Restored {path} into {name!r}."))

    @staticmethod
    def load_fixture(database, path):
        # One transaction: a fixture that fails to load leaves the old contents in place.
        with transaction.atomic(using=database):
            # The fixture brings its own content types, permissions and groups, with their
            # keys; post_migrate runs only afterwards, to add what a newer schema needs.
            call_command(
                "flush", interactive=False, inhibit_post_migrate=True, database=database,
                verbosity=0,
            )  # fmt: skip
            call_command("loaddata", str(path), database=database, verbosity=0)
            recount_paper_facets()  # not in a fixture backup: derived from the papers
            # The stored citing counts travel in the backup; an older one's papers have none.
            recount_citations(
                Paper.objects.filter(citation_count=None).values_list("pk", flat=True)
            )
            assign_cite_keys()  # an older backup's papers have none stored
            emit_post_migrate_signal(verbosity=0, interactive=False, db=database)
        ContentType.objects.clear_cache()

    @staticmethod
    def pg_restore(connection, path):
        if shutil.which("pg_restore") is None:
            raise CommandError("pg_restore is not installed (apt-get install postgresql-client).")
        if connection.in_atomic_block:
            raise CommandError("Cannot pg_restore from inside a transaction on this connection.")
        connection.close()  # hold no locks on the tables pg_restore drops and recreates
        completed = subprocess.run(
            [
                *("pg_restore", "--clean", "--if-exists", "--no-owner", "--no-privileges"),
                *("--single-transaction", "--exit-on-error", "--dbname"),
                connection.settings_dict["NAME"],
                str(path),
            ],
            env=postgres_environment(connection.settings_dict),
            capture_output=True,
            text=True,
        )
        if completed.returncode != 0:
            raise CommandError(f"pg_restore failed: {completed.stderr.strip()}")
