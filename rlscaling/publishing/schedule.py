"""Scheduled publication changes take effect at their due second, without a cron job.

An item with a future `published_at` appears then; one with an `unpublish_at` disappears then.
No save announces either moment, so:

- every cached page and cached figure lives at most until the next scheduled change
  (`seconds_until_next_scheduled_change()`, read by rlscaling/caching.py when it stores), and
- the first request after a change comes due (the page cache's look-up, or
  `ScheduledChangesMiddleware` for a request the page cache does not look up) makes every
  cached page stale and sends `schedule_came_due(since, until)`, for what is
  stored rather than computed per request: citations/counts.py recounts the papers whose
  citing edges appeared or expired in that window. The window starts where the last one ended
  (`ScheduleSweep`, one row), so a change is handled once even if nobody visited for days.

The next change is looked up in the database when nothing remembers it (at most once per
PAGE_CACHE_SECONDS, or 5 minutes when that is 0), and otherwise read from the cache: saves
keep it current.
"""

import contextlib
import datetime
import math
import time

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, models, transaction
from django.db.models import F, Min
from django.db.models.signals import post_save
from django.dispatch import Signal, receiver
from django.utils import timezone

from rlscaling.middleware import CACHE_ERRORS

from .models import Publishable, Status

NEXT_CHANGE_KEY = "publishing:next-scheduled-change"
# Sent with `since` and `until` (aware datetimes): scheduled changes in (since, until] are due.
schedule_came_due = Signal()


class ScheduleSweep(models.Model):
    """Up to when scheduled publication changes have been handled (one row)."""

    shown_to_readers = False  # no public page shows it (rlscaling.caching.shown_to_readers)

    swept_until = models.DateTimeField()

    class Meta:
        app_label = "rlscaling"

    def __str__(self):
        return f"Scheduled changes handled until {self.swept_until:%Y-%m-%d %H:%M:%S}"


def publishable_models():
    return [model for model in apps.get_models() if issubclass(model, Publishable)]


def due_window_q(since, until, prefix="", unannounced=False):
    """Rows (of a Publishable model, or across a relation with `prefix`) whose appearance or
    expiry fell in (since, until]. `unannounced`: only those last saved before that moment; a
    row saved at or after it (published or withdrawn at once, or edited since) made the change
    with that save, which made the cached pages stale then."""

    def fell_in_window(field):
        moment = f"{prefix}{field}"
        window = models.Q(**{f"{moment}__gt": since, f"{moment}__lte": until})
        if unannounced:
            window &= models.Q(**{f"{prefix}updated_at__lt": F(moment)})
        return window

    published = models.Q(**{f"{prefix}status": Status.PUBLISHED})
    return published & (fell_in_window("published_at") | fell_in_window("unpublish_at"))


def unannounced_changes(since, until):
    """Whether a row appeared or expired in (since, until] that no save announced."""
    return any(
        model._base_manager.filter(due_window_q(since, until, unannounced=True)).exists()
        for model in publishable_models()
    )


def earliest_after(queryset, field, after):
    """The earliest `field` after `after` among `queryset`'s rows. The bound is in the WHERE
    clause, not an aggregate's FILTER, so PostgreSQL reads it off the field's index (one
    probe); a FILTER made it a scan of every row (0.65 s over 1M citations)."""
    return queryset.filter(**{f"{field}__gt": after}).aggregate(moment=Min(field))["moment"]


def find_next_scheduled_change(after):
    """The earliest moment after `after` at which a published row appears or expires (None:
    nothing scheduled): two index probes per Publishable model."""
    moments = []
    for model in publishable_models():
        published = model._base_manager.filter(status=Status.PUBLISHED)
        moments += [
            earliest_after(published, field, after) for field in ("published_at", "unpublish_at")
        ]
    return min((moment for moment in moments if moment is not None), default=None)


def swept_until():
    """Up to when scheduled changes have been handled (the sweep row; created on first use)."""
    sweep = ScheduleSweep.objects.filter(pk=1).first()
    if sweep is None:
        sweep, _ = ScheduleSweep.objects.get_or_create(
            pk=1, defaults={"swept_until": timezone.now()}
        )
    return sweep.swept_until


MISSING = object()
# This process's copy, for when the shared cache has none (evicted, cleared, unreachable).
_local = {"value": MISSING, "until": 0.0}


def remembered_seconds():
    """How long a remembered next change is trusted: changes that no save announces (raw SQL,
    bulk paths) are seen within the page cache's own bound, or 5 minutes with the page cache
    off (0 would look it up, one query per Publishable model, on every request)."""
    return getattr(settings, "PAGE_CACHE_SECONDS", 300) or DEFAULT_REMEMBERED_SECONDS


DEFAULT_REMEMBERED_SECONDS = 300


def _remembered():
    value = MISSING
    with contextlib.suppress(*CACHE_ERRORS):
        value = cache.get(NEXT_CHANGE_KEY, MISSING)
    if value is MISSING and time.monotonic() < _local["until"]:
        value = _local["value"]
    return value


def remember_next_scheduled_change(timestamp):
    """Remember the next change (a POSIX timestamp; None: nothing is scheduled)."""
    _local.update(value=timestamp, until=time.monotonic() + remembered_seconds())
    with contextlib.suppress(*CACHE_ERRORS):
        cache.set(NEXT_CHANGE_KEY, timestamp, remembered_seconds())


def forget_next_scheduled_change():
    """Look the next change up again on next use (after a sweep, or a bulk change)."""
    _local.update(value=MISSING, until=0.0)
    with contextlib.suppress(*CACHE_ERRORS):
        cache.delete(NEXT_CHANGE_KEY)


def next_scheduled_change(remembered=MISSING):
    """The first scheduled change not yet handled: an aware datetime, in the past when it is
    due and no request has handled it yet; None when nothing is scheduled. Remembered (shared
    cache, and this process) and kept current by every save (`note_scheduled_save`), so a
    request normally reads it without a query. `remembered`: the value under NEXT_CHANGE_KEY
    as the caller already read it from the cache (the page cache, in its one round trip)."""
    timestamp = _remembered() if remembered is MISSING else remembered
    if timestamp is MISSING:
        moment = find_next_scheduled_change(swept_until())
        timestamp = moment.timestamp() if moment else None
        remember_next_scheduled_change(timestamp)
    if timestamp is None:
        return None
    return datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC)


@receiver(post_save, dispatch_uid="rlscaling.publishing.schedule.note_scheduled_save")
def note_scheduled_save(sender, instance, **kwargs):
    """A save that schedules an appearance or an expiry earlier than the remembered next change
    moves it earlier. (A save that moves or drops the remembered one leaves it: the sweep it
    then causes finds nothing due, and looks the next one up again.)"""
    if not isinstance(instance, Publishable) or instance.status != Status.PUBLISHED:
        return
    now = timezone.now()
    moments = [
        moment.timestamp()
        for moment in (instance.published_at, instance.unpublish_at)
        if moment is not None and moment > now
    ]
    if not moments:
        return
    current = _remembered()
    if current is MISSING:
        return  # the next lookup finds it
    earliest = min(moments if current is None else [current, *moments])
    if earliest != current:
        remember_next_scheduled_change(earliest)


def seconds_until_next_scheduled_change(remembered=MISSING):
    """Whole seconds until the next scheduled change, rounded down: 0 when one is due (a page
    rendered now may show the state before it); None when nothing is scheduled. `remembered`
    as for `next_scheduled_change`."""
    moment = next_scheduled_change(remembered)
    if moment is None:
        return None
    return max(0, math.floor((moment - timezone.now()).total_seconds()))


def cap_at_next_scheduled_change(seconds, remembered=MISSING):
    """A cache lifetime of at most `seconds`, ending no later than the next scheduled change
    (0: do not store). `remembered` as for `next_scheduled_change`."""
    remaining = seconds_until_next_scheduled_change(remembered)
    return seconds if remaining is None else min(seconds, remaining)


def handle_due_changes(now=None):
    """Handle the scheduled changes that came due since the last sweep: announce the window
    (`schedule_came_due`) and make every cached page stale, unless every change in it was
    made by a save (a row published at once is found by the look-up too). Safe to run
    concurrently: the sweep row is locked, and a window is handled once."""
    from rlscaling.caching import bump_generation

    now = now or timezone.now()
    with transaction.atomic():
        sweep = ScheduleSweep.objects.select_for_update().filter(pk=1).first()
        if sweep is None:
            sweep, _ = ScheduleSweep.objects.get_or_create(pk=1, defaults={"swept_until": now})
            since = None
        else:
            since = sweep.swept_until
        if since is not None and since < now:
            schedule_came_due.send(sender=ScheduleSweep, since=since, until=now)
            sweep.swept_until = now
            sweep.save(update_fields=["swept_until"])
    forget_next_scheduled_change()
    if since is None or unannounced_changes(since, now):
        bump_generation(withdrawal=True)  # an expiry takes items out of view


def handle_due_changes_if_any(remembered=MISSING):
    """Handle the scheduled changes that came due, if any: True when there were. `remembered`
    as for `next_scheduled_change`. An outage of the database or the cache: nothing is
    handled, and the request goes on as it would without this."""
    now = timezone.now()
    moment = None
    with contextlib.suppress(DatabaseError, *CACHE_ERRORS):
        moment = next_scheduled_change(remembered)
    if moment is None or moment > now:
        return False
    handle_due_changes(now)
    return True


class ScheduledChangesMiddleware:
    """Before the views: when a scheduled change has come due, handle it first, so this
    request (and every later one) sees the new state on every surface. The page cache, before
    it, does this for the requests it looks up (reading the next change in the same round trip
    as the entry, `rlscaling/caching.py`), and marks them so they are not checked twice."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not getattr(request, "scheduled_changes_checked", False):
            handle_due_changes_if_any()
        return self.get_response(request)
