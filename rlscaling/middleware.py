"""Readers see a styled 503 page, and API clients a JSON 503, while the database (or the Redis
cache) is away; and the error handlers Django calls outside views (400, 403, 404, 500) answer
API clients with the API's error body."""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.views import defaults
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from rlscaling.api.errors import error_response

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


def is_api(request):
    return request.path.startswith(API_PREFIX)


def api_error(status_code, code, detail):
    """The API's error body, rendered here: these answers never pass through a DRF view."""
    return error_response(status_code, code, detail).render()


def service_unavailable(request, error=None):
    """The 503 answer for a request that needed the database (or cache) while it was away."""
    service = "cache" if isinstance(error, CACHE_ERRORS) else "database"
    if is_api(request):
        response = api_error(
            503,
            "service_unavailable",
            f"Service temporarily unavailable: the {service} cannot be reached.",
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
    if is_api(request):
        return api_error(500, "server_error", "Internal server error.")
    return defaults.server_error(request, template_name=template_name)


# Django's own 400, 403 and 404 (a bad Host header, an oversized body, a path no API route
# matches) reach clients of the API in the API's body too.


def handler400(request, exception, template_name="400.html"):
    if is_api(request):
        return api_error(400, "bad_request", "Bad request.")
    return defaults.bad_request(request, exception, template_name=template_name)


def handler403(request, exception, template_name="403.html"):
    if is_api(request):
        return api_error(403, "permission_denied", "You may not do this.")
    return defaults.permission_denied(request, exception, template_name=template_name)


def handler404(request, exception, template_name="404.html"):
    if is_api(request):
        return api_error(404, "not_found", "No API endpoint at this address.")
    return defaults.page_not_found(request, exception, template_name=template_name)
