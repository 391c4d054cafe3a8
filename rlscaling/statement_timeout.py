"""A PostgreSQL statement timeout for anonymous requests (issue 15): no reader's request can
tie up a worker and a database backend for seconds. Editors keep the server's default (admin
changelists and bulk actions at 1M rows may legitimately take longer).

The timeout is set on the connection (`SET statement_timeout`), just before a request's first
statement, only when it changes between an anonymous and an editor request on the same
persistent connection, so a worker serving readers pays one extra query per connection, not per
request, and a request that needs no database (a cached page, an outage answer) opens none.
A statement cut off raises OperationalError, which DatabaseUnavailableMiddleware answers with a
503 and Retry-After."""

from functools import partial

from django.conf import settings
from django.db import connection
from django.db.backends.signals import connection_created
from django.dispatch import receiver

STATE = "_rlscaling_statement_timeout"
DEFAULT = "default"
# Health checks make their own database calls and must answer for themselves while it is down.
HEALTH_CHECKS = ("/healthz", "/readyz")


@receiver(connection_created)
def fresh_connection(sender, connection, **kwargs):
    setattr(connection, STATE, DEFAULT)  # a new session starts at the server's default


class AnonymousStatementTimeoutMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timeout = settings.ANONYMOUS_STATEMENT_TIMEOUT_MS
        if not timeout or connection.vendor != "postgresql" or request.path in HEALTH_CHECKS:
            return self.get_response(request)
        wanted = DEFAULT if request.user.is_authenticated else int(timeout)
        # Set just before the request's first statement: a request that needs no database
        # (a cached page, an outage answer) never opens a connection for it.
        with connection.execute_wrapper(partial(set_before_first_statement, wanted)):
            return self.get_response(request)


def set_before_first_statement(wanted, execute, sql, params, many, context):
    if getattr(connection, STATE, None) != wanted:
        setattr(connection, STATE, wanted)  # the SET below passes through here too
        try:
            with connection.cursor() as cursor:
                if wanted == DEFAULT:
                    cursor.execute("SET statement_timeout TO DEFAULT")
                else:
                    cursor.execute(
                        "SELECT set_config('statement_timeout', %s, false)", [f"{wanted}ms"]
                    )
        except Exception:
            setattr(connection, STATE, None)
            raise
    return execute(sql, params, many, context)
