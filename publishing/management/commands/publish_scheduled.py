"""`manage.py publish_scheduled`: publish the scheduled rows whose time has come and unpublish
the published rows whose expiry has passed, as Wagtail's command of the same name. Production
runs it every minute (docs/operations.md); `make run` runs it with `--every 60`.

Each row is saved (`Publishable.save` sets the status due at that moment), so its history
records the change, the stored counts move as for an editor's save, and the save announces it
to the page cache (publishing/signals.py). Safe to repeat and to run twice at once: it only
picks rows whose status still says the change is pending, on PostgreSQL it skips rows another
run has locked, and each save is a compare-and-swap on the row's version, so a row saved by
another run (or an editor) since it was read is left as they saved it."""

import contextlib
import logging
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections, transaction
from django.db.models import Q
from django.utils import timezone

from publishing.history import fit_change_reason
from publishing.models import GOING_PUBLIC, StaleEditError, Status, publishable_models

logger = logging.getLogger(__name__)


def due_q(now):
    """Rows whose status is no longer the one due at `now`."""
    appearing = Q(status=Status.SCHEDULED, published_at__lte=now)
    expiring = Q(status__in=GOING_PUBLIC, unpublish_at__lte=now)
    return appearing | expiring


def flip(row):
    """Save `row` with the status due now (`Publishable.save`), unless it was saved since it
    was read: True when saved."""
    row._change_reason = fit_change_reason("Scheduled change came due")  # in its history
    try:
        row.save_if_version(row.version)
    except StaleEditError:
        return False
    return True


def publish_scheduled():
    """Flip every row due by now; returns {"published": n, "unpublished": n}."""
    now = timezone.now()  # the moment the saves judge by too (`Publishable.status_due`)
    done = {"published": 0, "unpublished": 0}
    for model in publishable_models():
        rows = model._base_manager.filter(due_q(now)).order_by("pk")
        with transaction.atomic(using=rows.db):
            for row in rows.select_for_update(skip_locked=True):
                if flip(row):
                    done["published" if row.status == Status.PUBLISHED else "unpublished"] += 1
    return done


class Command(BaseCommand):
    help = (
        "Publish scheduled rows whose publication time has come and unpublish published rows "
        "whose expiry has passed. Run it every minute (cron, a systemd timer, or --every 60)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=int,
            default=0,
            metavar="SECONDS",
            help="Run again every SECONDS until stopped (0, the default: run once).",
        )

    def handle(self, *args, every=0, **options):
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C on `make run`: stop quietly
            self.run(every, options["verbosity"])

    def run(self, every, verbosity):
        while True:
            started = time.monotonic()
            try:
                done = publish_scheduled()
            except DatabaseError:
                if not every:
                    raise
                logger.exception("publish_scheduled: the database failed; trying again later")
            else:
                if verbosity > 1 or any(done.values()):
                    self.stdout.write(
                        f"Published {done['published']}, unpublished {done['unpublished']}."
                    )
            if not every:
                return
            close_old_connections()
            time.sleep(max(every - (time.monotonic() - started), 1))
