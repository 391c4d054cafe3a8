"""The production posture, checked on real responses from a process started with
DJANGO_ENV=production (settings.py's production branch, not a copy of it in the test)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

# A production server in a subprocess (about 15 s, most of it migrating a scratch database):
# the slow step, with the other subprocess servers; once, on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("production-probe")]

ROOT = Path(__file__).resolve().parents[2]

# Runs inside the production process: a migrated scratch SQLite file, one staff user, then a
# page, the admin login page (CSRF cookie) and a login (session cookie), all over HTTPS.
PROBE = r"""
import json, sys, types, django
django.setup()
from django.urls import include, path
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings
from django.test.utils import setup_test_environment

setup_test_environment()
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
get_user_model().objects.create_user("probe", password="a-long-probe-password", is_staff=True)

def describe(response):
    cookies = {
        name: {"secure": bool(morsel["secure"]), "httponly": bool(morsel["httponly"]),
               "samesite": morsel["samesite"]}
        for name, morsel in response.cookies.items()
    }
    return {"status": response.status_code, "headers": dict(response.headers), "cookies": cookies}

def broken_view(request):
    raise ValueError("secret internals: /etc/passwd")

probe_urls = types.ModuleType("probe_urls")
probe_urls.urlpatterns = [path("broken/", broken_view), path("", include("rlscaling.urls"))]
probe_urls.handler500 = "core.middleware.handler500"
sys.modules["probe_urls"] = probe_urls

# Hashed static files need collectstatic; the storage is the one thing not under test here.
with override_settings(STORAGES={**settings.STORAGES, "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}):
    with override_settings(ROOT_URLCONF="probe_urls"):
        response = Client(raise_request_exception=False).get(
            "/broken/", secure=True, HTTP_HOST="rlscaling.example.org")
        broken = describe(response) | {"body": response.content.decode()}
    client = Client(HTTP_HOST="rlscaling.example.org")
    admin_login = "/" + settings.ADMIN_URL + "login/"
    result = {
        "debug": settings.DEBUG,
        "plain_http": describe(client.get("/")),
        "page": describe(client.get("/", secure=True)),
        "admin_login": describe(client.get(admin_login, secure=True)),
        "login": describe(client.post(
            admin_login, {"username": "probe", "password": "a-long-probe-password"},
            secure=True, HTTP_REFERER="https://rlscaling.example.org" + admin_login)),
        "missing": describe(client.get("/no-such-page/", secure=True)),
        "broken": broken,
        "session_cookie_httponly": settings.SESSION_COOKIE_HTTPONLY,
    }
print("PROBE-RESULT " + json.dumps(result))
"""


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    database = tmp_path_factory.mktemp("production") / "probe.sqlite3"
    env = {
        **os.environ,
        "DJANGO_ENV": "production",
        "SECRET_KEY": "test-security-headers-" + "x" * 50,
        "ALLOWED_HOSTS": "rlscaling.example.org",
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_SETTINGS_MODULE": "rlscaling.settings",
        "LOG_LEVEL": "CRITICAL",
    }
    for name in ["DEBUG", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "REDIS_URL"]:
        env.pop(name, None)
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    line = next(x for x in completed.stdout.splitlines() if x.startswith("PROBE-RESULT "))
    return json.loads(line.removeprefix("PROBE-RESULT "))


def test_debug_is_off_in_production(production):
    assert production["debug"] is False


def test_plain_http_is_redirected_to_https(production):
    assert production["plain_http"]["status"] == 301
    assert production["plain_http"]["headers"]["Location"].startswith("https://")


def test_a_page_carries_the_security_headers(production):
    page = production["page"]
    assert page["status"] == 200
    headers = page["headers"]
    hsts = headers["Strict-Transport-Security"]
    assert "max-age=31536000" in hsts
    assert "includeSubDomains" in hsts
    assert "preload" in hsts
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert headers["Cross-Origin-Resource-Policy"] == "same-origin"
    assert "camera=()" in headers["Permissions-Policy"]
    assert "geolocation=()" in headers["Permissions-Policy"]
    assert "no-cache" in headers["Cache-Control"]


def test_a_page_carries_a_strict_content_security_policy(production):
    policy = production["page"]["headers"]["Content-Security-Policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    for directive in ["script-src", "style-src"]:
        sources = directives[directive]
        assert "'unsafe-inline'" not in sources, directive
        assert "'unsafe-eval'" not in sources, directive
        assert all(s == "'self'" or s.startswith("'nonce-") for s in sources), sources


def test_cookies_are_secure_and_httponly(production):
    csrf = production["admin_login"]["cookies"]["csrftoken"]
    assert csrf["secure"] and csrf["httponly"]
    login = production["login"]
    assert login["status"] == 302  # logged in
    session = login["cookies"][settings.SESSION_COOKIE_NAME]
    assert session["secure"] and session["httponly"]
    assert session["samesite"] == "Lax"


def test_the_admin_login_page_is_framed_by_nobody(production):
    headers = production["admin_login"]["headers"]
    assert headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]


def test_an_error_page_shows_no_debug_information(production):
    missing = production["missing"]
    assert missing["status"] == 404
    assert "Content-Security-Policy" in missing["headers"]


def test_a_server_error_shows_no_traceback(production):
    broken = production["broken"]
    assert broken["status"] == 500
    for leak in ["Traceback", "secret internals", "ValueError", "broken_view", "site-packages"]:
        assert leak not in broken["body"]


def test_check_deploy_passes_with_production_settings():
    env = {
        **os.environ,
        "DJANGO_ENV": "production",
        "SECRET_KEY": "check-deploy-" + "y" * 50,
        "ALLOWED_HOSTS": "rlscaling.example.org",
    }
    env.pop("DEBUG", None)
    completed = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_production_refuses_to_start_without_a_secret_key():
    env = {**os.environ, "DJANGO_ENV": "production", "ALLOWED_HOSTS": "rlscaling.example.org"}
    env.pop("SECRET_KEY", None)
    completed = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode != 0
    assert "SECRET_KEY must be set" in completed.stderr
