"""Fixtures for the whole suite, each defined once.

The demo content (`demo`) is loaded once per test process, not once per test: it stays in an
open transaction on the test database, and each test runs inside it in a savepoint that is
rolled back, so what one test writes the next never sees. A test that does not ask for `demo`
gets the database without it (the transaction is rolled back before that test starts), and tests
are ordered so that those needing the demo run together. Transactional tests (live servers,
`transaction=True`) cannot run inside a transaction: `demo` loads and commits the content for
them, and pytest-django flushes it afterwards."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.test import override_settings

from rlscaling.demo_content import DemoLoader
from rlscaling.publishing.schedule import remember_next_scheduled_change
from tests.factories import UserFactory

SHARED_DEMO_FIXTURE = "_shared_demo"
DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences"}


def uses_database(item):
    return item.get_closest_marker("django_db") is not None or bool(
        DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


def is_transactional(item):
    marker = item.get_closest_marker("django_db")
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(
        (marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")))
        or fixtures & {"transactional_db", "live_server", "django_db_reset_sequences"}
    )


def wants_shared_demo(item):
    return SHARED_DEMO_FIXTURE in getattr(item, "fixturenames", ()) and not is_transactional(item)


class SharedDemo:
    """The demo content in a transaction held open across tests, loaded and dropped on demand."""

    def __init__(self, django_db_blocker):
        self.blocker = django_db_blocker
        self.atomic = None

    def prepare_for(self, item):
        if wants_shared_demo(item):
            self.load()
        elif uses_database(item):
            self.drop()

    def load(self):
        if self.atomic is None:
            with self.blocker.unblock():
                self.atomic = transaction.atomic()
                self.atomic.__enter__()
                DemoLoader().load()

    def drop(self):
        if self.atomic is not None:
            with self.blocker.unblock():
                transaction.set_rollback(True)
                self.atomic.__exit__(None, None, None)
            self.atomic = None


_shared = {"demo": None, "item": None}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before a test's fixtures: the database it expects, with or without the demo content."""
    _shared["item"] = item
    if _shared["demo"] is not None:
        _shared["demo"].prepare_for(item)


def pytest_collection_modifyitems(items):
    """Tests that use the demo content run after the others that use the database (which
    pytest-django has put first), so the shared copy is loaded once per process, not per switch."""

    def order(item):
        if not uses_database(item):
            return 2
        if is_transactional(item):
            return 1
        return 0.5 if wants_shared_demo(item) else 0

    items.sort(key=order)


@pytest.fixture(scope="session")
def _shared_demo(django_db_setup, django_db_blocker):
    shared = SharedDemo(django_db_blocker)
    _shared["demo"] = shared
    shared.prepare_for(_shared["item"])
    yield shared
    shared.drop()
    _shared["demo"] = None


@pytest.fixture
def demo(request, _shared_demo):
    """The full demo content set, as `make run` loads it."""
    if is_transactional(request.node):
        request.getfixturevalue("transactional_db")
        DemoLoader().load()
    else:
        request.getfixturevalue("db")


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache (pages and throttle counters): the database rolls
    back between tests, and cached pages (rlscaling/caching.py) must not outlive their rows."""
    cache.clear()
    # The cleared cache held "the next scheduled publication change" too (publishing/schedule.py):
    # a test starts with no scheduled rows, and each save that schedules one updates it.
    remember_next_scheduled_change(None)
    yield
    cache.clear()


@pytest.fixture(scope="session", autouse=True)
def _static_root():
    """WhiteNoise serves STATIC_ROOT, which collectstatic fills on a deploy; the suite serves
    static files from the app directories (DEBUG-free, like production) and needs only that the
    directory exists."""
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session", autouse=True)
def _no_dump_schedule_from_migrate():
    """The test databases' migrate queues no dump run (a worker in a test would write one);
    tests/exports/test_dump_schedule.py turns it back on where it is the subject."""
    with override_settings(DUMP_SCHEDULE=False):
        yield


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """The production hasher is deliberately slow; tests create accounts and log in a lot."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def editor(db):
    return UserFactory(editor=True, username="editor")


@pytest.fixture
def second_editor(db):
    return UserFactory(editor=True, username="second-editor")


@pytest.fixture
def reader(db):
    """An authenticated account with no editorial permissions."""
    return UserFactory(username="reader")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client
