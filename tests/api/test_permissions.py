"""Who may read and write through the API. For every write endpoint (a table over the router):
anonymous (401), an authenticated non-editor (403), a staff user who may only view (403), a user
who may add but not change or delete (so not edit an existing row, not even their own), the token
of a deactivated editor (401), and an editor (allowed); a refused write changes nothing. Then
tokens, sessions, the token endpoint and throttling."""

import itertools

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rlscaling.api_urls import router
from tests.factories import (
    USER_PASSWORD,
    CitationFactory,
    CommunityPostFactory,
    DimensionFactory,
    LayerFactory,
    LoopStageFactory,
    PaperFactory,
    QuestionFactory,
    ResearchNoteFactory,
    UserFactory,
)
from tests.helpers import token_client
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory

pytestmark = pytest.mark.django_db

_numbers = itertools.count(1)


def _paper_slug():
    return PaperFactory().slug


# basename -> (factory for an existing row, a valid body to create one). The bodies' names and
# slugs start with "perm-" so they never meet a factory's sequence (LayerFactory's "layer-N").
RESOURCES = {
    "paper": (
        PaperFactory,
        lambda n: {"title": f"Permission paper {n}", "slug": f"perm-paper-{n}"},
    ),
    "citation": (
        CitationFactory,
        lambda n: {"citing_paper": _paper_slug(), "cited_paper": _paper_slug()},
    ),
    "researchnote": (
        ResearchNoteFactory,
        lambda n: {"title": f"Perm note {n}", "slug": f"perm-note-{n}", "summary": "A standfirst."},
    ),
    "communitypost": (
        CommunityPostFactory,
        lambda n: {
            "title": f"Perm post {n}",
            "slug": f"perm-post-{n}",
            "author": "A. Writer",
            "url": "https://www.lesswrong.com/posts/x",
            "summary": "An argument.",
        },
    ),
    "question": (
        QuestionFactory,
        lambda n: {"kind": "faq", "question": f"Question {n}?", "answer": "An answer."},
    ),
    "dimension": (
        DimensionFactory,
        lambda n: {"name": f"Perm dimension {n}", "slug": f"perm-dimension-{n}"},
    ),
    "loopstage": (
        LoopStageFactory,
        lambda n: {"name": f"Perm stage {n}", "slug": f"perm-stage-{n}"},
    ),
    "layer": (
        LayerFactory,
        lambda n: {
            "name": f"Perm layer {n}",
            "slug": f"perm-layer-{n}",
            "failure_signal": "It fails.",
            "diagnostic_question": "Why?",
        },
    ),
}
RESOURCES |= {
    "benchmark": (
        BenchmarkFactory,
        lambda n: {
            "name": f"Perm benchmark {n}",
            "slug": f"perm-benchmark-{n}",
            "metric": "pass@1",
        },
    ),
    "series": (
        SeriesFactory,
        lambda n: {
            "name": f"Perm run {n}",
            "slug": f"perm-run-{n}",
            "benchmark": BenchmarkFactory().slug,
            "paper": _paper_slug(),
        },
    ),
    # A new point goes into a draft run: adding to a live one needs the publish permission.
    "result": (
        ResultFactory,
        lambda n: {
            "series": SeriesFactory(draft=True).slug,
            "location_kind": "table",
            "location": f"Table {n}",
            "value": 1.5,
        },
    ),
}
WRITE_METHODS = ["post", "put", "patch", "delete"]


def writable_basenames():
    return {
        basename
        for _, viewset, basename in router.registry
        if hasattr(viewset, "create") and "post" in getattr(viewset, "http_method_names", [])
    }


def viewset_for(basename):
    return next(viewset for _, viewset, name in router.registry if name == basename)


def detail_url(basename, obj):
    lookup = viewset_for(basename).lookup_field
    return reverse(f"api:{basename}-detail", kwargs={lookup: getattr(obj, lookup)})


def list_url(basename):
    return reverse(f"api:{basename}-list")


def user_with(username, *codenames, is_staff=False):
    user = UserFactory(username=username, is_staff=is_staff)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def row_state(obj):
    """What a refused write must leave untouched."""
    model = type(obj)
    # A point has no version of its own: all of its row, then.
    fields = ("version", "updated_at") if hasattr(obj, "version") else ()
    row = model._base_manager.filter(pk=obj.pk).values(*fields).first()
    return row, model._base_manager.count()


def put_body(editor_api, basename, obj):
    """The row's own representation, minus read-only fields: a valid full replacement."""
    data = editor_api.get(detail_url(basename, obj)).json()
    serializer = viewset_for(basename).serializer_class()
    writable = {name for name, field in serializer.fields.items() if not field.read_only}
    return {key: value for key, value in data.items() if key in writable}


def attempt(client, method, basename, obj, body):
    url = list_url(basename) if method == "post" else detail_url(basename, obj)
    if method == "delete":
        return client.delete(url)
    if method == "patch":
        return client.patch(url, versioned(obj), format="json")
    return getattr(client, method)(url, body, format="json")


def versioned(obj):
    """A PATCH that changes nothing but asks for the version read (none for a point)."""
    return {"version": obj.version} if hasattr(obj, "version") else {}


def test_the_table_covers_every_write_endpoint_in_the_router():
    assert writable_basenames() == set(RESOURCES)


REFUSAL_CODES = {401: {"not_authenticated", "authentication_failed"}, 403: {"permission_denied"}}


def _refused(client, basename, expected_status, editor_api):
    factory, new_body = RESOURCES[basename]
    for method in WRITE_METHODS:
        obj = factory()
        body = new_body(next(_numbers)) if method == "post" else put_body(editor_api, basename, obj)
        before = row_state(obj)
        response = attempt(client, method, basename, obj, body)
        assert response.status_code == expected_status, (method, response.content)
        assert response.json()["status"] == expected_status
        assert response.json()["code"] in REFUSAL_CODES[expected_status]
        if expected_status == 401:
            assert response["WWW-Authenticate"] == "Token"
        assert row_state(obj) == before, method


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_anonymous_reads_but_writes_are_401(basename, editor_api):
    assert APIClient().get(list_url(basename)).status_code == 200
    _refused(APIClient(), basename, 401, editor_api)


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_an_authenticated_non_editor_reads_but_is_refused_403(basename, reader, editor_api):
    assert token_client(reader).get(list_url(basename)).status_code == 200
    _refused(token_client(reader), basename, 403, editor_api)


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_a_staff_user_who_may_only_view_is_refused_403(basename, editor_api):
    viewer = user_with("viewer", *[f"view_{name}" for name in RESOURCES], is_staff=True)
    _refused(token_client(viewer), basename, 403, editor_api)


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_a_deactivated_editors_token_is_refused_401(basename, editor, editor_api):
    other_editor = UserFactory(editor=True, username="gone")
    client = token_client(other_editor)
    other_editor.is_active = False
    other_editor.save()
    _refused(client, basename, 401, editor_api)


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_a_user_who_may_add_cannot_edit_or_delete_existing_rows(basename, editor_api):
    factory, new_body = RESOURCES[basename]
    model = factory._meta.model
    # Viewing both papers is what lets anyone see a draft citation edge.
    views = ["view_paper", f"view_{model._meta.model_name}"]
    adder = user_with("adder", f"add_{model._meta.model_name}", *views)
    client = token_client(adder)

    created = client.post(list_url(basename), new_body(next(_numbers)), format="json")
    assert created.status_code == 201, created.content

    # Not someone else's row, and not the row they have just created either.
    for obj in [factory(), model.objects.order_by("-pk").first()]:
        before = row_state(obj)
        body = put_body(editor_api, basename, obj)
        for method in ["put", "patch", "delete"]:
            response = attempt(client, method, basename, obj, body)
            assert response.status_code == 403, (method, response.content)
            assert row_state(obj) == before


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_a_user_who_may_add_but_not_view_gets_a_201_not_a_500(basename):
    factory, new_body = RESOURCES[basename]
    model_name = factory._meta.model._meta.model_name
    client = token_client(user_with("blind-adder", f"add_{model_name}"))
    client.raise_request_exception = False
    response = client.post(list_url(basename), new_body(next(_numbers)), format="json")
    assert response.status_code == 201, response.status_code


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_a_user_who_may_change_cannot_create_or_delete(basename, editor_api):
    factory, new_body = RESOURCES[basename]
    model_name = factory._meta.model._meta.model_name
    changer = user_with("changer", f"change_{model_name}", f"view_{model_name}")
    client = token_client(changer)
    obj = factory()

    assert client.patch(detail_url(basename, obj), {}, format="json").status_code == 200
    assert client.post(list_url(basename), new_body(next(_numbers)), format="json").status_code == (
        403
    )
    assert client.delete(detail_url(basename, obj)).status_code == 403
    assert type(obj)._base_manager.filter(pk=obj.pk).exists()


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_an_editor_may_create_replace_edit_and_delete(basename, editor_api):
    factory, new_body = RESOURCES[basename]
    model = factory._meta.model

    created = editor_api.post(list_url(basename), new_body(next(_numbers)), format="json")
    assert created.status_code == 201, created.content

    obj = factory()
    replaced = editor_api.put(
        detail_url(basename, obj), put_body(editor_api, basename, obj), format="json"
    )
    assert replaced.status_code == 200, replaced.content
    obj.refresh_from_db()
    edited = editor_api.patch(detail_url(basename, obj), versioned(obj), format="json")
    assert edited.status_code == 200, edited.content
    if hasattr(obj, "version"):
        assert model.objects.get(pk=obj.pk).version == obj.version + 1

    assert editor_api.delete(detail_url(basename, obj)).status_code == 204
    assert not model.objects.filter(pk=obj.pk).exists()


@pytest.mark.parametrize("basename", sorted(RESOURCES))
def test_a_non_editor_cannot_reach_a_draft_to_edit_it(basename, reader, editor_api):
    factory, _ = RESOURCES[basename]
    draft = factory(draft=True)
    client = token_client(reader)
    assert client.get(detail_url(basename, draft)).status_code == 404  # not even visible
    before = row_state(draft)
    assert client.patch(detail_url(basename, draft), {"status": "published"}).status_code == 403
    assert row_state(draft) == before


@pytest.mark.parametrize(
    "basename", sorted(name for _, _, name in router.registry if name not in RESOURCES)
)
def test_read_only_endpoints_refuse_every_write(basename, editor_api):
    url = list_url(basename)
    for client, expected in [(APIClient(), {401, 405}), (editor_api, {405})]:
        for method in WRITE_METHODS:
            response = getattr(client, method)(url, {}, format="json")
            assert response.status_code in expected, (basename, method, response.status_code)
            if response.status_code == 405:
                assert response.json()["code"] == "method_not_allowed"


def test_the_paper_citations_view_refuses_writes(editor_api):
    paper = PaperFactory()
    url = reverse("api:paper-citations", kwargs={"slug": paper.slug})
    assert APIClient().post(url, {}, format="json").status_code in {401, 405}
    assert editor_api.post(url, {}, format="json").status_code == 405


# -- tokens, sessions, the token endpoint, throttling --------------------------------------------

NEW_PAPER = {"title": "A New Scaling Result", "summary": "What it found."}


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
        {"username": "editor", "password": USER_PASSWORD},
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
        {"username": "editor", "password": USER_PASSWORD},
        format="json",
    )
    assert response.status_code == 400
    assert not Token.objects.filter(user=editor).exists()


def test_token_endpoint_is_locked_after_repeated_failures(anon, editor, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        anon.post("/api/v1/auth/token/", {"username": "editor", "password": "nope"}, format="json")
    response = anon.post(
        "/api/v1/auth/token/",
        {"username": "editor", "password": USER_PASSWORD},
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


def test_throttling_answers_429_with_retry_after(anon, monkeypatch, settings):
    settings.PAGE_CACHE_SECONDS = 0  # throttles bound misses; a cached answer skips them
    from rest_framework.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    statuses = [anon.get("/api/v1/layers/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = anon.get("/api/v1/layers/")
    assert response.json()["code"] == "throttled"
    assert int(response["Retry-After"]) > 0
