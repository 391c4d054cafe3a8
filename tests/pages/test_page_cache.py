"""The shared page cache (pagecache/caching.py): hits cost no queries, a save shows at once,
drafts and signed-in readers never go through it, headers stay right."""

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse
from rest_framework.authtoken.models import Token

from citations.models import Paper
from pagecache import caching
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import ART_OF_SCALING

HUB = f"/papers/{ART_OF_SCALING}/"
CACHED_PATHS = [
    "/",
    "/research/",
    "/research/?sort=oldest&page=1",
    HUB,
    f"{HUB}?role=background",
    "/bottlenecks/",
    "/feeds/latest.atom",
    "/api/v1/papers/",
    f"/api/v1/papers/{ART_OF_SCALING}/citations/",
]

pytestmark = pytest.mark.django_db

# This module as a URLconf without pages, where nothing resolves.
urlpatterns = []


@pytest.mark.parametrize("path", CACHED_PATHS)
def test_a_second_anonymous_request_is_served_without_queries(
    client, demo, path, django_assert_num_queries
):
    first = client.get(path)
    assert first.status_code == 200
    with django_assert_num_queries(0):
        second = client.get(path)
    assert second.status_code == 200
    assert second["X-Page-Cache"] == "hit"
    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]


@pytest.mark.parametrize(
    "path", ["/research/", HUB, "/research/?sort=oldest", "/api/v1/papers/?page_size=5"]
)
def test_a_hit_does_not_resolve_the_url_again(client, demo, path, monkeypatch):
    """Resolving the URL (for the parameters the view reads and its Accept variant) was a
    tenth of a hit's cost; a path is resolved once per process, not once per request."""
    client.get(path)
    resolved = []
    real_resolve = caching.resolve
    monkeypatch.setattr(
        caching, "resolve", lambda *args: resolved.append(args) or real_resolve(*args)
    )
    caching.resolved_view.cache_clear()
    for _ in range(3):
        assert client.get(path)["X-Page-Cache"] == "hit"
    assert len(resolved) <= 1


def test_the_resolved_views_follow_a_swapped_urlconf(client, demo, settings):
    assert client.get("/research/").status_code == 200
    request = RequestFactory().get("/research/?sort=oldest")
    assert "page" in caching.query_parameters(request)
    settings.ROOT_URLCONF = __name__
    assert caching.query_parameters(request) is None


def test_headers_are_kept_and_the_middleware_headers_added_afresh(client, demo):
    first = client.get("/api/v1/papers/")
    second = client.get("/api/v1/papers/")
    assert second["X-Page-Cache"] == "hit"
    for header in ("Content-Type", "ETag", "Content-Security-Policy", "X-Frame-Options"):
        assert second[header] == first[header], header
    page = client.get(HUB)
    page = client.get(HUB)
    assert page["X-Page-Cache"] == "hit"
    assert "nonce-" not in page["Content-Security-Policy"]
    assert '<script type="application/ld+json">' in page.content.decode()


def test_a_cached_api_answer_still_honours_if_none_match(client, demo):
    etag = client.get("/api/v1/papers/")["ETag"]
    again = client.get("/api/v1/papers/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again["ETag"] == etag


def test_the_query_string_is_part_of_the_key_in_any_order(client, demo):
    first = client.get(f"{HUB}?role=background&polarity=neutral")
    assert "X-Page-Cache" not in first
    same = client.get(f"{HUB}?polarity=neutral&role=background")
    assert same["X-Page-Cache"] == "hit"
    other = client.get(f"{HUB}?role=method")
    assert "X-Page-Cache" not in other


def test_an_editors_save_changes_the_page_on_the_next_request(client, demo):
    assert "Recalibrated Title" not in client.get("/research/").content.decode()
    assert client.get("/research/")["X-Page-Cache"] == "hit"
    paper = Paper.objects.in_research_index().first()
    paper.title = "Recalibrated Title"
    paper.save()
    fresh = client.get("/research/")
    assert "X-Page-Cache" not in fresh
    assert "Recalibrated Title" in fresh.content.decode()
    api = client.get(f"/api/v1/papers/{paper.slug}/")
    assert api.json()["title"] == "Recalibrated Title"


def test_a_tag_change_and_a_delete_invalidate_too(client, demo):
    paper = Paper.objects.in_research_index().first()
    client.get("/research/")
    paper.tags.add("freshly-added-tag")  # m2m_changed on taggit's through model
    assert "X-Page-Cache" not in client.get("/research/")
    client.get(paper.get_absolute_url())
    paper.delete()
    assert client.get(paper.get_absolute_url()).status_code == 404


def test_a_bulk_unpublish_through_the_admin_is_visible_at_once(editor_client, demo):
    """The admin's bulk action is one UPDATE, which no save signal announces: the queryset's
    unpublish() announces it (publishing/signals.py), and the page cache listens."""
    anonymous = Client()
    paper = Paper.objects.in_research_index().first()
    assert anonymous.get(paper.get_absolute_url()).status_code == 200
    assert anonymous.get(paper.get_absolute_url())["X-Page-Cache"] == "hit"
    changelist = reverse("admin:citations_paper_changelist")
    response = editor_client.post(
        changelist,
        {"action": "unpublish_selected", "_selected_action": [paper.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert anonymous.get(paper.get_absolute_url()).status_code == 404


def test_drafts_are_never_cached_into_the_public_view(client, editor_client, db):
    draft = PaperFactory(draft=True, title="Unannounced Result")
    note = ResearchNoteFactory(draft=True)
    for item in (draft, note):
        preview = editor_client.get(item.get_absolute_url())
        assert preview.status_code == 200
        assert "no-store" in preview["Cache-Control"]
        assert Client().get(item.get_absolute_url()).status_code == 404
    assert "Unannounced Result" not in Client().get("/research/").content.decode()


def test_authenticated_requests_bypass_the_cache(client, editor_client, demo, editor):
    anonymous = Client()
    anonymous.get("/research/")
    assert anonymous.get("/research/")["X-Page-Cache"] == "hit"
    assert "X-Page-Cache" not in editor_client.get("/research/")
    assert "X-Page-Cache" not in editor_client.get("/research/")
    token = Token.objects.create(user=editor)
    anonymous.get("/api/v1/papers/")
    with_token = Client(headers={"authorization": f"Token {token.key}"})
    assert "X-Page-Cache" not in with_token.get("/api/v1/papers/")


def test_non_200_answers_and_excluded_paths_are_not_cached(client, demo):
    for _ in range(2):
        missing = client.get("/papers/no-such-paper/")
        assert missing.status_code == 404
        assert "X-Page-Cache" not in missing
        assert client.get("/research/?year=notayear").status_code == 400
        assert "X-Page-Cache" not in client.get("/healthz")
        assert "X-Page-Cache" not in client.get("/readyz")


def test_head_is_served_from_the_cache(client, demo):
    client.get("/research/")
    head = client.head("/research/")
    assert head.status_code == 200
    assert head["X-Page-Cache"] == "hit"


def test_an_unreachable_cache_serves_the_page_uncached(client, demo, monkeypatch):
    def refuse(*args, **kwargs):
        from redis.exceptions import ConnectionError

        raise ConnectionError("down")

    monkeypatch.setattr(caching.cache, "get", refuse)
    assert client.get("/").status_code == 200


def test_the_generation_bump_makes_an_entry_stale(client, demo):
    client.get("/research/")
    assert client.get("/research/")["X-Page-Cache"] == "hit"
    caching.bump_generation()
    assert not client.get("/research/").has_header("X-Page-Cache")  # rendered afresh
    assert client.get("/research/")["X-Page-Cache"] == "hit"
