"""Nobody gets into the admin who should not: login rate limiting (django-axes), strong staff
passwords (Django's validators), and an admin URL that can be moved."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.urls import reverse

from tests.factories import USER_PASSWORD as PASSWORD

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


def login(client, username, password, ip="203.0.113.7"):
    return client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": reverse("admin:index")},
        REMOTE_ADDR=ip,
    )


def is_logged_in(client):
    return "_auth_user_id" in client.session


# -- rate limiting ----------------------------------------------------------------------------


def test_the_failure_limit_is_the_configured_one():
    assert int(os.environ.get("AXES_FAILURE_LIMIT", "5")) == settings.AXES_FAILURE_LIMIT
    assert settings.AXES_FAILURE_LIMIT >= 3


def test_failed_logins_below_the_limit_are_just_refused(client, editor):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = login(client, "editor", "wrong-password")
        assert response.status_code == 200  # the form again, with an error
        assert "Please enter the correct username and password" in response.content.decode()
    assert login(client, "editor", PASSWORD).status_code == 302
    assert is_logged_in(client)


def test_an_account_is_locked_after_the_failure_limit_even_with_the_right_password(client, editor):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "editor", "wrong-password")

    response = login(client, "editor", PASSWORD)

    assert response.status_code == 429
    assert "locked" in response.content.decode().lower()
    assert not is_logged_in(client)
    attempt = AccessAttempt.objects.get(username="editor")
    assert attempt.failures_since_start >= settings.AXES_FAILURE_LIMIT


def test_the_lockout_is_for_that_username_from_that_address(client, editor, reader):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "editor", "wrong-password", ip="203.0.113.7")
    assert login(client, "editor", PASSWORD, ip="203.0.113.7").status_code == 429

    # Another account from the same address, and the same account from elsewhere, still work.
    reader.is_staff = True
    reader.save()
    assert login(client, "reader", PASSWORD, ip="203.0.113.7").status_code == 302
    client.logout()
    assert login(client, "editor", PASSWORD, ip="198.51.100.9").status_code == 302


def test_a_successful_login_resets_the_failure_count(client, editor):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "editor", "wrong-password")
    assert login(client, "editor", PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "editor", "wrong-password")
    assert login(client, "editor", PASSWORD).status_code == 302


def test_authenticate_with_a_request_counts_failures(rf, editor):
    # Axes 8 needs the request passed to authenticate(); code that logs people in must do so.
    for _ in range(settings.AXES_FAILURE_LIMIT):
        request = rf.post("/", REMOTE_ADDR="192.0.2.1")
        assert authenticate(request=request, username="editor", password="nope") is None
    request = rf.post("/", REMOTE_ADDR="192.0.2.1")
    assert authenticate(request=request, username="editor", password=PASSWORD) is None
    assert getattr(request, "axes_locked_out", False)


# -- strong passwords -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "weak",
    ["short-pw", "password1234", "123456789012", "editor@example.org", "qwerty123456"],
)
def test_weak_staff_passwords_are_rejected(editor, weak):
    with pytest.raises(ValidationError):
        validate_password(weak, user=editor)


def test_a_strong_password_is_accepted(editor):
    validate_password("correct horse battery staple 42", user=editor)


def test_the_admin_refuses_to_create_a_staff_user_with_a_weak_password(client):
    superuser = get_user_model().objects.create_superuser(
        "root", "root@example.org", "a-long-superuser-password"
    )
    client.force_login(superuser)
    response = client.post(
        reverse("admin:auth_user_add"),
        {"username": "newstaff", "password1": "12345678", "password2": "12345678"},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "This password is too short" in page
    assert "This password is entirely numeric" in page
    assert not get_user_model().objects.filter(username="newstaff").exists()


def test_the_admin_refuses_to_set_a_weak_password_on_an_existing_account(client, editor):
    superuser = get_user_model().objects.create_superuser(
        "root", "root@example.org", "a-long-superuser-password"
    )
    client.force_login(superuser)
    url = reverse("admin:auth_user_password_change", args=[editor.pk])
    response = client.post(url, {"password1": "password", "password2": "password"})
    assert response.status_code == 200
    assert "This password is too common" in response.content.decode()
    editor.refresh_from_db()
    assert editor.check_password(PASSWORD)


def test_editors_cannot_manage_user_accounts(editor_client):
    assert editor_client.get(reverse("admin:auth_user_changelist")).status_code == 403
    assert editor_client.get(reverse("admin:auth_user_add")).status_code == 403


# -- the admin URL ----------------------------------------------------------------------------

MOVED_ADMIN_PROBE = r"""
import django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
from django.urls import reverse

from tests.factories import USER_PASSWORD as PASSWORD
setup_test_environment()
client = Client()
print(reverse("admin:index"))
print(client.get("/backstage-7f3a/login/").status_code)
print(client.get("/admin/login/").status_code)
"""


# slow (`make test-all`, CI's slow step): a Django process of its own, with another ADMIN_URL.
@pytest.mark.slow
def test_the_admin_url_comes_from_the_environment():
    env = {
        **os.environ,
        "ADMIN_URL": "backstage-7f3a/",
        "DJANGO_SETTINGS_MODULE": "rlscaling.settings",
        "DATABASE_URL": "sqlite://:memory:",
        "LOG_LEVEL": "CRITICAL",
    }
    completed = subprocess.run(
        [sys.executable, "-c", MOVED_ADMIN_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    index, moved, old = completed.stdout.split()
    assert index == "/backstage-7f3a/"
    assert moved == "200"
    assert old == "404"


def test_a_refused_next_after_login_lands_on_the_admin_index(client, editor):
    response = client.post(
        reverse("admin:login"),
        {"username": editor.username, "password": PASSWORD, "next": "https://evil.example/"},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:index")
