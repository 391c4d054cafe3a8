"""One client-address rule for throttles, axes and the page cache (issue 11, point 4):
X-Forwarded-For is believed only as far as TRUSTED_PROXY_COUNT says."""

import logging

import pytest
from django.test import RequestFactory
from rest_framework.test import APIClient

from core.client_address import client_address


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "", "10.0.0.9"),
        (0, "203.0.113.7", "10.0.0.9"),
        (1, "203.0.113.7", "203.0.113.7"),
        (1, "6.6.6.6, 203.0.113.7", "203.0.113.7"),
        (2, "6.6.6.6, 203.0.113.7, 10.1.1.1", "203.0.113.7"),
        (2, "203.0.113.7", "10.0.0.9"),  # fewer hops than proxies: not through them
    ],
)
def test_the_client_address_rule(settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == expected


@pytest.mark.django_db
def test_a_made_up_forwarded_for_does_not_reset_the_token_throttle(settings, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"token": "3/minute", "anon": None})
    statuses = [
        APIClient(REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
        .post("/api/v1/auth/token/", {"username": "x", "password": "y"}, format="json")
        .status_code
        for n in range(5)
    ]
    assert statuses[:3] == [400, 400, 400]
    assert statuses[3:] == [429, 429]


@pytest.mark.django_db
def test_a_made_up_forwarded_for_does_not_reset_the_anonymous_throttle(monkeypatch):
    from rest_framework.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "2/minute"})
    statuses = [
        APIClient(REMOTE_ADDR="10.0.0.6", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
        .get(f"/api/v1/layers/?page={n}")
        .status_code
        for n in range(1, 4)
    ]
    assert statuses[-1] == 429


def test_axes_uses_the_same_rule(settings):
    from axes.helpers import get_client_ip_address

    settings.TRUSTED_PROXY_COUNT = 0
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR="6.6.6.6")
    assert get_client_ip_address(request) == "10.0.0.9"
    settings.TRUSTED_PROXY_COUNT = 1
    assert get_client_ip_address(request) == "6.6.6.6"


def console_line(record):
    """The line the configured console handler writes for `record` (settings.LOGGING)."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    assert handler.filter(record)
    return handler.format(record)


@pytest.mark.django_db
@pytest.mark.parametrize(("proxies", "logged"), [(0, "10.0.0.9"), (1, "203.0.113.7")])
def test_log_lines_name_the_client_by_the_same_rule(settings, caplog, proxies, logged):
    settings.TRUSTED_PROXY_COUNT = proxies
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = APIClient(
            REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7"
        ).get("/no-such-page/")
    assert response.status_code == 404
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    line = console_line(record)
    assert f"client={logged}" in line
    assert "6.6.6.6" not in line


def test_a_log_line_without_a_request_says_so():
    record = logging.LogRecord("rlscaling", logging.WARNING, __file__, 1, "no request", (), None)
    assert "client=-:" in console_line(record)
