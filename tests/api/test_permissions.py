"""Who may read and write: anonymous, authenticated non-editors, editors; tokens."""

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import token_client

pytestmark = pytest.mark.django_db

NEW_PAPER = {"title": "A New Scaling Result", "summary": "What it found."}


def test_anonymous_reads_but_cannot_write(anon):
    paper = PaperFactory()
    assert anon.get("/api/v1/papers/").status_code == 200
    for method, url in [
        ("post", "/api/v1/papers/"),
        ("patch", f"/api/v1/papers/{paper.slug}/"),
        ("put", f"/api/v1/papers/{paper.slug}/"),
        ("delete", f"/api/v1/papers/{paper.slug}/"),
    ]:
        response = getattr(anon, method)(url, NEW_PAPER, format="json")
        assert response.status_code == 401, (method, response.content)
        assert response["WWW-Authenticate"] == "Token"
        assert response.json()["code"] == "not_authenticated"
    assert Paper.objects.count() == 1


def test_authenticated_non_editor_gets_403_on_writes(reader_api):
    paper = PaperFactory()
    assert reader_api.get(f"/api/v1/papers/{paper.slug}/").status_code == 200
    response = reader_api.post("/api/v1/papers/", NEW_PAPER, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert reader_api.patch(f"/api/v1/papers/{paper.slug}/", {"title": "x"}).status_code == 403
    assert reader_api.delete(f"/api/v1/papers/{paper.slug}/").status_code == 403
    assert Paper.objects.get().title == paper.title


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/citations/",
        "/api/v1/notes/",
        "/api/v1/community-posts/",
        "/api/v1/questions/",
        "/api/v1/dimensions/",
        "/api/v1/loop-stages/",
        "/api/v1/layers/",
    ],
)
def test_every_writable_resource_refuses_non_editors(anon, reader_api, url):
    assert anon.post(url, {}, format="json").status_code == 401
    assert reader_api.post(url, {}, format="json").status_code == 403


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/analyses/",
        "/api/v1/tags/",
        "/api/v1/citation-roles/",
        "/api/v1/citation-polarities/",
    ],
)
def test_read_only_resources_refuse_writes_even_from_editors(editor_api, url):
    response = editor_api.post(url, {"name": "x", "slug": "x"}, format="json")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_editor_with_token_can_create_update_and_delete(editor_api):
    created = editor_api.post("/api/v1/papers/", NEW_PAPER, format="json")
    assert created.status_code == 201, created.content
    url = created["Location"]
    assert editor_api.patch(url, {"byline": "A. Lab"}, format="json").status_code == 200
    assert Paper.objects.get().byline == "A. Lab"
    assert editor_api.delete(url).status_code == 204
    assert not Paper.objects.exists()


def test_editor_with_a_session_can_write(editor):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(editor)
    # Without the CSRF token a session write is refused...
    assert client.post("/api/v1/papers/", NEW_PAPER, format="json").status_code == 403
    # ...with it (as the browsable API sends it), it goes through.
    client.get("/api/v1/papers/", HTTP_ACCEPT="text/html")
    csrf = client.cookies["csrftoken"].value
    response = client.post("/api/v1/papers/", NEW_PAPER, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert response.status_code == 201, response.content


def test_deactivated_users_token_is_refused(editor):
    client = token_client(editor)
    assert client.get("/api/v1/papers/").status_code == 200
    editor.is_active = False
    editor.save()
    response = client.get("/api/v1/papers/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    assert client.post("/api/v1/papers/", NEW_PAPER, format="json").status_code == 401


def test_unknown_token_is_refused(anon):
    anon.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    assert anon.get("/api/v1/papers/").status_code == 401


def test_obtain_token_endpoint(anon, editor):
    response = anon.post(
        "/api/v1/auth/token/",
        {"username": "editor", "password": "a-long-editor-password"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=editor).key}
    wrong = anon.post(
        "/api/v1/auth/token/", {"username": "editor", "password": "wrong"}, format="json"
    )
    assert wrong.status_code == 400
    assert "non_field_errors" in wrong.json()["errors"]
    missing = anon.post("/api/v1/auth/token/", {}, format="json")
    assert set(missing.json()["errors"]) == {"username", "password"}


def test_deactivated_user_cannot_obtain_a_token(anon, editor):
    editor.is_active = False
    editor.save()
    response = anon.post(
        "/api/v1/auth/token/",
        {"username": "editor", "password": "a-long-editor-password"},
        format="json",
    )
    assert response.status_code == 400
    assert not Token.objects.filter(user=editor).exists()


def test_token_endpoint_is_locked_after_repeated_failures(anon, editor, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        anon.post("/api/v1/auth/token/", {"username": "editor", "password": "nope"}, format="json")
    response = anon.post(
        "/api/v1/auth/token/",
        {"username": "editor", "password": "a-long-editor-password"},
        format="json",
    )
    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert not Token.objects.filter(user=editor).exists()


def test_drf_create_token_command_makes_a_working_token(editor, capsys):
    call_command("drf_create_token", "editor")
    key = Token.objects.get(user=editor).key
    assert key in capsys.readouterr().out
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.post("/api/v1/papers/", NEW_PAPER, format="json").status_code == 201


def test_throttling_answers_429_with_retry_after(anon, monkeypatch):
    from rest_framework.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    statuses = [anon.get("/api/v1/layers/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = anon.get("/api/v1/layers/")
    assert response.json()["code"] == "throttled"
    assert int(response["Retry-After"]) > 0
