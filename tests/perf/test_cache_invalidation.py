"""Targeted page-cache invalidation (issue 15): a save costs each page one rendering, not a
miss for every reader; drafts and sign-ins do not touch the cache; a hit is one round trip."""

import pytest
from django.core.cache import cache
from django.test import Client

from citations.models import Paper
from rlscaling import caching
from tests.factories import USER_PASSWORD, PaperFactory, UserFactory
from tests.helpers import ART_OF_SCALING

HUB = f"/papers/{ART_OF_SCALING}/"

pytestmark = pytest.mark.django_db


def warm(client, path):
    client.get(path)
    assert client.get(path)["X-Page-Cache"] == "hit"


def test_a_successful_admin_login_does_not_empty_the_cache(client, demo):
    UserFactory(editor=True, username="ed")
    before = caching.current_generation()
    response = Client().post(
        "/admin/login/?next=/admin/", {"username": "ed", "password": USER_PASSWORD}
    )
    assert response.status_code == 302  # signed in
    assert caching.current_generation() == before
    warm(client, "/")


def test_an_editors_save_still_empties_it(editor_client, demo):
    paper = Paper.objects.published().first()
    before = caching.current_generation()
    response = editor_client.post(f"/admin/citations/paper/{paper.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert caching.current_generation() != before


def test_saving_a_draft_that_stays_a_draft_keeps_the_cache(client, demo):
    draft = PaperFactory(draft=True)
    warm(client, "/research/")
    before = caching.current_generation()
    draft.title = "Still a draft"
    draft.save()
    draft.tags.add("draft-only-tag")
    assert caching.current_generation() == before
    draft.status, draft.published_at = "published", Paper.objects.published().first().published_at
    draft.save()  # now public: every page may show it
    assert caching.current_generation() != before


def test_after_a_save_the_next_reader_sees_it_and_others_get_the_last_copy(client, demo):
    """The first request after a save renders the page (the change is visible at once); a
    request arriving while that rendering runs is served the previous copy."""
    warm(client, HUB)
    paper = Paper.objects.get(slug=ART_OF_SCALING)
    paper.title = "A retitled hub"
    paper.save()
    key = caching.cache_key(Client().get(HUB).wsgi_request, "")
    caching.bump_generation()  # another save, while "someone else" renders the page:
    assert caching.claim_rebuild(key, caching.current_generation())
    stale = client.get(HUB)
    assert stale["X-Page-Cache"] == "stale"
    assert "A retitled hub" in stale.content.decode()
    cache.delete(f"{key}:rebuild:{caching.current_generation()}")


def test_an_unpublished_page_is_never_served_from_its_stale_copy(client, demo):
    warm(client, HUB)
    Paper.objects.filter(slug=ART_OF_SCALING).unpublish()  # a bulk UPDATE, announced
    assert client.get(HUB).status_code == 404
    assert client.get(HUB).status_code == 404


def test_a_page_hit_is_one_cache_round_trip(client, demo, monkeypatch):
    warm(client, HUB)
    calls, depth = [], []

    def counted(name, original):
        def call(*args, **kwargs):
            if not depth:  # the local-memory backend's get_many calls its own get
                calls.append(name)
            depth.append(name)
            try:
                return original(*args, **kwargs)
            finally:
                depth.pop()

        return call

    for name in ["get", "get_many", "set", "add", "incr"]:
        monkeypatch.setattr(caching.cache, name, counted(name, getattr(caching.cache, name)))
    assert client.get(HUB)["X-Page-Cache"] == "hit"
    # ScheduledChangesMiddleware reads the time of the next scheduled change (one `get`),
    # then the page cache makes one read: an MGET of the generation and the entry, or, where
    # the generation lives in a file (local memory over PostgreSQL), a `get` of the entry.
    # Nothing is written on a hit.
    page_reads = ["get_many"] if caching.generation_file() is None else ["get"]
    assert calls == ["get", *page_reads]
