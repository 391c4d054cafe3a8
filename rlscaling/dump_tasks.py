"""The dump is regenerated daily by the task queue (`manage.py db_worker`): each run writes
today's archive, drops all but the newest few, and enqueues the next run for a day later.
`python manage.py export_dump --schedule` starts the chain (devserver and deploys run it)."""

import datetime

from django.utils import timezone
from django_tasks import task

KEEP_DUMPS = 7
DUMP_INTERVAL = datetime.timedelta(days=1)


@task()
def regenerate_dump(reschedule=True):
    from .dump import PREFIX, dump_directory, write_dump

    path = write_dump(dump_directory())
    for old in sorted(dump_directory().glob(f"{PREFIX}????-??-??.zip"))[:-KEEP_DUMPS]:
        old.unlink(missing_ok=True)
        old.with_name(old.name + ".sha256").unlink(missing_ok=True)
    if reschedule:
        regenerate_dump.using(run_after=timezone.now() + DUMP_INTERVAL).enqueue()
    return str(path)
