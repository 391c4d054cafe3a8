"""Anonymous requests run under a PostgreSQL statement timeout; editors keep the default."""

import pytest
from django.db import OperationalError, connection, transaction
from django.test import Client

from rlscaling.statement_timeout import STATE

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


def test_a_statement_over_an_anonymous_timeout_is_cancelled(settings):
    settings.ANONYMOUS_STATEMENT_TIMEOUT_MS = 50
    setattr(connection, STATE, None)
    assert Client().get("/healthz").status_code == 200  # no query of its own
    with (
        pytest.raises(OperationalError, match="statement timeout"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SELECT pg_sleep(1)")
