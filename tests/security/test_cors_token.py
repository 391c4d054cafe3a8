"""CORS covers anonymous API reads only. A form-encoded cross-origin POST needs no preflight:
when the token endpoint answered it with `Access-Control-Allow-Origin: *`, any web page could
try passwords from its visitors' browsers and read the token it got back."""

import pytest
from django.test import Client

from tests.factories import USER_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

ORIGIN = "https://evil.example"
UNSAFE = ["post", "put", "patch", "delete"]


def test_a_cross_origin_form_post_to_the_token_endpoint_gets_no_cors_and_no_token():
    user = UserFactory(editor=True)
    response = Client().post(
        "/api/v1/auth/token/",
        {"username": user.username, "password": USER_PASSWORD},
        HTTP_ORIGIN=ORIGIN,
    )
    assert "Access-Control-Allow-Origin" not in response
    assert response.status_code == 403
    assert b"token" not in response.content.lower().replace(b"token endpoint", b"")


def test_the_token_endpoint_answers_a_same_origin_or_originless_post():
    user = UserFactory(editor=True)
    form = {"username": user.username, "password": USER_PASSWORD}
    assert Client().post("/api/v1/auth/token/", form).status_code == 200
    same = Client().post("/api/v1/auth/token/", form, HTTP_ORIGIN="http://testserver")
    assert same.status_code == 200 and "Access-Control-Allow-Origin" not in same


@pytest.mark.parametrize("method", ["get", "options", "head"])
def test_the_token_endpoint_gets_no_cors_on_any_method(method):
    response = getattr(Client(), method)(
        "/api/v1/auth/token/",
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.parametrize("method", UNSAFE)
@pytest.mark.parametrize(
    "url", ["/api/v1/papers/", "/api/v1/layers/", "/api/v1/papers/by-ids/", "/api/v1/nothing/"]
)
def test_no_unsafe_method_anywhere_in_the_api_gets_cors(method, url):
    response = getattr(Client(), method)(url, {"title": "x"}, HTTP_ORIGIN=ORIGIN)
    assert "Access-Control-Allow-Origin" not in response, (method, url, response.status_code)


def test_anonymous_reads_keep_cors():
    response = Client().get("/api/v1/papers/", HTTP_ORIGIN=ORIGIN)
    assert response["Access-Control-Allow-Origin"] == "*"
