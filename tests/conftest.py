"""Fixtures for the whole suite, each defined once.

The demo content (`demo`) is loaded once per test process, not once per test: it stays in an
open transaction on the test database, and each test runs inside it in a savepoint that is
rolled back, so what one test writes the next never sees. A test that does not ask for `demo`
gets the database without it (the transaction is rolled back before that test starts), and tests
are ordered so that those needing the demo run together. Transactional tests (live servers,
`transaction=True`) cannot run inside a transaction: `demo` commits the content for them
(CommittedDemo), and pytest-django flushes it afterwards."""

import atexit
import os
import shutil
import tempfile

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.core.management.color import no_style
from django.db import connection, transaction
from django.test import Client, override_settings
from hypothesis import settings as hypothesis_settings

from publishing.editors import CONTRIBUTORS_GROUP
from tests.factories import UserFactory
from web.demo_content import DemoLoader

# Hypothesis keeps its example database and caches in a directory of this process, removed at
# exit: by default it writes .hypothesis/ in the working tree and replays what it finds there,
# so a run would depend on the runs before it.
if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = tempfile.mkdtemp(prefix="rlscaling-hypothesis-")
    atexit.register(shutil.rmtree, os.environ["HYPOTHESIS_STORAGE_DIRECTORY"], ignore_errors=True)

# Property tests take their number of examples from a profile, not from their decorators: a few
# in the default run (`make test`), many in the slow step (`make test-slow` and `make test-all`
# pass --hypothesis-profile=thorough). See docs/decisions/0017-default-suite-budget.md.
hypothesis_settings.register_profile("suite", max_examples=12)
hypothesis_settings.register_profile("thorough", max_examples=100)
hypothesis_settings.load_profile("suite")

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
                CommittedDemo.keep()

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


class CommittedDemo:
    """The demo content for transactional tests, which cannot share the open transaction.
    The loader runs once per process (thousands of saves and their signals, several seconds):
    its rows are read where it ran (in the shared demo's transaction, or here when no test of
    this process asked for that) and written back, table by table, for each transactional test
    that asks (a fraction of a second). pytest-django flushes every table after such a test,
    and the flush's post_migrate adds content types and permissions again: those rows are
    replaced by the kept ones, whose ids the rest of the demo refers to. The rows are those of
    an uncommitted load either way: the tasks its commit would queue (refits, neighbour
    refreshes) are not in them, as the shared demo has none."""

    rows = None  # {table: (columns, rows)}

    @classmethod
    def keep(cls):
        if cls.rows is None:
            cls.rows = cls.read()

    @classmethod
    def load(cls):
        if cls.rows is None:
            with transaction.atomic():
                DemoLoader().load()
                cls.keep()
                transaction.set_rollback(True)
        cls.write_back()

    @staticmethod
    def tables():
        return connection.introspection.django_table_names(only_existing=True, include_views=False)

    @classmethod
    def read(cls):
        rows = {}
        with connection.cursor() as cursor:
            for table in cls.tables():
                cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
                rows[table] = ([column[0] for column in cursor.description], cursor.fetchall())
        return rows

    @classmethod
    def write_back(cls):
        quote = connection.ops.quote_name
        # Foreign keys are deferred to the commit on both databases, so table order is free.
        with transaction.atomic(), connection.cursor() as cursor:
            for table, (columns, rows) in cls.rows.items():
                cursor.execute(f"DELETE FROM {quote(table)}")
                if rows:
                    names = ", ".join(quote(column) for column in columns)
                    marks = ", ".join(["%s"] * len(columns))
                    cursor.executemany(
                        f"INSERT INTO {quote(table)} ({names}) VALUES ({marks})", rows
                    )
            models = apps.get_models(include_auto_created=True)
            for statement in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(statement)
        ContentType.objects.clear_cache()


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
        CommittedDemo.load()
    else:
        request.getfixturevalue("db")


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache (pages and throttle counters): the database rolls
    back between tests, and cached pages (pagecache/caching.py) must not outlive their rows."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _anonymous_session_limits_in_place():
    """On PostgreSQL the first anonymous request on a connection sets its session limits
    (core/session_limits.py): one more statement, present or not by whether the test before on
    this worker ended with an editor's request. Each test starts as if an anonymous request had
    just run, so a query count never depends on test order; a test that signs in and then
    reads anonymously still counts the SET, as production would."""
    from core.session_limits import STATE, anonymous_limits

    setattr(connection, STATE, anonymous_limits())


@pytest.fixture(scope="session", autouse=True)
def _static_root(tmp_path_factory):
    """WhiteNoise serves STATIC_ROOT, which collectstatic fills on a deploy; the suite serves
    static files from the app directories (DEBUG-free, like production) and needs only that the
    directory exists: an empty one of its own, never the working tree's staticfiles/ (whatever
    a collectstatic left there)."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root):
        yield root


@pytest.fixture(autouse=True)
def _own_dump_dir(tmp_path, monkeypatch):
    """Each test has a dump directory of its own, empty (settings.DUMP_DIR, and DUMP_DIR for the
    processes it starts): the working tree's var/dumps, where `make run`'s worker writes the
    daily dump, is never read or written by the suite."""
    monkeypatch.setenv("DUMP_DIR", str(tmp_path / "dumps"))
    with override_settings(DUMP_DIR=tmp_path / "dumps"):
        yield


@pytest.fixture(scope="session", autouse=True)
def _no_dump_schedule_from_migrate():
    """The test databases' migrate queues no dump run (a worker in a test would write one);
    tests/exports/test_dump_schedule.py turns it back on where it is the subject."""
    with override_settings(DUMP_SCHEDULE=False):
        yield


@pytest.fixture(scope="session", autouse=True)
def _own_cache():
    """The suite's cache is always this process's memory, even with REDIS_URL set: each test
    clears it (_fresh_cache), and clearing a Redis cache empties its whole database under the
    other workers and anyone else using it. Tests of the Redis paths make a cache of their own
    on REDIS_URL, under a fresh key prefix, and delete their keys."""
    if settings.CACHES["default"]["BACKEND"].endswith("LocMemCache"):
        yield
        return
    local = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    with override_settings(
        CACHES={
            "default": {**local, "LOCATION": "rlscaling"},
            "local": {**local, "LOCATION": "local"},
        }
    ):
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
def contributor(db):
    """Staff in the Contributors group: writes drafts, publishes nothing."""
    user = UserFactory(is_staff=True, username="contributor")
    user.groups.add(Group.objects.get(name=CONTRIBUTORS_GROUP))
    return user


@pytest.fixture
def contributor_client(contributor):
    client = Client()
    client.force_login(contributor)
    return client


@pytest.fixture
def reader(db):
    """An authenticated account with no editorial permissions."""
    return UserFactory(username="reader")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client
