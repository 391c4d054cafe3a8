"""Scheduling is explicit (issue 13, point 6): a state computed from status, published_at and
unpublish_at; expiry hides an item; every surface switches at the due second, cached pages and
stored citing counts included, with no cron job."""

import datetime
import time

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from citations.models import CitationCount, Paper
from notes.models import ResearchNote
from rlscaling import caching
from rlscaling.publishing.models import PublicationState
from rlscaling.publishing.schedule import (
    forget_next_scheduled_change,
    handle_due_changes,
    next_scheduled_change,
    seconds_until_next_scheduled_change,
    swept_until,
)
from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import at, text_of

pytestmark = pytest.mark.django_db

HOUR = datetime.timedelta(hours=1)


def test_each_publication_state_is_named_with_its_time():
    now = timezone.now()
    draft = ResearchNoteFactory(draft=True)
    scheduled = ResearchNoteFactory(
        published_at=datetime.datetime(2031, 5, 4, 9, 30, tzinfo=datetime.UTC)
    )
    live = ResearchNoteFactory()
    ending = ResearchNoteFactory(
        unpublish_at=datetime.datetime(2031, 6, 1, 12, 0, tzinfo=datetime.UTC)
    )
    expired = ResearchNoteFactory(published_at=now - 2 * HOUR, unpublish_at=now - HOUR)

    assert draft.publication_state() == PublicationState.DRAFT
    assert draft.get_publication_state_display() == "Draft"
    assert scheduled.publication_state() == PublicationState.SCHEDULED
    assert scheduled.get_publication_state_display() == "Scheduled for 4 May 2031, 09:30 UTC"
    assert live.get_publication_state_display() == "Published"
    assert ending.get_publication_state_display() == "Published until 1 Jun 2031, 12:00 UTC"
    assert expired.publication_state() == PublicationState.EXPIRED
    assert expired.get_publication_state_display().startswith("Expired on ")
    assert [note.is_published for note in (draft, scheduled, live, ending, expired)] == [
        False,
        False,
        True,
        True,
        False,
    ]
    for state, note in [
        (PublicationState.DRAFT, draft),
        (PublicationState.SCHEDULED, scheduled),
        (PublicationState.PUBLISHED, live),
        (PublicationState.EXPIRED, expired),
    ]:
        assert note in ResearchNote.objects.with_publication_state(state)


def test_an_expired_item_is_hidden_by_the_one_public_rule():
    now = timezone.now()
    expired = PaperFactory(published_at=now - 2 * HOUR, unpublish_at=now - HOUR)
    ending = PaperFactory(unpublish_at=now + HOUR)
    assert expired not in Paper.objects.published()
    assert ending in Paper.objects.published()
    hidden = {row["pk"] for row in Paper.objects.hidden_pks()}
    assert expired.pk in hidden
    assert ending.pk not in hidden
    assert Client().get(expired.get_absolute_url()).status_code == 404
    assert Client().get(ending.get_absolute_url()).status_code == 200


def test_an_expiry_before_the_publication_time_is_refused_next_to_the_field():
    note = ResearchNoteFactory.build(
        published_at=timezone.now(), unpublish_at=timezone.now() - HOUR
    )
    with pytest.raises(ValidationError) as refused:
        note.clean()
    assert "unpublish_at" in refused.value.message_dict


def test_times_are_kept_to_the_second_so_a_save_changes_nothing_it_was_not_asked_to():
    note = ResearchNoteFactory(published_at=timezone.now().replace(microsecond=123456))
    note.refresh_from_db()
    assert note.published_at.microsecond == 0
    ResearchNote.objects.filter(pk=note.pk).publish()
    fresh = ResearchNoteFactory(draft=True)
    ResearchNote.objects.filter(pk=fresh.pk).publish()
    fresh.refresh_from_db()
    assert fresh.published_at.microsecond == 0


def test_a_scheduled_item_preview_says_scheduled_not_draft(editor_client):
    note = ResearchNoteFactory(published_at=timezone.now() + HOUR)
    text = text_of(editor_client.get(note.get_absolute_url()))
    assert "Scheduled preview." in text
    assert "Scheduled for" in text
    assert "Draft preview." not in text
    expired = ResearchNoteFactory(
        published_at=timezone.now() - 2 * HOUR, unpublish_at=timezone.now() - HOUR
    )
    assert "Expired on" in text_of(editor_client.get(expired.get_absolute_url()))


def test_cached_pages_live_no_longer_than_the_next_scheduled_change():
    assert caching.page_cache_seconds() == 300
    ResearchNoteFactory(published_at=timezone.now() + datetime.timedelta(seconds=90))
    assert 88 <= caching.page_cache_seconds() <= 90
    ResearchNoteFactory(unpublish_at=timezone.now() + datetime.timedelta(seconds=30))
    assert 28 <= seconds_until_next_scheduled_change() <= 30
    assert caching.page_cache_seconds() <= 30


def test_the_next_change_is_looked_up_once_then_kept_current_by_saves(
    django_assert_num_queries,
):
    forget_next_scheduled_change()
    later = ResearchNoteFactory(published_at=timezone.now() + 2 * HOUR).published_at
    assert next_scheduled_change() == later  # looked up
    with django_assert_num_queries(0):
        assert next_scheduled_change() == later
    sooner = PaperFactory(unpublish_at=timezone.now() + HOUR).unpublish_at
    with django_assert_num_queries(0):
        assert next_scheduled_change() == sooner


def test_with_the_page_cache_off_the_next_change_is_still_remembered(
    settings, django_assert_num_queries
):
    # PAGE_CACHE_SECONDS=0 (the benchmark's uncached server) once meant "remember for 0 s":
    # one aggregate per Publishable model on every request.
    settings.PAGE_CACHE_SECONDS = 0
    forget_next_scheduled_change()
    later = ResearchNoteFactory(published_at=timezone.now() + 2 * HOUR).published_at
    assert next_scheduled_change() == later  # looked up
    with django_assert_num_queries(0):
        assert next_scheduled_change() == later


def test_cached_pages_feeds_and_api_switch_at_the_due_second(client):
    """Real time: an item due in two seconds, another expiring then; each surface is fetched
    (and cached) before, and shows the change right after, without any save in between."""
    surfaces = ["/feeds/latest.atom", "/api/v1/notes/", "/notes/", "/sitemap-notes.xml"]
    for path in surfaces:  # warm up (imports, first queries), so the timing below holds
        client.get(path)
    caching.bump_generation()
    due = timezone.now().replace(microsecond=0) + datetime.timedelta(seconds=3)
    coming = ResearchNoteFactory(title="Coming note", published_at=due)
    going = ResearchNoteFactory(title="Going note", unpublish_at=due)
    for path in surfaces:
        for _ in range(2):  # the second answer comes from the cache
            body = client.get(path).content.decode()
        assert "Going note" in body or going.slug in body, path
        assert "Coming note" not in body and coming.slug not in body, path
    assert client.get(coming.get_absolute_url()).status_code == 404
    assert timezone.now() < due, "too slow to check the state before the due time"

    time.sleep(max(0, (due - timezone.now()).total_seconds()) + 0.05)
    for path in surfaces:
        body = client.get(path).content.decode()
        assert "Coming note" in body or coming.slug in body, path
        assert "Going note" not in body and going.slug not in body, path
    assert client.get(coming.get_absolute_url()).status_code == 200
    assert client.get(going.get_absolute_url()).status_code == 404


@pytest.mark.parametrize("path", ["/notes/", "/api/v1/notes/"])
def test_a_page_cached_before_an_item_was_scheduled_shows_it_when_it_comes_due(client, path):
    """The page is stored with the lifetime known then; the item scheduled afterwards is out
    of public view, so its save does not make the page stale. The due change must still reach
    the cached answer (the page cache reads the next scheduled change in its one round trip)."""
    now = timezone.now()
    for _ in range(2):
        assert "Later note" not in client.get(path).content.decode()
    assert client.get(path)["X-Page-Cache"] == "hit"
    ResearchNoteFactory(title="Later note", published_at=now + HOUR)
    assert "Later note" not in client.get(path).content.decode()
    with at(now + HOUR + datetime.timedelta(seconds=1)):
        assert "Later note" in client.get(path).content.decode()


def test_stored_citing_counts_follow_the_schedule_without_a_save(client):
    """An edge that appears on schedule and one whose citing paper expires: the stored counts
    (citations/counts.py) are right for the first request after the due time."""
    now = timezone.now()
    hub = PaperFactory()
    CitationFactory(cited_paper=hub)
    CitationFactory(cited_paper=hub, published_at=now + HOUR)  # appears in an hour
    expiring = CitationFactory(cited_paper=hub).citing_paper
    expiring.unpublish_at = now + 2 * HOUR
    expiring.save()
    handle_due_changes(now)  # the sweep so far
    assert CitationCount.objects.get(paper=hub).total == 2

    with at(now + HOUR + datetime.timedelta(seconds=1)):
        client.get("/")
        assert CitationCount.objects.get(paper=hub).total == 3
        assert client.get(f"/api/v1/papers/{hub.slug}/").json()["citing_counts"]["total"] == 3
    with at(now + 2 * HOUR + datetime.timedelta(seconds=1)):
        client.get("/api/v1/papers/")
        assert CitationCount.objects.get(paper=hub).total == 2


def test_a_direct_publication_is_not_handled_again_as_a_scheduled_change(client):
    """A note published now is announced by its own save (the cache's generation moves then).
    When the remembered next change expires (every PAGE_CACHE_SECONDS), the look-up finds its
    publication time after the last sweep and sweeps; that sweep made every cached page stale
    a second time, as a withdrawal (no stale copy served: every warm page re-rendered by every
    request until stored), minutes after any editor published anything."""
    handle_due_changes(timezone.now() - datetime.timedelta(minutes=1))  # the last sweep
    note = ResearchNoteFactory(title="Direct note", published_at=timezone.now())
    forget_next_scheduled_change()  # as when the remembered value expires
    generation = caching.current_generation()
    assert "Direct note" in client.get("/notes/").content.decode()
    assert caching.current_generation() == generation
    assert swept_until() >= note.published_at  # swept all the same: the next look-up is short
