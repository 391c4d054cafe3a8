"""Page-cache invalidation: a save publishing announces makes cached pages stale at once;
drafts and sign-ins do not touch the cache; a hit is one round trip."""

import pytest
from django.test import Client

from citations.models import Paper
from notes.models import ResearchNote
from pagecache import caching
from tests.factories import USER_PASSWORD, PaperFactory, ResearchNoteFactory, UserFactory
from tests.helpers import ART_OF_SCALING, admin_form_data, token_client

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


def test_an_editor_saving_a_draft_in_the_admin_keeps_the_cache(editor_client, demo):
    """Every door: the admin's change form of a draft paper, with its inlines, is a write the
    page cache's signals judge out of public view; the request's own write check agrees."""
    draft = PaperFactory(draft=True)
    change = f"/admin/citations/paper/{draft.pk}/change/"
    form = admin_form_data(editor_client.get(change), Paper)
    form["title"] = ["Still a draft, retitled"]
    reader = Client()
    warm(reader, "/research/")
    before = caching.current_generation()
    response = editor_client.post(change, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Paper.objects.get(pk=draft.pk).title == "Still a draft, retitled"
    assert caching.current_generation() == before
    assert reader.get("/research/")["X-Page-Cache"] == "hit"


def test_an_api_edit_of_a_draft_note_keeps_the_cache(editor, demo):
    note = ResearchNoteFactory(draft=True)
    before = caching.current_generation()
    response = token_client(editor).patch(
        f"/api/v1/notes/{note.slug}/",
        {"title": "A draft, still", "version": note.version},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert ResearchNote.objects.get(pk=note.pk).title == "A draft, still"
    assert caching.current_generation() == before


def test_after_a_save_the_next_reader_sees_it(client, demo):
    """A save makes the page stale at once: the next request renders it (and stores it), the
    one after is a hit again."""
    warm(client, HUB)
    paper = Paper.objects.get(slug=ART_OF_SCALING)
    paper.title = "A retitled hub"
    paper.save()
    fresh = client.get(HUB)
    assert "X-Page-Cache" not in fresh
    assert "A retitled hub" in fresh.content.decode()
    assert client.get(HUB)["X-Page-Cache"] == "hit"


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
    # One read: an MGET of the generation and the entry. Where the generation lives in a file
    # (local memory over PostgreSQL: this process's memory, no round trip), a `get` of the
    # entry. Nothing is written on a hit.
    assert calls == (["get_many"] if caching.generation_file() is None else ["get"])
