"""Settings for rlscaling, read from the environment.

Development defaults are safe to run on a laptop. ``DJANGO_ENV=production`` switches on the
production posture (no DEBUG, HTTPS-only cookies, HSTS, a required SECRET_KEY).
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DJANGO_ENV = os.environ.get("DJANGO_ENV", "development")
PRODUCTION = DJANGO_ENV == "production"

DEBUG = env_bool("DEBUG", default=not PRODUCTION)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when DJANGO_ENV=production.")
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", default="" if PRODUCTION else "localhost,127.0.0.1,[::1],testserver"
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

SITE_NAME = "RL Scaling"
# Where `make run` serves (HOST, PORT); absolute URLs follow them unless SITE_URL is set.
DEV_HOST = os.environ.get("HOST", "127.0.0.1")
DEV_PORT = os.environ.get("PORT", "8000")
SITE_URL = (
    os.environ.get("SITE_URL")
    or f"http://{'127.0.0.1' if DEV_HOST in ('0.0.0.0', '::', '[::]') else DEV_HOST}:{DEV_PORT}"
).rstrip("/")
ADMIN_URL = os.environ.get("ADMIN_URL", "admin/").strip("/") + "/"

INSTALLED_APPS = [
    "publishing.admin_apps.EditorsAdminConfig",  # django.contrib.admin, the editors' site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "django.contrib.postgres",
    "taggit",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "axes",
    "csp",
    "corsheaders",
    # The task queue (Django's Tasks API backport) and its database backend: large imports.
    "django_tasks",
    "django_tasks_db",
    # Lowest first: the platform every app builds on, then the domain apps, then the site's
    # own pages. import-linter keeps the imports pointing down (pyproject.toml).
    "core",
    "publishing",
    "pagecache",
    "apikit",
    "tags",
    "bottlenecks",
    "citations",
    "notes",
    "results",
    "evidence",
    "discovery",
    "search",
    "web",
]
if not PRODUCTION:
    # Synthetic corpora for tests and benchmarks; never in a production deploy.
    INSTALLED_APPS.append("bench")

# Background tasks (large imports) are rows in the database; `manage.py db_worker` runs them.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
# The public dump (/data/dump/latest.zip): where the archives go, and whether every `migrate`
# makes sure the daily regeneration is queued (web/dump_tasks.py).
DUMP_DIR = Path(os.environ.get("DUMP_DIR") or BASE_DIR / "var" / "dumps")
DUMP_SCHEDULE = env_bool("DUMP_SCHEDULE", default=True)
# The largest one file of a dump `import_dump` unpacks (bytes), checked before it is read.
DUMP_MAX_ENTRY_BYTES = int(os.environ.get("DUMP_MAX_ENTRY_BYTES", str(2 * 1024**3)))

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Permissions-Policy, Cross-Origin-Resource-Policy, Cache-Control on HTML.
    "core.security_headers.SecurityHeadersMiddleware",
    # CORS for anonymous API reads (CORS_* below); before anything that answers on its own.
    # The first takes CORS headers off every unsafe method's answer.
    "core.middleware.CorsReadsOnlyMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    # A NUL or other control character in the query string or path is a 400, before any query.
    "core.middleware.RefuseControlCharactersMiddleware",
    # A database outage becomes a styled 503 (JSON under /api/), never a traceback.
    "core.middleware.DatabaseUnavailableMiddleware",
    # X-RateLimit-* on throttled API answers, cached ones included; Retry-After on every 429.
    "apikit.throttles.RateLimitHeadersMiddleware",
    # Anonymous answers from the shared cache (pagecache/caching.py): a hit skips the rest.
    "pagecache.caching.PageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # PostgreSQL: anonymous requests run under ANONYMOUS_STATEMENT_TIMEOUT_MS and
    # ANONYMOUS_PARALLEL_WORKERS (below).
    "core.session_limits.AnonymousSessionLimitsMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Axes must come last: it reads the result of authentication.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "rlscaling.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "core.context_processors.site",
            ],
        },
    },
]

WSGI_APPLICATION = "rlscaling.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        # Re-check a persistent connection before use, so workers recover after a DB restart.
        conn_health_checks=True,
    )
}
# The longest one SQL statement of an anonymous request may run on PostgreSQL before it is
# cancelled (a 503); 0 turns it off. Editors' requests keep the server's default.
ANONYMOUS_STATEMENT_TIMEOUT_MS = int(os.environ.get("ANONYMOUS_STATEMENT_TIMEOUT_MS", "3000"))
# PostgreSQL's max_parallel_workers_per_gather for anonymous requests: 0, because starting a
# parallel plan's workers costs more than the few rows a page reads, and under load they take
# CPUs from other requests. Empty: the server's default (editors always keep it).
_parallel_workers = os.environ.get("ANONYMOUS_PARALLEL_WORKERS", "0").strip()
ANONYMOUS_PARALLEL_WORKERS = int(_parallel_workers) if _parallel_workers else None

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 3
    # No JIT compilation: it pays off only for queries of seconds, and compiling the plan of a
    # page's sorted window took longer than running it (docs/decisions/0022). An `options`
    # given in DATABASE_URL replaces this one.
    DATABASES["default"]["OPTIONS"].setdefault("options", "-c jit=off")
else:
    # A covering index's INCLUDE columns are a PostgreSQL speed-up; SQLite builds the index
    # without them, which is all the development database needs.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# Each process's own memory: the throttles count here while Redis is unreachable.
LOCAL_CACHE = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "local"}
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's RedisCache with a circuit breaker (pagecache/backend.py): a Redis
            # that is down or never answers costs one short timeout, then is skipped.
            "BACKEND": "pagecache.backend.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "rlscaling"),
            "TIMEOUT": 300,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
        },
        "local": LOCAL_CACHE,
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "rlscaling",
        },
        "local": LOCAL_CACHE,
    }
CACHE_RETRY_SECONDS = int(os.environ.get("CACHE_RETRY_SECONDS", "5"))
# Whole anonymous pages and API answers (pagecache/caching.py); a change publishing announces
# makes them stale at once; this bounds how long one can miss a change nothing announced.
PAGE_CACHE_SECONDS = int(os.environ.get("PAGE_CACHE_SECONDS", "300"))
# How many new pages one client may add to the cache a minute (its other misses go uncached).
PAGE_CACHE_STORES_PER_MINUTE = int(os.environ.get("PAGE_CACHE_STORES_PER_MINUTE", "120"))
# The largest answer the page cache stores (bytes): the demo's largest page (a hub) is 73 KB;
# a bigger one is served uncached rather than kept once per filter variant.
PAGE_CACHE_MAX_ENTRY_BYTES = int(os.environ.get("PAGE_CACHE_MAX_ENTRY_BYTES", str(2 * 1024 * 1024)))
# Readers' correction suggestions (citations/corrections/views.py): sends per client address
# and hour, and the least time between showing the form and sending it (robots are quicker).
CORRECTION_SUGGESTIONS_PER_HOUR = 5
CORRECTION_FORM_MIN_SECONDS = 3
# A form's token is single use, for its edge, and expires after this long.
CORRECTION_FORM_MAX_SECONDS = 3600
# Sends per hour from all addresses together: the editors' queue, not one address, is bounded.
CORRECTION_SUGGESTIONS_PER_HOUR_TOTAL = 60

# Reverse proxies in front of the app servers that append to X-Forwarded-For. 0 (default):
# the header is ignored and the client is the socket peer. One rule for the throttles, axes,
# the page cache's per-client limit and logs: core/client_address.py.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 1  # hours
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "core.client_address.axes_client_address"
AXES_USERNAME_CALLABLE = "core.login.axes_username"
# A login whose `next=` is refused (another site) lands on the admin index.
LOGIN_REDIRECT_URL = "admin:index"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic writes; the benchmark points it at a temporary directory.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

TAGGIT_CASE_INSENSITIVE = True

REST_FRAMEWORK = {
    # Token first, so a request without credentials gets 401 with `WWW-Authenticate: Token`.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "apikit.schema.ApiSchema",
    # JSON bounded in size (DATA_UPLOAD_MAX_MEMORY_SIZE) and nesting: apikit/parsers.py.
    "DEFAULT_PARSER_CLASSES": [
        "apikit.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "apikit.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "apikit.throttles.AnonRateThrottle",
        "apikit.throttles.UserRateThrottle",
    ],
    # Informational: the throttles take the client from core/client_address.py.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_THROTTLE_ANON", "1000/hour"),
        "user": os.environ.get("API_THROTTLE_USER", "10000/hour"),
        "token": os.environ.get("API_THROTTLE_TOKEN", "20/minute"),
        # POST /api/v1/papers/batch: up to 500 papers a call.
        "batch": os.environ.get("API_THROTTLE_BATCH", "60/minute"),
    },
}

# CORS (django-cors-headers): any origin may read the API from a browser, anonymously. Only
# GET/HEAD/OPTIONS pass a preflight, no credentials are allowed (no cookies, and no
# Authorization header may be sent), so nothing cross-origin can write or act as an editor.
# Not the token endpoint: it answers no cross-origin request (apikit/auth.py refuses them).
# The files other tools read are open too: exports (.bib, .ris, CSL .json, .jsonld), Atom feeds
# and the public dump; the HTML pages stay same-origin.
CORS_URLS_REGEX = (
    r"^/(?:api/(?!v1/auth/).*"
    r"|(?!api/).*\.(?:bib|ris|json|jsonld|atom)"
    r"|data/dump/.*)$"
)
# Reads sent by POST with a JSON body: their preflight allows POST and Content-Type, and their
# answers keep the CORS headers (core.middleware.CorsReadsOnlyMiddleware).
CORS_READS_BY_POST_REGEX = r"^/api/v1/papers/batch/?$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_ALLOW_HEADERS = ["accept", "accept-language", "if-none-match", "if-modified-since"]
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Link",
    "Location",
    "Retry-After",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
]

SPECTACULAR_SETTINGS = {
    "TITLE": "RL Scaling API",
    "DESCRIPTION": "Papers, citation edges, research notes and the bottleneck framework. "
    "What changed, release by release, and the deprecation policy: [/about/api/](/about/api/) "
    "(JSON: /api/v1/changelog/). Every list and detail takes `fields`/`omit`; papers and "
    "citations take `group_by`; `/api/v1/papers/arxiv:<id>/` and `/api/v1/papers/doi:<doi>/` "
    "redirect (302) to the paper; unknown query parameters are a 400.",
    # The newest release in apikit/changelog.py.
    "VERSION": "1.8.0",
    # The data's licence, as the public dump's LICENSE.txt states it (web/dump.py).
    "LICENSE": {
        "name": "CC BY 4.0 (the data; titles, abstracts and author names identify third-party "
        "works)",
        "url": "https://creativecommons.org/licenses/by/4.0/",
    },
    # Relative: the API is on the host that served the schema.
    "SERVERS": [{"url": "/", "description": "This site"}],
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    # Separate request and response components, so read-only fields never appear as inputs.
    "COMPONENT_SPLIT_REQUEST": True,
    # A paper's and a claim's date precision are one choice set: one name in the schema.
    "ENUM_NAME_OVERRIDES": {"DatePrecisionEnum": "citations.dates.DatePrecision"},
}

# Content-Security-Policy (django-csp 4): nothing inline, nothing from another origin.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        # No nonce: the only inline <script> is JSON-LD, a data block CSP does not govern, and
        # a per-request nonce would keep pages out of the shared page cache.
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_RESOURCE_POLICY = "same-origin"  # core/security_headers.py
SESSION_COOKIE_HTTPONLY = True

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    CSRF_COOKIE_HTTPONLY = True

# One console handler, on the root logger. Django's own "django" logger would print each of
# its lines a second time through its console handler: it gets none and propagates here
# (runserver's request lines keep Django's "django.server" handler, which does not propagate).
LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{levelname} {name} client={client}: {message}", "style": "{"},
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        },
    },
    "filters": {"client_address": {"()": "core.client_address.ClientAddressFilter"}},
    "handlers": {
        # The handler, not only the root logger, holds the level: libraries raise their own
        # loggers to INFO (db_worker at verbosity 1, runserver's reloader), and their records
        # would otherwise reach the console whatever LOG_LEVEL says.
        "console": {
            "class": "logging.StreamHandler",
            "level": LOG_LEVEL,
            "formatter": "plain",
            "filters": ["client_address"],
        },
        "django.server": {"class": "logging.StreamHandler", "formatter": "django.server"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
    },
}
