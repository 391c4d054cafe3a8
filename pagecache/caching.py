"""A shared cache of whole anonymous responses (public pages and the read-only API), made stale
at once by a content "generation" number that moves whenever publishing announces a change
readers may see (`publishing.signals.content_changed`: saves, deletes and m2m changes of
editorial rows, bulk publish/unpublish, `manage.py publish_scheduled`); drafts and scheduled
rows that stay out of public view announce nothing, and never reach the cache (a draft preview
is `private, no-store`).

The middleware sits right after the security, CSP and outage middleware, which still run on a
cached answer and add their headers afresh; a hit skips sessions, CSRF, authentication,
messages, history, axes and the API's throttles (their headers, Vary and X-Frame-Options, are
kept). A request with a session cookie or an Authorization header never uses the cache. Stored:
status 200 answers to anonymous GETs only, without cookies and without `private`/`no-store`;
served to anonymous GETs and HEADs. A hit is one round trip (an MGET of the generation and the
entry); an entry rendered at an older generation is a miss, rendered afresh and stored again.

The key is the scheme and validated host (absolute URLs in API answers follow them; a request
for a host outside ALLOWED_HOSTS never reaches the cache), the path, the query parameters the
view reads (`query_parameters()`: a request that also carries others, such as `utm_source`, is
served the entry of the same request without them, and when there is none is answered by the
view but not stored, so made-up parameters add no entries and never reach another client's
links), and the `Accept` variant (all of it under /api/, where the browsable API is another
representation; the representation a negotiating page chooses). Pages declare their parameters
with `@reads_query(...)`; API views' parameters come from apikit (`set_api_view_parameters`,
called by apikit's AppConfig). A view whose parameters are not known is not cached when it has
a query string. One client (`client_address()`) may add at most PAGE_CACHE_STORES_PER_MINUTE
entries a minute; beyond that its misses are answered uncached.

Redis must evict under memory pressure (`maxmemory` with `allkeys-lru`): entries are
disposable. The generation must be seen by every process that can change the content: with
Redis (`REDIS_URL`) it lives in Redis; with local memory it lives in a file named after the
database (the mtime of `db.sqlite3.page-generation` beside a SQLite file,
`$TMPDIR/rlscaling-page-generation-<hash>` for PostgreSQL), so runserver, a shell, a management
command or a task worker on this machine invalidate each other's pages at once. Only an
in-memory SQLite database (the tests), which no other process can change, keeps it in the
process. Every `manage.py` command but publish_scheduled bumps it when it ends (manage.py), for
what no signal announces: update(), raw SQL, flush, a data migration. `PAGE_CACHE_SECONDS`
(default 300) bounds how long a page can miss a change nothing announces.
"""

import contextlib
import functools
import hashlib
import logging
import os
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import DisallowedHost
from django.db import connection, transaction
from django.http import HttpResponse
from django.urls import Resolver404, get_urlconf, resolve
from django.utils.cache import get_conditional_response
from django.utils.http import parse_http_date_safe

from core.client_address import client_address
from core.middleware import CACHE_ERRORS
from pagecache.backend import count_in_window
from publishing.signals import content_changed

logger = logging.getLogger(__name__)

GENERATION_KEY = "page-cache:generation"
KEY_PREFIX = "page-cache:v2"
SAFE_METHODS = {"GET", "HEAD"}
# Headers the view sets that belong to the representation; everything else is added afresh by
# the middleware above on every answer (CSP, HSTS, X-Frame-Options, Vary: Cookie, ...).
KEPT_HEADERS = (
    "Content-Type",
    "Content-Language",
    "Content-Disposition",
    "ETag",
    "Last-Modified",
    "Allow",
    "Vary",
    "Link",
    "X-Frame-Options",
    "Content-Length",
)
# `no-cache` stays cacheable here: it tells clients and proxies to revalidate with the origin,
# and this cache is part of the origin (invalidated on every save).
UNCACHEABLE_DIRECTIVES = ("private", "no-store")


# Longer query strings are never cached (no view reads anything that long).
MAX_CACHED_QUERY_LENGTH = 512


def page_cache_seconds():
    """PAGE_CACHE_SECONDS (0: do not store): how long an entry may miss a change nothing
    announced; an announced change makes it stale at once."""
    return max(getattr(settings, "PAGE_CACHE_SECONDS", 300), 0)


def excluded_prefixes():
    return (
        f"/{settings.ADMIN_URL}",
        "/healthz",
        "/readyz",
        "/api/v1/auth/",
        "/static/",
    )


# -- the generation ---------------------------------------------------------------------------


def generation_file():
    """The file that holds the generation when the cache is local memory (see the module
    docstring); None when the cache itself is shared, or the database is in-memory SQLite."""
    if not isinstance(caches["default"], LocMemCache):
        return None
    database = connection.settings_dict
    name = str(database["NAME"])
    if database["ENGINE"].endswith("sqlite3") and (name == ":memory:" or "mode=memory" in name):
        return None
    if database["ENGINE"].endswith("sqlite3"):
        return Path(f"{name}.page-generation")  # beside the database file, gone with it
    identity = "|".join(str(database.get(key) or "") for key in ("ENGINE", "HOST", "PORT"))
    digest = hashlib.sha256(f"{identity}|{name}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"rlscaling-page-generation-{digest}"


def stored_generation():
    """The current generation, or None when none was stored yet (never creates one)."""
    path = generation_file()
    if path is not None:
        with contextlib.suppress(OSError):  # missing or unreadable: the cache's, if any
            return path.stat().st_mtime_ns
    return cache.get(GENERATION_KEY)


def current_generation():
    """The current generation, started (as by a change) when none was stored yet."""
    generation = stored_generation()
    if generation is None:
        if generation_file() is None:
            cache.add(GENERATION_KEY, time.time_ns(), None)  # concurrent starters agree
        else:
            bump_generation()
        generation = stored_generation()
    return generation


def bump_generation():
    """Make every cached page stale at once (the old entries then age out by their TTL)."""
    now = time.time_ns()
    path = generation_file()
    if path is not None:
        try:
            path.touch()
            os.utime(path, ns=(now, now))
            return
        except OSError as error:
            logger.warning("Page cache: could not bump the generation in %s (%s)", path, error)
    try:
        cache.set(GENERATION_KEY, now, None)
    except CACHE_ERRORS:
        logger.warning("Page cache: could not bump the generation (cache unreachable)")


def announced_change(sender, withdrawal=False, **kwargs):
    """Publishing announced a change readers may see: every cached page is stale. When
    something left public view, again once committed: a page rendered meanwhile, from what
    was still committed, still showed it."""
    bump_generation()
    if withdrawal:
        transaction.on_commit(bump_generation)


def connect_signals():
    content_changed.connect(announced_change, dispatch_uid="pagecache.caching.announced_change")


# -- the middleware ---------------------------------------------------------------------------


def reads_query(*sources):
    """Declare the query parameters a public page reads, beside the view: names, Form classes
    or FilterSet classes. The page cache keys a page on these and ignores every other parameter
    (`utm_source`, made-up ones); a page that declares nothing is cached only without a query
    string (tests/security/test_page_cache_keys.py checks every public URL declares)."""

    def decorator(view):
        @functools.wraps(view)
        def declared_view(*args, **kwargs):
            return view(*args, **kwargs)

        declared_view.query_parameters = frozenset().union(*map(source_parameters, sources))
        return declared_view

    return decorator


def source_parameters(source):
    if isinstance(source, str):
        return {source}
    if hasattr(source, "base_filters"):
        return filterset_parameters(source)
    return set(source.base_fields)  # a Form class


def filterset_parameters(filterset_class):
    """The query parameter names a django-filter FilterSet reads (range filters read
    `<name>_<suffix>`); apikit/params.py reads them from here too."""
    names = set()
    for name, declared in filterset_class.base_filters.items():
        # The field's class, never `declared.field`: building the field would evaluate (and
        # keep, for every later request) a queryset chosen without a request.
        suffixes = getattr(declared.field_class.widget, "suffixes", None)
        if suffixes:
            names.update(f"{name}_{suffix}" if suffix else name for suffix in suffixes)
        else:
            names.add(name)
    return names


# (view class, actions) -> the query parameter names an API view reads on a GET; set by the
# API layer above (apikit/apps.py), so the cache keys API answers by the same list the API
# refuses any other parameter by, without importing it.
_api_view_parameters = None


def set_api_view_parameters(function):
    global _api_view_parameters
    _api_view_parameters = function


def api_view_parameters(view_class, actions):
    """The query parameters an API view reads on a GET, or None when nobody said."""
    return None if _api_view_parameters is None else _api_view_parameters(view_class, actions)


@functools.lru_cache(maxsize=1024)
def resolved_view(path_info, urlconf):
    """The view function `path_info` resolves to under `urlconf`, or None. Kept per process
    because a hit asks once or twice, and resolving was about a third of a hit's own work
    besides the round trip to the cache (docs/decisions/0024); it depends on the URL patterns
    alone, which are fixed while the process runs (the URLconf is part of the key, for tests
    that swap it)."""
    try:
        return resolve(path_info, urlconf).func
    except Resolver404:
        return None


def view_for(request):
    return resolved_view(request.path_info, get_urlconf() or settings.ROOT_URLCONF)


def query_parameters(request):
    """The query parameter names the view for `request` reads, or None when unknown."""
    view = view_for(request)
    if view is None:
        return None
    view_class = getattr(view, "cls", None)
    if view_class is not None:
        actions = getattr(view, "actions", None)
        return api_view_parameters(view_class, tuple(sorted((actions or {}).items())) or None)
    return getattr(view, "query_parameters", None)


def normalise_query(request):
    """The request's query reduced to the parameters the view reads, in a stable order: the
    cache key's query. None when the request must not use the cache (a view whose parameters
    are not known, or an overlong query string)."""
    raw = request.META.get("QUERY_STRING", "")
    if not raw:
        return ""
    if len(raw) > MAX_CACHED_QUERY_LENGTH:
        return None
    names = query_parameters(request)
    if names is None:
        return None
    pairs = parse_qsl(raw, keep_blank_values=True)
    if request.path.startswith("/api/") and any(name not in names for name, _ in pairs):
        return None  # the API refuses parameters it does not read (a 400), never from cache
    return urlencode(sorted(pair for pair in pairs if pair[0] in names))


def is_normal_query(request, query):
    """Whether the request carries exactly the normalised query (nothing the view ignores).
    Only such answers are stored: one with `?utm_source=x` may repeat it in its links."""
    raw = request.META.get("QUERY_STRING", "")
    return urlencode(sorted(parse_qsl(raw, keep_blank_values=True))) == query


def accept_variant(request):
    """What the key holds of the Accept header: all of it under /api/; for a page that
    negotiates its representation (`accept_variant` on the view, e.g. a paper's URL), the
    representation it chooses (browsers send many spellings of "HTML"); "" elsewhere."""
    if request.path.startswith("/api/"):
        return request.headers.get("Accept", "")
    choose = getattr(view_for(request), "accept_variant", None)
    return choose(request) if choose else ""


def cache_key(request, query=None):
    if query is None:
        query = urlencode(sorted(parse_qsl(request.META.get("QUERY_STRING", ""), True)))
    parts = [request.scheme, request.get_host(), request.path, query]
    if variant := accept_variant(request):
        parts.append(variant)
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return f"{KEY_PREFIX}:{digest}"


def may_store(request):
    """Whether this client may still add an entry this minute (PAGE_CACHE_STORES_PER_MINUTE):
    one round trip on Redis."""
    limit = getattr(settings, "PAGE_CACHE_STORES_PER_MINUTE", 120)
    count, _ = count_in_window(cache, f"page-cache:stores:{client_address(request)}", 60)
    return count <= limit


def is_cacheable_request(request):
    """An anonymous GET or HEAD: no credentials of any kind. A session cookie may belong to a
    signed-in editor, so it bypasses the cache without asking the session store."""
    return (
        request.method in SAFE_METHODS
        and "Authorization" not in request.headers
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and not request.path.startswith(excluded_prefixes())
    )


def is_cacheable_response(request, response):
    cache_control = response.get("Cache-Control", "").lower()
    return (
        request.method == "GET"
        and response.status_code == 200
        and not response.streaming
        # One oversized answer, stored once per filter variant, would fill the cache.
        and len(response.content) <= settings.PAGE_CACHE_MAX_ENTRY_BYTES
        and not response.cookies
        # The CSRF middleware (outside this one) would set a cookie for this page.
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not any(directive in cache_control for directive in UNCACHEABLE_DIRECTIVES)
    )


def keys_its_variants(request, response):
    """An answer that varies by Accept is stored only when the key holds the Accept variant:
    else a browser's cached HTML would answer a client asking for BibTeX."""
    varies = {name.strip().lower() for name in response.get("Vary", "").split(",")}
    keyed = request.path.startswith("/api/") or bool(accept_variant(request))
    return "accept" not in varies or keyed


def freeze(response, generation):
    """The stored entry: the generation it was rendered at, and the answer."""
    headers = [(name, response[name]) for name in KEPT_HEADERS if response.has_header(name)]
    return (generation, response.status_code, headers, response.content)


def thaw(request, entry, state="hit"):
    _, status, headers, content = entry
    response = HttpResponse(content, status=status)
    for name, value in headers:
        response[name] = value
    response["X-Page-Cache"] = state
    # The API answers If-None-Match / If-Modified-Since with a 304; so does a cached copy.
    return get_conditional_response(
        request,
        etag=response.get("ETag"),
        last_modified=parse_http_date_safe(response.get("Last-Modified", "")),
        response=response,
    )


def look_up(key):
    """(the current generation, the entry under `key` or None): one round trip (MGET) when the
    generation lives in the cache."""
    if generation_file() is None:
        values = cache.get_many([GENERATION_KEY, key])
        if GENERATION_KEY in values:
            return values[GENERATION_KEY], values.get(key)
    return current_generation(), cache.get(key)


class PageCacheMiddleware:
    """Serve anonymous GET/HEAD answers from the shared cache; store cacheable ones.

    A cached API answer skips the API's throttles: they count the misses, which are what
    costs (DRF's throttles run in the view). A hit costs about what /healthz does."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_cacheable_request(request):
            return self.get_response(request)
        try:
            request.get_host()
        except DisallowedHost:
            return self.get_response(request)  # CommonMiddleware answers 400
        query = normalise_query(request)
        if query is None:
            return self.get_response(request)
        try:
            key = cache_key(request, query)
            generation, entry = look_up(key)
        except CACHE_ERRORS:
            logger.warning(
                "Page cache unreachable; serving %s uncached",
                request.path,
                extra={"request": request},
            )
            return self.get_response(request)
        if entry is not None and entry[0] == generation:
            return thaw(request, entry)
        response = self.get_response(request)
        self.store(request, response, key, query, generation)
        return response

    def store(self, request, response, key, query, generation):
        try:
            if is_cacheable_response(request, response) and keys_its_variants(request, response):
                seconds = page_cache_seconds()
                if seconds and is_normal_query(request, query) and may_store(request):
                    cache.set(key, freeze(response, generation), seconds)
        except CACHE_ERRORS:
            logger.warning(
                "Page cache unreachable; %s not stored",
                request.path,
                extra={"request": request},
            )
