"""Anonymous requests run under PostgreSQL session limits (a statement timeout, no parallel
workers); editors keep the defaults."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import OperationalError, connection, transaction
from django.test import Client

from core.session_limits import STATE, AnonymousSessionLimitsMiddleware

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL setting"),
]


def current_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


def test_anonymous_requests_get_the_timeout_and_editors_the_default(editor_client, settings):
    settings.ANONYMOUS_STATEMENT_TIMEOUT_MS = 20000
    setattr(connection, STATE, None)  # earlier tests' transactions rolled their SET back
    default = current_timeout()
    assert Client().get("/research/").status_code == 200
    assert current_timeout() == "20s"
    assert editor_client.get("/research/").status_code == 200
    assert current_timeout() == default


def test_a_statement_over_an_anonymous_timeout_is_cancelled(settings, rf):
    settings.ANONYMOUS_STATEMENT_TIMEOUT_MS = 50
    setattr(connection, STATE, None)

    def slow_view(request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(1)")

    request = rf.get("/research/")
    request.user = AnonymousUser()
    with pytest.raises(OperationalError, match="statement timeout"), transaction.atomic():
        AnonymousSessionLimitsMiddleware(slow_view)(request)


def test_a_request_without_a_statement_opens_no_connection(settings, rf):
    """An outage answer, a cached page or a health check must not need the database."""
    settings.ANONYMOUS_STATEMENT_TIMEOUT_MS = 50
    setattr(connection, STATE, None)
    request = rf.get("/research/")
    request.user = AnonymousUser()
    AnonymousSessionLimitsMiddleware(lambda request: None)(request)
    assert getattr(connection, STATE) is None


def current_parallel_workers():
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_parallel_workers_per_gather")
        return cursor.fetchone()[0]


def test_anonymous_requests_run_without_parallel_workers_and_editors_with_the_default(
    editor_client, settings
):
    """A parallel plan's workers cost milliseconds to start, more than the few rows a reader's
    page reads (6 ms for a hub's 3 representative edges at 1M), and take CPUs from the other
    requests; editors' long admin queries keep them."""
    settings.ANONYMOUS_PARALLEL_WORKERS = 0
    setattr(connection, STATE, None)
    default = current_parallel_workers()
    assert default != "0"
    assert Client().get("/research/").status_code == 200
    assert current_parallel_workers() == "0"
    assert editor_client.get("/research/").status_code == 200
    assert current_parallel_workers() == default


def test_the_parallel_workers_can_be_left_to_the_server(settings):
    settings.ANONYMOUS_PARALLEL_WORKERS = None
    setattr(connection, STATE, None)
    default = current_parallel_workers()
    assert Client().get("/research/").status_code == 200
    assert current_parallel_workers() == default


def test_no_connection_compiles_plans_just_in_time():
    """JIT compilation cost a reader's sorted page more than running it (decision 0022)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"
