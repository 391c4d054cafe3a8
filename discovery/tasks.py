"""The task queue's side of the stored neighbours (`manage.py db_worker` runs it).

Edge changes are collected per transaction and queued once it commits; a refresh still
waiting in the queue takes the papers of later changes too (deduplicated), and starts
DEBOUNCE after it was queued, so a burst of changes (an import, an editor's afternoon) is
one refresh of each paper it reaches, never one per edge."""

import datetime
import threading

from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus, task
from django_tasks_db.backend import DatabaseBackend

from publishing.signals import announce

_pending = threading.local()
DEBOUNCE = datetime.timedelta(seconds=5)
# A queued refresh takes at most this many papers; past it a change queues a task of its own.
JOIN_LIMIT = 5000


@task()
def refresh_neighbours(citing_ids, cited_ids):
    """Refresh the lists an edge change from `citing_ids` to `cited_ids` reaches."""
    from discovery.models import Neighbour
    from discovery.neighbours import papers_touched, refresh

    count = refresh(papers_touched(citing_ids, cited_ids))
    # The hubs showing these lists may be cached pages: like a command's end, the run tells
    # the page cache that what readers see changed.
    announce(Neighbour)
    return count


def refresh_after_commit(citing_ids, cited_ids):
    """Queue one refresh for every edge change of the current transaction, once it commits:
    an admin save of twenty inline edges is one task, not twenty. A rolled back change leaves
    its papers in the next batch, which only refreshes them needlessly."""
    pending = getattr(_pending, "edges", None)
    if pending is None:
        pending = _pending.edges = (set(), set())
    pending[0].update(pk for pk in citing_ids if pk is not None)
    pending[1].update(pk for pk in cited_ids if pk is not None)
    transaction.on_commit(_enqueue_pending)


def _enqueue_pending():
    pending = getattr(_pending, "edges", None)
    _pending.edges = None
    if not pending or not (pending[0] or pending[1]):
        return
    if _join_queued(*pending):
        return
    queued = refresh_neighbours
    if queued.get_backend().supports_defer:
        queued = queued.using(run_after=timezone.now() + DEBOUNCE)
    queued.enqueue(sorted(pending[0]), sorted(pending[1]))


def _join_queued(citing, cited):
    """Add the papers to a refresh waiting in the database queue (not yet claimed by a worker:
    the row is locked, a worker skips it); False when there is none to join."""
    from django_tasks_db.models import DBTaskResult

    if not isinstance(refresh_neighbours.get_backend(), DatabaseBackend):
        return False  # the immediate backend (tests, development): nothing waits
    with transaction.atomic():
        waiting = (
            DBTaskResult.objects.filter(
                task_path=refresh_neighbours.module_path, status=TaskResultStatus.READY
            )
            .order_by("enqueued_at")
            .select_for_update(skip_locked=True)
            .first()
        )
        if waiting is None:
            return False
        old_citing, old_cited = waiting.args_kwargs["args"]
        citing, cited = sorted({*old_citing, *citing}), sorted({*old_cited, *cited})
        if len(citing) + len(cited) > JOIN_LIMIT:
            return False
        waiting.args_kwargs = {"args": [citing, cited], "kwargs": {}}
        waiting.save(update_fields=["args_kwargs"])
    return True
