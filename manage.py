#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rlscaling.settings")
    from django.apps import apps
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    finally:
        # Cached pages never outlive what a command wrote, whether or not a save announced it
        # (an update() in a shell, raw SQL, a data migration, flush, loaddata, an import): every
        # command ends by invalidating them (rlscaling/caching.py).
        if apps.ready:
            from rlscaling.caching import bump_generation

            # flush empties the tables: no cached copy from before it may be served stale.
            bump_generation(withdrawal=sys.argv[1:2] == ["flush"])


if __name__ == "__main__":
    main()
