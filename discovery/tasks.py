"""The task queue's side of the stored neighbours (`manage.py db_worker` runs it)."""

import threading

from django.db import transaction
from django_tasks import task

from publishing.signals import announce

_pending = threading.local()


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
    if pending and (pending[0] or pending[1]):
        refresh_neighbours.enqueue(sorted(pending[0]), sorted(pending[1]))
