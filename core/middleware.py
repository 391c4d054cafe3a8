"""Readers see a styled 503 page, and API clients a JSON 503, while the database (or the Redis
cache) is away; and the error handlers Django calls outside views (400, 403, 404, 500) answer
API clients with the API's error body."""

import html
import logging
import re
import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import defaults
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


def is_api(request):
    return request.path.startswith(API_PREFIX)


def error_body(status_code, code, detail, errors=None):
    """The API's one error body (apikit/errors.py builds every API error from it)."""
    return {"status": status_code, "code": code, "detail": str(detail), "errors": errors or {}}


def api_error(status_code, code, detail):
    """The API's error body as plain JSON: these answers never pass through a DRF view."""
    return JsonResponse(error_body(status_code, code, detail), status=status_code)


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


# C0 controls other than tab and newlines, and DEL: no query parameter of the site means
# anything with one, and PostgreSQL refuses a NUL in any bound string (a 500 on a reader's page).
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def control_character_errors(request):
    """{parameter: [message]} for each query parameter whose name or value holds a control
    character; the path itself counts as one ("path")."""
    errors = {}
    if CONTROL_CHARACTERS.search(request.path_info):
        errors["path"] = ["The address contains a control character."]
    for name, values in request.GET.lists():
        if CONTROL_CHARACTERS.search(name) or any(CONTROL_CHARACTERS.search(v) for v in values):
            label = CONTROL_CHARACTERS.sub("\N{REPLACEMENT CHARACTER}", name)
            errors[label] = ["Control characters (such as NUL) are not accepted here."]
    return errors


def bad_query(request, errors):
    detail = "Invalid query parameters: " + ", ".join(sorted(errors)) + "."
    if is_api(request):
        response = JsonResponse(error_body(400, "invalid", detail, errors), status=400)
    else:
        items = "".join(
            f"<li><code>{html.escape(name)}</code>: {html.escape(' '.join(messages))}</li>"
            for name, messages in sorted(errors.items())
        )
        response = HttpResponse(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bad request</title>'
            f"</head><body><main><h1>Bad request</h1><ul>{items}</ul></main></body></html>",
            status=400,
        )
    response["Cache-Control"] = "no-store"
    return response


class RefuseControlCharactersMiddleware:
    """A 400 naming the parameter for a query string (or path) carrying a NUL or another
    control character, before the cache, the session or any view runs a query."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        errors = control_character_errors(request)
        if errors:
            return bad_query(request, errors)
        return self.get_response(request)


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CORS_RESPONSE_HEADERS = (
    "Access-Control-Allow-Origin",
    "Access-Control-Allow-Credentials",
    "Access-Control-Expose-Headers",
    "Access-Control-Allow-Methods",
    "Access-Control-Allow-Headers",
    "Access-Control-Max-Age",
)


class CorsReadsOnlyMiddleware:
    """CORS is for anonymous reads: django-cors-headers allows the origin on any method, and a
    form-encoded cross-origin POST needs no preflight, so a write's (or the token endpoint's)
    answer was readable by any web page. Outside CorsMiddleware, this takes its headers off
    every answer to an unsafe method, except on the paths in CORS_READS_BY_POST_REGEX: reads
    sent by POST with a JSON body (the batch lookup), whose preflight it opens to POST and
    Content-Type."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.reads_by_post = re.compile(settings.CORS_READS_BY_POST_REGEX)

    def __call__(self, request):
        response = self.get_response(request)
        read_by_post = bool(self.reads_by_post.match(request.path_info))
        if request.method not in SAFE_METHODS and not (request.method == "POST" and read_by_post):
            for header in CORS_RESPONSE_HEADERS:
                if header in response:
                    del response[header]
        elif read_by_post and "Access-Control-Allow-Methods" in response:  # its preflight
            response["Access-Control-Allow-Methods"] = ", ".join(
                [*settings.CORS_ALLOW_METHODS, "POST"]
            )
            response["Access-Control-Allow-Headers"] = ", ".join(
                [*settings.CORS_ALLOW_HEADERS, "content-type"]
            )
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
