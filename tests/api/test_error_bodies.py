"""Every API error, whoever answers it (DRF's exception handler, the outage middleware, Django's
own error handlers), has the documented body `{"status", "code", "detail", "errors"}`."""

import json

import pytest
from django.db import OperationalError
from django.test import Client
from rest_framework.throttling import AnonRateThrottle

from citations.api.views import PaperViewSet
from core import middleware
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db


def error_body(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = json.loads(response.content)  # also for a handler's answer, outside the test client
    assert set(body) == {"status", "code", "detail", "errors"}
    assert body["status"] == status
    assert isinstance(body["code"], str) and body["code"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["errors"], dict)
    return body


@pytest.fixture
def paper_url():
    return f"/api/v1/papers/{PaperFactory(title='Original').slug}/"


@pytest.fixture
def unraised():
    """A client that answers a view's exception as the server would, instead of raising it."""
    return Client(raise_request_exception=False)


def test_400_a_bad_filter_value_names_the_parameter(anon):
    body = error_body(anon.get("/api/v1/papers/?year=abc"), 400)
    assert body["code"] == "invalid"
    assert "year" in body["errors"]


def test_400_a_bad_body_names_the_field(editor_api):
    body = error_body(editor_api.post("/api/v1/papers/", {"arxiv_id": "nope"}, format="json"), 400)
    assert {"title", "arxiv_id"} <= set(body["errors"])


def test_400_malformed_json(editor_api):
    response = editor_api.post("/api/v1/papers/", "{", content_type="application/json")
    assert error_body(response, 400)["code"] == "parse_error"


def test_400_a_bad_host_header_under_the_api(anon):
    body = error_body(anon.get("/api/v1/papers/", HTTP_HOST="evil.example"), 400)
    assert body["code"] == "bad_request"


def test_401_without_credentials_says_how_to_authenticate(anon):
    response = anon.post("/api/v1/papers/", {"title": "x"}, format="json")
    assert error_body(response, 401)["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"


def test_401_with_a_bad_token(anon):
    anon.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert error_body(anon.get("/api/v1/papers/"), 401)["code"] == "authentication_failed"


def test_403_without_the_permission(reader_api):
    response = reader_api.post("/api/v1/papers/", {"title": "x"}, format="json")
    assert error_body(response, 403)["code"] == "permission_denied"


@pytest.mark.parametrize(
    "url", ["/api/v1/papers/no-such-paper/", "/api/v1/no-such-endpoint/", "/api/no-such-version/"]
)
def test_404_for_a_missing_row_or_endpoint(anon, url):
    assert error_body(anon.get(url), 404)["code"] == "not_found"


def test_405_a_method_the_resource_does_not_take(editor_api):
    response = editor_api.put("/api/v1/papers/", {}, format="json")
    assert error_body(response, 405)["code"] == "method_not_allowed"


def test_409_a_stale_version(editor_api, paper_url):
    version = editor_api.get(paper_url).json()["version"]
    editor_api.patch(paper_url, {"title": "Someone else's edit"}, format="json")
    response = editor_api.patch(paper_url, {"title": "Mine", "version": version}, format="json")
    assert error_body(response, 409)["code"] == "conflict"


def test_412_a_stale_if_match(editor_api, paper_url):
    response = editor_api.patch(paper_url, {"title": "x"}, format="json", HTTP_IF_MATCH='"old"')
    assert error_body(response, 412)["code"] == "precondition_failed"


def test_429_over_the_throttle_says_when_to_retry(anon, monkeypatch, settings):
    settings.PAGE_CACHE_SECONDS = 0  # throttles bound misses; a cached answer skips them
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "1/minute"})
    anon.get("/api/v1/layers/")
    response = anon.get("/api/v1/layers/")
    assert error_body(response, 429)["code"] == "throttled"
    assert int(response["Retry-After"]) > 0


def test_500_a_bug_in_a_view(unraised, monkeypatch):
    def bug(*args, **kwargs):
        raise ValueError("a bug with a secret in it")

    monkeypatch.setattr(PaperViewSet, "list", bug)
    response = unraised.get("/api/v1/papers/")
    body = error_body(response, 500)
    assert body == {
        "status": 500,
        "code": "server_error",
        "detail": "Internal server error.",
        "errors": {},
    }


def test_503_the_database_away(unraised, monkeypatch):
    def outage(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1 failed")

    monkeypatch.setattr(PaperViewSet, "list", outage)
    response = unraised.get("/api/v1/papers/")
    body = error_body(response, 503)
    assert body["code"] == "service_unavailable"
    assert body["detail"].endswith("the database cannot be reached.")
    assert response["Retry-After"]


@pytest.mark.parametrize("handler", [middleware.handler400, middleware.handler403])
def test_djangos_other_error_handlers_answer_the_api_with_its_body(rf, handler):
    api = handler(rf.get("/api/v1/papers/"), Exception())
    status = api.status_code
    assert status in (400, 403)
    error_body(api, status)
    page = handler(rf.get("/research/"), Exception())
    assert page["Content-Type"].startswith("text/html")


def test_errors_still_render_in_the_browsable_api(anon):
    response = anon.get("/api/v1/papers/no-such-paper/", HTTP_ACCEPT="text/html")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "not_found" in response.content.decode()
