"""Which SQL belongs to a signalled write: a model save, delete or m2m change, whose signals
tell the page cache about it themselves (rlscaling/caching.py `content_changed`). The page
cache's safety net (`WriteInvalidationMiddleware`) bumps the generation for any other write an
editor's request makes to an editorial table (a queryset.update(), a bulk_create, raw SQL)."""

import contextlib
import contextvars

from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete, pre_save


class SignalledWrites:
    """Counts the signalled writes under way in this request: from the pre_ signal to the last
    receiver of the post_ one, history rows and recounts written by other receivers included.
    The closing receivers are connected by `connect()`, called by the first
    WriteInvalidationMiddleware, after every app's own, so they run last. A save that raises
    between its two signals leaves the count open for the rest of its request (a failed one:
    its later writes go unseen)."""

    depth = contextvars.ContextVar("signalled_writes", default=0)
    connected = False

    @classmethod
    def connect(cls):
        if cls.connected:
            return
        for signal in (pre_save, pre_delete):
            signal.connect(cls.opened, dispatch_uid=f"publishing.writes.opened.{id(signal)}")
        for signal in (post_save, post_delete):
            signal.connect(cls.closed, dispatch_uid=f"publishing.writes.closed.{id(signal)}")
        m2m_changed.connect(cls.m2m, dispatch_uid="publishing.writes.m2m")
        cls.connected = True

    @classmethod
    def open(cls):
        return cls.depth.get() > 0

    @classmethod
    def opened(cls, **kwargs):
        cls.depth.set(cls.depth.get() + 1)

    @classmethod
    def closed(cls, **kwargs):
        cls.depth.set(max(cls.depth.get() - 1, 0))

    @classmethod
    def m2m(cls, action, **kwargs):
        if action.startswith("pre_"):
            cls.opened()
        elif action.startswith("post_"):
            cls.closed()

    @classmethod
    @contextlib.contextmanager
    def counted(cls):
        """A request's own count, from zero."""
        token = cls.depth.set(0)
        try:
            yield
        finally:
            cls.depth.reset(token)

    @classmethod
    @contextlib.contextmanager
    def part_of_a_save(cls):
        """Writes a save makes before its pre_save signal (the stale-edit version claim)."""
        cls.opened()
        try:
            yield
        finally:
            cls.closed()
