"""A shared cache of whole anonymous responses (public pages and the read-only API), invalidated
by a content "generation" number that every editorial save, delete or m2m change bumps
(except those of a draft or scheduled row that stays out of public view, and of the
admin's bookkeeping, `shown_to_readers()`).

The middleware sits right after the security, CSP and outage middleware, which still run on a
cached answer and add their headers afresh; a hit skips sessions, CSRF, authentication,
messages, history and axes (their headers, Vary and X-Frame-Options, are kept). A request with
a session cookie or an Authorization header never uses the cache. Stored: status 200 answers
to anonymous GETs only, without cookies and without `private`/`no-store`; served to anonymous
GETs and HEADs. The key is the scheme and validated host (absolute URLs in API answers follow
them; a request for a host outside ALLOWED_HOSTS never reaches the cache), the path, the query
parameters the view reads (`query_parameters()`: a request that also carries others, such as
`utm_source`, is served the entry of the same request without them, and when there is none is
answered by the view but not stored, so made-up parameters add no entries and never reach
another client's links), the
`Accept` header under /api/ (the browsable API is another representation); the entry holds
the generation it was rendered at. After a bump, a request for a stale page renders it afresh
(and sees the change) when it gets one of PAGE_CACHE_REBUILD_SLOTS site-wide rebuild slots
(default 1, held in the cache) and nobody else renders that page; every other request is
served the previous copy (`X-Page-Cache: stale`). One save thus costs the site one rendering
at a time, not a rendering of every warm page at once. The bound: a reader may be served a
copy that misses a change for at most PAGE_CACHE_STALE_SECONDS (default 30) after it (the
"stale window", opened by the first change and not extended by later ones), and past that only
while one request renders that page (at most REBUILD_SECONDS). A withdrawal (a public item
unpublished or deleted by a save, a delete, the querysets' unpublish(), a scheduled change
coming due, a restore or flush) allows no stale copy from before it at all: it is gone from
the next answer. A bulk update() no signal announces is bounded like any change (the editor's
request, or the manage.py command, bumps the generation when it ends). A reader alone (no
other rendering under way) sees a change on the first request. A hit is one round trip
(an MGET of the generation, the entry and the two stale-window keys).
Pages declare their parameters with `@reads_query(...)`; a view whose parameters are not known
is not cached when it has a query string. One client
(`client_address()`) may add at most PAGE_CACHE_STORES_PER_MINUTE entries a minute; beyond
that its misses are answered uncached. Redis must evict under memory pressure
(`maxmemory` with `allkeys-lru`, see the README): entries are disposable. The generation must be
seen by every process that can change the content: with Redis (`REDIS_URL`) it lives in Redis;
with local memory it lives in a file named after the database (the mtime of
`db.sqlite3.page-generation` beside a SQLite file, `$TMPDIR/rlscaling-page-generation-<hash>`
for PostgreSQL), so runserver, a shell, a management command or a
task worker on this machine invalidate each other's pages at once. Only an in-memory SQLite
database (the tests), which no other process can change, keeps it in the process. Saves,
deletes and m2m changes bump it through signals; every `manage.py` command bumps it when it
ends (manage.py), for what no signal announces: update(), raw SQL, flush, a data migration.
`PAGE_CACHE_SECONDS` (default 300) bounds how long a page can miss a change no save
announces; entries never outlive the next scheduled publication change (`page_cache_seconds`).
"""

import contextlib
import contextvars
import datetime
import functools
import hashlib
import logging
import os
import re
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import DisallowedHost, ObjectDoesNotExist
from django.db import connection, transaction
from django.db.models.fields.related_descriptors import ForwardManyToOneDescriptor
from django.db.models.signals import m2m_changed, post_delete, post_init, post_save
from django.http import HttpResponse
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import parse_http_date_safe

from .cache_backend import count_in_window
from .client_address import client_address
from .middleware import CACHE_ERRORS
from .publishing import Publishable, Status
from .publishing.editors import EDITORIAL_APPS
from .publishing.schedule import MISSING, NEXT_CHANGE_KEY, handle_due_changes_if_any
from .publishing.writes import SignalledWrites

logger = logging.getLogger(__name__)

GENERATION_KEY = "page-cache:generation"
KEY_PREFIX = "page-cache:v2"
# How long one request may hold the right to rebuild a stale entry (a worker that dies while
# rendering gives it up after this); meanwhile the others are served the stale copy.
REBUILD_SECONDS = 10
# How long a site-wide rebuild slot may be held: longer than the slowest page takes to render
# under load (gunicorn's default timeout), so a slow rendering never lets a second one start.
REBUILD_SLOT_SECONDS = 30
# The generation current when the stale window opened (expires PAGE_CACHE_STALE_SECONDS after
# the first change it covers): entries rendered at it or later may be served stale meanwhile.
STALE_WINDOW_KEY = "page-cache:stale-window"
# The generation of the last withdrawal (an item leaving public view): no entry rendered
# before it is ever served stale.
NO_STALE_BEFORE_KEY = "page-cache:no-stale-before"
REBUILD_SLOT_KEY = "page-cache:rebuild-slot"
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


def page_cache_seconds(remembered=MISSING):
    """PAGE_CACHE_SECONDS, cut short at the next scheduled publication change (0: do not
    store), so pages switch at the due second (rlscaling/publishing/schedule.py).
    `remembered`: the next change as already read from the cache (`next_change_read`)."""
    from .publishing.schedule import cap_at_next_scheduled_change

    seconds = getattr(settings, "PAGE_CACHE_SECONDS", 300)
    return cap_at_next_scheduled_change(seconds, remembered) if seconds > 0 else 0


_unshared = contextvars.ContextVar("unshared", default=False)


@contextlib.contextmanager
def unshared():
    """Within it, nothing kept per generation below the page cache is read or kept: for what
    readers must not get, such as the preview of a live item's draft revision, which renders
    the draft saved in a transaction rolled back afterwards (its save bumps the generation, so
    what it kept would be served to readers as current)."""
    token = _unshared.set(True)
    try:
        yield
    finally:
        _unshared.reset(token)


def fragment_cache_seconds():
    """FRAGMENT_CACHE_SECONDS: how long what is kept per generation below the page cache (cards,
    fragments, a hub's figures) lives, page cache or not (0: not kept, nor read)."""
    if _unshared.get():
        return 0
    return max(getattr(settings, "FRAGMENT_CACHE_SECONDS", 300), 0)


def stale_seconds():
    """PAGE_CACHE_STALE_SECONDS: how long after a change a reader may still be served a copy
    from before it while the site re-renders its pages a few at a time (0: never)."""
    return max(getattr(settings, "PAGE_CACHE_STALE_SECONDS", 30), 0)


def rebuild_slots():
    """PAGE_CACHE_REBUILD_SLOTS: how many stale pages the whole site re-renders at once
    inside the stale window."""
    return max(getattr(settings, "PAGE_CACHE_REBUILD_SLOTS", 1), 1)


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


_request_generation = contextvars.ContextVar("request_generation", default=None)


def kept_values_generation():
    """The generation that what is kept below the page cache (cards, fragments, a hub's
    figures) is keyed by: in a request the page cache looked up, the one its look-up read (no
    round trip of its own, and what is computed after that read is never older than its key);
    elsewhere the current one."""
    generation = _request_generation.get()
    return current_generation() if generation is None else generation


def bump_generation(withdrawal=False):
    """Make every cached page stale at once (the old entries then age out by their TTL).
    An ordinary change opens the stale window (unless one is open): for PAGE_CACHE_STALE_SECONDS
    the pages rendered before it may still be served while a few requests at a time re-render
    them. A withdrawal (something public leaving public view) closes that to every entry
    rendered before it: its pages are rendered afresh by every request until stored again."""
    now = time.time_ns()
    try:
        if withdrawal:
            cache.set(NO_STALE_BEFORE_KEY, now, max(settings.PAGE_CACHE_SECONDS, 1))
        elif stale_seconds() and (previous := stored_generation()) is not None:
            cache.add(STALE_WINDOW_KEY, previous, stale_seconds())
    except CACHE_ERRORS:
        logger.warning("Page cache: could not record the stale window (cache unreachable)")
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


def is_public(publication, now):
    status, published_at = publication
    if status != Status.PUBLISHED or published_at is None:
        return False
    # A value not yet cleaned to a datetime (a string set before save): assume public.
    return not isinstance(published_at, datetime.datetime) or published_at <= now


def out_of_public_view(instance, created=False):
    """A publishable row that was not public as loaded and is not public now (a draft being
    written, a scheduled item): no public page or API answer shows it, so its saves, deletes
    and m2m changes leave the cache alone; so do the tag rows of such an item, a tag no item
    carries yet, and history rows (the row's own save decides). Anything else (children rows,
    vocabularies, tags) counts as a content change."""
    if getattr(type(instance), "instance_type", None) is not None:  # a simple_history row
        return True
    if created and getattr(instance, "public_paper_count", None) == 0:
        return not instance.public_note_count  # a new tag: shown once a public item has it
    if isinstance(getattr(type(instance), "content_object", None), ForwardManyToOneDescriptor):
        try:
            parent = instance.content_object  # a tag row (citations.TaggedPaper, ...)
        except ObjectDoesNotExist:
            return False
        return isinstance(parent, Publishable) and out_of_public_view(parent)
    if not isinstance(instance, Publishable):
        return False
    now = timezone.now()
    loaded = getattr(instance, "_cache_loaded_publication", None)
    current = (instance.__dict__.get("status"), instance.__dict__.get("published_at"))
    return not is_public(current, now) and (loaded is None or not is_public(loaded, now))


def remember_publication(sender, instance, **kwargs):
    if isinstance(instance, Publishable):
        instance._cache_loaded_publication = (
            instance.__dict__.get("status"),
            instance.__dict__.get("published_at"),
        )


def withdraws(instance, deleted):
    """Whether this save or delete takes a publishable row that was public out of view."""
    if not isinstance(instance, Publishable):
        return False
    now = timezone.now()
    loaded = getattr(instance, "_cache_loaded_publication", None)
    current = (instance.__dict__.get("status"), instance.__dict__.get("published_at"))
    was_public = loaded is None or is_public(loaded, now)
    return was_public and (deleted or not is_public(current, now))


def shown_to_readers(model):
    """Whether rows of `model` can show on a public page or in an API answer: the models of
    the editorial apps, except the admin's bookkeeping (import runs, duplicate scans, merges,
    readers' suggestions, draft revisions, ...), which says `shown_to_readers = False`; their
    writes leave the cache alone (what they lead to, a paper merged or a revision applied, is
    saved through the content models)."""
    return model._meta.app_label in EDITORIAL_APPS and getattr(model, "shown_to_readers", True)


def content_changed(sender, instance=None, created=False, raw=False, signal=None, **kwargs):
    # Fixture loading (raw): related rows may not exist yet; it bumps when it ends.
    if shown_to_readers(sender) and (raw or not out_of_public_view(instance, created)):
        if not raw and withdraws(instance, deleted=signal is post_delete):
            bump_generation(withdrawal=True)
            # Again once committed: a page rendered meanwhile still showed the row.
            transaction.on_commit(functools.partial(bump_generation, withdrawal=True))
        else:
            bump_generation()
    remember_publication(sender, instance)


def m2m_content_changed(sender, instance, action, **kwargs):
    if (
        action.startswith("post_")
        and (shown_to_readers(sender) or shown_to_readers(type(instance)))
        and not out_of_public_view(instance)
    ):
        bump_generation()


def connect_signals():
    post_init.connect(remember_publication, dispatch_uid="rlscaling.caching.post_init")
    post_save.connect(content_changed, dispatch_uid="rlscaling.caching.post_save")
    post_delete.connect(content_changed, dispatch_uid="rlscaling.caching.post_delete")
    m2m_changed.connect(m2m_content_changed, dispatch_uid="rlscaling.caching.m2m_changed")


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
    from .api.params import filterset_parameters

    return filterset_parameters(filterset_class)


def api_view_parameters(view_class, actions):
    """The query parameters an API view reads on a GET (rlscaling/api/params.py: the same list
    the API refuses any other parameter by)."""
    from .api.params import view_query_parameters

    return view_query_parameters(view_class, actions)


def query_parameters(request):
    """The query parameter names the view for `request` reads, or None when unknown."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    view_class = getattr(match.func, "cls", None)
    if view_class is not None:
        actions = getattr(match.func, "actions", None)
        return api_view_parameters(view_class, tuple(sorted((actions or {}).items())) or None)
    return getattr(match.func, "query_parameters", None)


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
    try:
        choose = getattr(resolve(request.path_info).func, "accept_variant", None)
    except Resolver404:
        return ""
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


def look_up(key, window=None):
    """(the current generation, the entry under `key` or None, the stale rules and the next
    scheduled change as stored, or None, and the count of throttle `window` or None): one
    round trip (MGET) when the generation lives in the cache. `window` is (key, seconds) of
    the anonymous API rate: on Redis it is counted in that same round trip
    (`count_in_window`); elsewhere it is left to the throttle."""
    counted = None
    if generation_file() is None:
        keys = [GENERATION_KEY, key, STALE_WINDOW_KEY, NO_STALE_BEFORE_KEY, NEXT_CHANGE_KEY]
        if window is not None and hasattr(cache, "get_many_and_count"):
            values, counted = cache.get_many_and_count(keys, *window)
        else:
            values = cache.get_many(keys)
        if GENERATION_KEY in values:
            return values[GENERATION_KEY], values.get(key), values, counted
    return current_generation(), cache.get(key), None, counted


def claim_rebuild(key, generation):
    """Whether this request is the one that renders a stale entry afresh (the first to ask
    since `generation` began); the others are served the stale copy meanwhile."""
    return cache.add(f"{key}:rebuild:{generation}", 1, REBUILD_SECONDS)


def take_rebuild_slot():
    """One of the PAGE_CACHE_REBUILD_SLOTS site-wide re-rendering slots (its key), or None
    when all are taken. Shared by every app server through the cache."""
    for number in range(rebuild_slots()):
        slot = f"{REBUILD_SLOT_KEY}:{number}"
        if cache.add(slot, 1, REBUILD_SLOT_SECONDS):
            return slot
    return None


def release_rebuild_slot(slot):
    with contextlib.suppress(*CACHE_ERRORS):
        cache.delete(slot)


def handle_stale(key, generation, entry_generation, rules):
    """For an entry rendered before the current generation: ("stale", None) to serve it, or
    (None, slot) to render the page afresh (releasing `slot`, when one was taken, after).

    - Rendered before the last withdrawal: never served (every request renders until one
      stores the page), so nothing taken out of view stays visible.
    - Inside the stale window (PAGE_CACHE_STALE_SECONDS after the first change it misses): a
      request re-renders it only when it gets a site-wide rebuild slot and nobody else renders
      this page; everyone else gets the stale copy. One save thus costs at most
      PAGE_CACHE_REBUILD_SLOTS renderings at a time across the site, not every warm page at once.
    - After the window: the first request renders it; requests arriving during that rendering
      (at most REBUILD_SECONDS) get the stale copy.
    """
    if rules is None:
        rules = cache.get_many([STALE_WINDOW_KEY, NO_STALE_BEFORE_KEY])
    withdrawn_at = rules.get(NO_STALE_BEFORE_KEY)
    if withdrawn_at is not None and entry_generation < withdrawn_at:
        return None, None
    window_floor = rules.get(STALE_WINDOW_KEY)
    if window_floor is not None and entry_generation >= window_floor:
        slot = take_rebuild_slot()
        if slot is None:
            return "stale", None
        if claim_rebuild(key, generation):
            return None, slot
        release_rebuild_slot(slot)
        return "stale", None
    return (None, None) if claim_rebuild(key, generation) else ("stale", None)


def next_change_read(rules):
    """The next scheduled change as `look_up` read it (MISSING: not read, or not stored)."""
    return MISSING if rules is None else rules.get(NEXT_CHANGE_KEY, MISSING)


def throttle_window(request):
    """The anonymous API rate's window for an API request (see `look_up`), else None."""
    if not request.path.startswith("/api/"):
        return None
    from django.contrib.auth.models import AnonymousUser

    from .api.throttles import anonymous_window

    # Before AuthenticationMiddleware (which a hit skips): the request carries no credentials.
    request.user = AnonymousUser()
    return anonymous_window(request)


def api_throttles_allow(request):
    """A cached API answer still counts against the API's default throttles, as the view
    would (the anonymous rate was counted by `look_up`: no further round trip). When one
    refuses, the view answers: its own throttle check refuses too, with the API's 429 body and
    Retry-After, without counting the request again."""
    if not request.path.startswith("/api/"):
        return True
    from rest_framework.settings import api_settings

    return all(
        throttle_class().allow_request(request, None)
        for throttle_class in api_settings.DEFAULT_THROTTLE_CLASSES
    )


class PageCacheMiddleware:
    """Serve anonymous GET/HEAD answers from the shared cache; store cacheable ones."""

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
        slot = None
        try:
            key = cache_key(request, query)
            window = throttle_window(request)
            generation, entry, rules, counted = look_up(key, window)
            if counted is not None:
                request.counted_windows = {window[0]: counted}
            if handle_due_changes_if_any(next_change_read(rules)):
                generation, entry, rules, _ = look_up(key)  # the generation moved on
            request.scheduled_changes_checked = True
            if entry is None:
                state = None
            elif entry[0] == generation:
                state = "hit"
            else:
                state, slot = handle_stale(key, generation, entry[0], rules)
        except CACHE_ERRORS:
            logger.warning(
                "Page cache unreachable; serving %s uncached",
                request.path,
                extra={"request": request},
            )
            return self.get_response(request)
        if state is not None and api_throttles_allow(request):
            return thaw(request, entry, state)
        reading = _request_generation.set(generation)
        try:
            response = self.get_response(request)
            self.store(request, response, key, query, generation, entry, rules)
        finally:
            _request_generation.reset(reading)
            if slot is not None:
                release_rebuild_slot(slot)  # once stored: no second rendering of this page
        return response

    def store(self, request, response, key, query, generation, entry, rules):
        try:
            if is_cacheable_response(request, response) and keys_its_variants(request, response):
                seconds = page_cache_seconds(next_change_read(rules))
                if seconds and is_normal_query(request, query) and may_store(request):
                    cache.set(key, freeze(response, generation), seconds)
            elif entry is not None and entry[0] != generation:
                # The page is gone or changed status (an item unpublished): no stale copy of
                # it may be served to the next requests.
                cache.delete(key)
        except CACHE_ERRORS:
            logger.warning(
                "Page cache unreachable; %s not stored",
                request.path,
                extra={"request": request},
            )


@functools.cache
def editorial_tables():
    from django.apps import apps

    return frozenset(
        model._meta.db_table
        for app_label in EDITORIAL_APPS & apps.app_configs.keys()
        for model in apps.get_app_config(app_label).get_models(include_auto_created=True)
        if shown_to_readers(model)
    )


WRITE_STATEMENT = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?', re.I)


class UnsignalledWriteWatch:
    """A database execute wrapper noting a write to an editorial table outside a signalled
    save, delete or m2m change: a queryset.update(), a bulk_create, raw SQL."""

    def __init__(self):
        self.seen = False

    def __call__(self, execute, sql, params, many, context):
        if not self.seen and not SignalledWrites.open():
            match = WRITE_STATEMENT.match(sql)
            self.seen = bool(match) and match.group(1) in editorial_tables()
        return execute(sql, params, many, context)


class WriteInvalidationMiddleware:
    """A safety net for changes no signal announces (queryset.update() in admin actions, raw
    SQL): a successful unsafe request with credentials (an editor in the admin, a token through
    the API) that wrote an editorial table past the signals bumps the generation when it ends.
    Saves, deletes and m2m changes announce themselves: an editor's draft saved through the
    admin or the API leaves the cache alone, as the signals judge. Anonymous posts cannot flush
    the cache, and neither can signing in or out (a session written, not content)."""

    def __init__(self, get_response):
        self.get_response = get_response
        SignalledWrites.connect()

    def __call__(self, request):
        if request.method in SAFE_METHODS:
            return self.get_response(request)
        user_before = request.user.pk if request.user.is_authenticated else None
        watch = UnsignalledWriteWatch()
        with SignalledWrites.counted(), connection.execute_wrapper(watch):
            response = self.get_response(request)
        user_after = request.user.pk if request.user.is_authenticated else None
        credentials = "Authorization" in request.headers  # a token: never a login
        if (
            watch.seen
            and response.status_code < 400
            and not getattr(request, "reads_only", False)  # e.g. the batch lookup
            and (credentials or (user_after is not None and user_before == user_after))
        ):
            bump_generation()
        return response


# -- values computed once per generation ------------------------------------------------------


def cached_by_generation(key, compute):
    """`compute()`, kept in the cache until the next editorial change (or
    FRAGMENT_CACHE_SECONDS): for figures every page miss would otherwise recount, such as a
    hub's role and polarity counts."""
    seconds = fragment_cache_seconds()
    if not seconds:
        return compute()
    try:
        full_key = f"{key}:{kept_values_generation()}"
        value = cache.get(full_key)
    except CACHE_ERRORS:
        return compute()
    if value is None:
        value = compute()
        with contextlib.suppress(*CACHE_ERRORS):
            cache.set(full_key, value, seconds)
    return value
