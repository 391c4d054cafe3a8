"""Sizes and depths are bounded with a 400, never a 500 or a worker past its timeout (issue 11,
point 5): long usernames at both sign-in doors, deeply nested JSON, huge lists, OPTIONS on the
docs pages, and tag names unique case-insensitively even under a race."""

import json

import pytest
from axes.models import AccessAttempt
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from citations.importers.records import MAX_ABSTRACT_LENGTH
from citations.models import Paper
from tags.models import Tag
from tests.helpers import token_client

pytestmark = pytest.mark.django_db

LONG_NAME = "u" * 300


def test_a_long_username_on_the_token_endpoint_is_a_400():
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": LONG_NAME, "password": "x"}, format="json"
    )
    assert response.status_code == 400
    assert "username" in response.json()["errors"]
    assert all(len(attempt.username or "") <= 150 for attempt in AccessAttempt.objects.all())


def test_a_long_username_on_the_admin_login_is_a_form_error():
    response = Client().post(reverse("admin:login"), {"username": LONG_NAME, "password": "x"})
    assert response.status_code == 200
    assert "at most 150 characters" in response.content.decode()
    assert all(len(attempt.username or "") <= 150 for attempt in AccessAttempt.objects.all())


def test_axes_never_stores_a_username_longer_than_an_account_can_have(rf):
    from core.login import axes_username

    assert len(axes_username(rf.post("/", {"username": LONG_NAME}))) == 150
    assert axes_username(rf.get("/"), {"username": LONG_NAME}) == LONG_NAME[:150]


@pytest.mark.parametrize("depth", [25, 1000, 100_000])
def test_deeply_nested_json_is_a_400_for_anyone(editor, depth):
    body = "[" * depth + "]" * depth
    anonymous = APIClient().post("/api/v1/auth/token/", body, content_type="application/json")
    assert anonymous.status_code == 400
    assert anonymous.json()["code"] == "parse_error"
    deep_object = '{"title": ' * depth + '"x"' + "}" * depth
    written = token_client(editor).post(
        "/api/v1/papers/", deep_object, content_type="application/json"
    )
    assert written.status_code == 400


def test_ordinary_nesting_still_parses(editor):
    body = {"title": "Nested enough", "authors": ["A B"], "tags": ["x"]}
    assert token_client(editor).post("/api/v1/papers/", body, format="json").status_code == 201


def test_a_body_over_the_upload_limit_is_a_400(editor, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"title": "x", "abstract": "y" * 2000})
    response = token_client(editor).post("/api/v1/papers/", body, content_type="application/json")
    assert response.status_code == 400
    assert not Paper.objects.filter(title="x").exists()


@pytest.mark.parametrize("field", ["tags", "authors"])
def test_five_thousand_names_in_one_request_are_a_400(editor, field):
    names = [f"name {number}" for number in range(5000)]
    response = token_client(editor).post(
        "/api/v1/papers/", {"title": "Many names", field: names}, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Paper.objects.filter(title="Many names").exists()
    assert Tag.objects.count() == 0


def test_five_thousand_references_in_one_request_are_a_400(editor):
    response = token_client(editor).post(
        "/api/v1/notes/",
        {"title": "Refs", "slug": "refs", "papers": [f"p-{n}" for n in range(5000)]},
        format="json",
    )
    assert response.status_code == 400
    assert "papers" in response.json()["errors"]


@pytest.mark.parametrize("path", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_options_on_the_docs_pages_is_not_a_500(path):
    response = Client(raise_request_exception=False).options(path)
    assert response.status_code == 200
    assert "GET" in response["Allow"]


def test_the_database_refuses_two_tags_differing_only_in_case():
    Tag.objects.create(name="Foo", slug="foo")
    with pytest.raises(IntegrityError), transaction.atomic():
        Tag.objects.create(name="FOO", slug="foo-2")


def test_a_race_between_foo_and_FOO_ends_in_one_tag(editor, monkeypatch):
    """The second editor's lookups ran before the first editor's tag was saved: they miss,
    the insert collides with the unique index, and taggit's get_or_create finds the tag."""
    Tag.objects.create(name="Foo", slug="foo")
    real_get = QuerySet.get
    misses = {"left": 2}  # taggit's lookup and get_or_create's own lookup

    def racing_get(self, *args, **kwargs):
        if self.model is Tag and "name__iexact" in kwargs and misses["left"]:
            misses["left"] -= 1
            raise Tag.DoesNotExist
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "get", racing_get)
    response = token_client(editor).post(
        "/api/v1/papers/", {"title": "Racing", "tags": ["FOO"]}, format="json"
    )
    assert response.status_code in {201, 409}, response.content
    assert Tag.objects.filter(name__iexact="foo").count() == 1
    if response.status_code == 201:
        assert response.json()["tags"] == ["Foo"]


def test_an_abstract_over_the_bound_is_refused_at_every_door(editor, editor_client):
    """A 20 MB abstract made a 40 MB hub page; the importers bound it (MAX_ABSTRACT_LENGTH)
    and so do the API and the admin, one bound on the field."""
    too_long = "a" * (MAX_ABSTRACT_LENGTH + 1)
    response = token_client(editor).post(
        "/api/v1/papers/", {"title": "Long abstract", "abstract": too_long}, format="json"
    )
    assert response.status_code == 400
    assert "abstract" in response.json()["errors"]

    form = editor_client.post(
        reverse("admin:citations_paper_add"), {"title": "Long abstract", "abstract": too_long}
    )
    assert form.status_code == 200
    assert "at most 100000 characters" in form.content.decode().replace(",", "")
    assert not Paper.objects.filter(title="Long abstract").exists()
