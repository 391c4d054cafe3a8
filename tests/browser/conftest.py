"""Headless Chromium (Debian's /usr/bin/chromium, never a downloaded one) against a live server.

Every test module here is marked `browser` and an `xdist_group` of its own ("browser-<module>"):
with `--dist loadgroup` a module's tests run together on one xdist worker, and the modules
spread over the workers (one group for them all kept one worker busy with every browser test
while the others sat idle). Each worker has one live server, started at its first browser
test; its port comes from this suite's range, offset per worker, so parallel workers and runs
on one machine do not collide."""

import os
from pathlib import Path

import pytest
from django.db import connection
from pytest_django.live_server_helper import LiveServer

from tests.helpers import free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def pytest_runtest_setup(item):
    if item.get_closest_marker("browser") and not CHROMIUM.exists():
        pytest.skip("No Chromium at /usr/bin/chromium: install Debian's chromium package.")


@pytest.fixture(scope="session")
def live_server(request, django_db_setup, django_db_blocker):
    """pytest-django's live server, on 127.0.0.1 in this suite's port range (unless
    --liveserver or DJANGO_LIVE_TEST_SERVER_ADDRESS says otherwise); stopped at the end,
    before the test database is dropped (its thread holds a connection to it)."""
    address = request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
    server = LiveServer(address or f"127.0.0.1:{free_port(range(8100, 8200))}")
    yield server
    server.stop()
    end_leftover_sessions(django_db_blocker)


def end_leftover_sessions(django_db_blocker):
    """A request thread of the live server that Chromium still held open when the server
    stopped keeps its PostgreSQL session, and the test database then cannot be dropped
    ("being accessed by other users"). Those threads are gone with the server: end their
    sessions so the suite tears down cleanly."""
    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="package")
def chromium():
    """One headless Chromium for the browser tests (starting one costs about 0.8 s; each test
    opens its own contexts, so nothing is shared between tests but the process)."""
    # Playwright's sync API runs an event loop in this thread; the ORM work here is synchronous.
    unsafe = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if unsafe is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = unsafe


@pytest.fixture(autouse=True)
def _close_contexts(request):
    """What a test opened in the shared browser (contexts, with their cookies and pages) is
    closed after it, so the next test starts as a new visitor."""
    yield
    if "chromium" in request.fixturenames:
        for context in request.getfixturevalue("chromium").contexts:
            context.close()


@pytest.fixture
def site(demo, live_server):
    """The live server's address, with the demo content loaded."""
    return live_server.url


@pytest.fixture
def open_page(chromium):
    """Opens a page in a new browser context of the given viewport; the page collects its
    console errors in `page.console_errors`."""
    contexts = []

    def open_page(viewport):
        context = chromium.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        return page

    yield open_page
    for context in contexts:
        context.close()
