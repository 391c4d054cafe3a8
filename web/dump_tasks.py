"""The dump is regenerated daily by the task queue (`manage.py db_worker`): each run enqueues
the next one for a day later, then writes today's archive and drops all but the newest few.

Nothing has to be run by hand to start the chain: every `migrate` (each deploy runs one, and
`make run` does before serving) calls `ensure_dump_scheduled()`, which enqueues a run unless one
is already waiting or running, so several app servers or workers starting at once, or the same
one started twice, leave exactly one chain. A chain that broke (no run waiting) is restarted:
at once when the newest dump is more than a day old, else a day after it was written."""

import datetime

from django.db import connections, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import TaskResultStatus, default_task_backend, task

KEEP_DUMPS = 7
DUMP_INTERVAL = datetime.timedelta(days=1)
# A run still "running" after this long lost its worker (killed mid-task): it no longer counts.
RUN_TIMEOUT = datetime.timedelta(hours=1)
# pg_advisory_xact_lock key of the scheduling check: any constant no other code uses.
LOCK_KEY = 0x726C_6475  # "rldu"


@task()
def regenerate_dump(reschedule=True):
    from web.dump import PREFIX, dump_directory, write_dump

    if reschedule:
        # First, so that a failing write does not end the chain; this run itself is running.
        ensure_dump_scheduled(run_after=timezone.now() + DUMP_INTERVAL, count_running=False)
    path = write_dump(dump_directory())
    for old in sorted(dump_directory().glob(f"{PREFIX}????-??-??.zip"))[:-KEEP_DUMPS]:
        old.unlink(missing_ok=True)
        old.with_name(old.name + ".sha256").unlink(missing_ok=True)
    return str(path)


def pending_runs(count_running=True):
    from django_tasks_db.models import DBTaskResult

    waiting = Q(status=TaskResultStatus.READY)
    if count_running:
        waiting |= Q(status=TaskResultStatus.RUNNING, started_at__gte=timezone.now() - RUN_TIMEOUT)
    return DBTaskResult.objects.filter(waiting, task_path=regenerate_dump.module_path)


def next_run_due():
    """When the next dump is due: a day after the newest one, or now when it is older (or
    there is none)."""
    from web.dump import latest_dump

    now = timezone.now()
    newest = latest_dump()
    if newest is None:
        return now
    written = datetime.datetime.fromtimestamp(newest.stat().st_mtime, tz=datetime.UTC)
    return max(now, written + DUMP_INTERVAL)


def ensure_dump_scheduled(run_after=None, count_running=True):
    """Enqueue the next dump run unless one is pending; the new task result, or None."""
    if not default_task_backend.supports_defer:  # not a queue that can hold a run for later
        return None
    with transaction.atomic():
        lock_the_schedule()
        if pending_runs(count_running).exists():
            return None
        return regenerate_dump.using(run_after=run_after or next_run_due()).enqueue()


def lock_the_schedule():
    """Serialise the check-then-enqueue across processes until the transaction ends."""
    connection = connections["default"]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
    else:
        # SQLite has one writer at a time: a write as the transaction's first statement takes
        # the database's write lock (the others wait for it) before anything is read.
        pending_runs(count_running=False).update(priority=F("priority"))


def schedule_after_migrate(sender, using="default", **kwargs):
    """post_migrate receiver: each deploy's (and `make run`'s) migrate keeps the chain alive."""
    from django.conf import settings
    from django_tasks_db.models import DBTaskResult

    if using != "default" or not getattr(settings, "DUMP_SCHEDULE", True):
        return
    if DBTaskResult._meta.db_table not in connections[using].introspection.table_names():
        return  # the task queue's tables are not (or no longer) there
    ensure_dump_scheduled()
