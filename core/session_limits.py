"""PostgreSQL session limits for anonymous requests: no reader's request can tie up
a worker and a database backend for seconds, nor take CPUs from the other requests. Editors
keep the server's defaults (admin changelists and bulk actions at 1M rows may legitimately
take longer, and use parallel workers).

- `statement_timeout`: ANONYMOUS_STATEMENT_TIMEOUT_MS (0: the server's default). A statement
  cut off raises OperationalError, which DatabaseUnavailableMiddleware answers with a 503 and
  Retry-After.
- `max_parallel_workers_per_gather`: ANONYMOUS_PARALLEL_WORKERS (None: the server's default).
  Starting a parallel plan's workers costs milliseconds, more than the few rows a reader's page
  reads, and on a busy server the workers only take CPUs from other requests.

The limits are set on the connection, just before a request's first statement, only when they
change between an anonymous and an editor request on the same persistent connection, so a
worker serving readers pays one extra query per connection, not per request, and a request
that needs no database (a cached page, an outage answer) opens none."""

from functools import partial

from django.conf import settings
from django.db import connection
from django.db.backends.signals import connection_created
from django.dispatch import receiver

STATE = "_rlscaling_session_limits"
SETTINGS = ("statement_timeout", "max_parallel_workers_per_gather")
DEFAULT = (None, None)  # the server's defaults, as a new session starts
# Health checks make their own database calls and must answer for themselves while it is down.
HEALTH_CHECKS = ("/healthz", "/readyz")


@receiver(connection_created)
def fresh_connection(sender, connection, **kwargs):
    setattr(connection, STATE, DEFAULT)


def anonymous_limits():
    timeout = settings.ANONYMOUS_STATEMENT_TIMEOUT_MS
    workers = settings.ANONYMOUS_PARALLEL_WORKERS
    return (
        f"{int(timeout)}ms" if timeout else None,
        None if workers is None else str(int(workers)),
    )


class AnonymousSessionLimitsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if connection.vendor != "postgresql" or request.path in HEALTH_CHECKS:
            return self.get_response(request)
        wanted = DEFAULT if request.user.is_authenticated else anonymous_limits()
        # Set just before the request's first statement: a request that needs no database
        # (a cached page, an outage answer) never opens a connection for it.
        with connection.execute_wrapper(partial(set_before_first_statement, wanted)):
            return self.get_response(request)


def set_before_first_statement(wanted, execute, sql, params, many, context):
    if getattr(connection, STATE, None) != wanted:
        setattr(connection, STATE, wanted)  # the SET below passes through here too
        try:
            with connection.cursor() as cursor:
                # set_config(name, NULL, false) resets the setting to the server's default.
                cursor.execute(
                    "SELECT " + ", ".join(f"set_config('{name}', %s, false)" for name in SETTINGS),
                    list(wanted),
                )
        except Exception:
            setattr(connection, STATE, None)
            raise
    return execute(sql, params, many, context)
