#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rlscaling.settings")
    from django.apps import apps
    from django.core.management import execute_from_command_line
    from django.db import OperationalError

    try:
        execute_from_command_line(sys.argv)
    except OperationalError as error:
        if unreachable_database(error):
            sys.exit(unreachable_database(error))
        raise
    finally:
        # Cached pages never outlive what a command wrote, whether or not a save announced it
        # (an update() in a shell, raw SQL, a data migration, flush, loaddata, an import): every
        # command ends by invalidating them (pagecache/caching.py), except the ones whose
        # writes all announce themselves and that run every minute: a bump there would empty
        # the page cache every minute.
        if apps.ready and sys.argv[1:2] != ["publish_scheduled"]:
            from pagecache.caching import bump_generation

            bump_generation()


def unreachable_database(error):
    """One sentence when the database DATABASE_URL names is missing or its server cannot be
    reached (a traceback there only hides the fix); None for every other database error."""
    from django.db import connection

    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if "does not exist" not in message and "connection" not in message.lower():
        return None
    settings = connection.settings_dict
    where = f"{settings['NAME']} on {settings['HOST'] or 'the local socket'}"
    return (
        f"The database in DATABASE_URL ({where}) cannot be used: {message}. Create it "
        f"(createdb {settings['NAME']}) or point DATABASE_URL at another one."
    )


if __name__ == "__main__":
    main()
