"""Readers see a styled 503 page, and API clients a JSON 503, while the database (or the Redis
cache) is away."""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.defaults import server_error
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
CACHE_ERRORS = (RedisConnectionError, RedisTimeoutError)  # Django's RedisCache lets these out
UNAVAILABLE_ERRORS = DATABASE_ERRORS + CACHE_ERRORS
RETRY_AFTER_SECONDS = "30"
API_PREFIX = "/api/"

# Used only if even the template cannot be rendered (it never needs the database).
PLAIN_503 = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    "<title>Temporarily unavailable</title></head><body><main><h1>Temporarily unavailable</h1>"
    "<p>The site cannot reach its database. Please try again in a minute.</p></main></body></html>"
)


def service_unavailable(request, error=None):
    """The 503 answer for a request that needed the database (or cache) while it was away."""
    service = "cache" if isinstance(error, CACHE_ERRORS) else "database"
    if request.path.startswith(API_PREFIX):
        response = JsonResponse(
            {"detail": f"Service temporarily unavailable: the {service} cannot be reached."},
            status=503,
        )
    else:
        try:
            # No request, so no context processors: nothing here may touch the database.
            html = render_to_string("503.html", {"SITE_NAME": "RL Scaling"})
        except Exception:
            logger.exception("The 503 template could not be rendered")
            html = PLAIN_503
        response = HttpResponse(html, status=503)
    response["Retry-After"] = RETRY_AFTER_SECONDS
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """Turns database (OperationalError, InterfaceError) and Redis connection errors from a
    view or its template into a 503."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, UNAVAILABLE_ERRORS):
            logger.error("Unavailable on %s: %r", request.path, exception)
            return service_unavailable(request, exception)
        return None


def handler500(request, template_name="500.html"):
    """Django's 500 view, except that outages raised by middleware also become 503s.

    Exceptions raised in middleware (a session save, say) skip ``process_exception``; Django
    then calls this handler while the exception is still being handled, so it is visible here.
    """
    error = sys.exc_info()[1]
    if isinstance(error, UNAVAILABLE_ERRORS):
        return service_unavailable(request, error)
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "Internal server error."}, status=500)
    return server_error(request, template_name=template_name)
