"""Scheduling is explicit: "published" with a future time is stored as "scheduled"; what
readers see follows the status alone; `manage.py publish_scheduled` (run every minute) publishes
scheduled rows whose time has come and unpublishes expired ones, on every surface, cached pages
and stored citing counts included, and announces it to the page cache."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from citations.models import CitationCount, Paper
from notes.models import ResearchNote
from pagecache import caching
from publishing.management.commands.publish_scheduled import due_q, flip, publish_scheduled
from publishing.models import PublicationState, Status
from publishing.signals import content_changed
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


def test_a_future_publication_is_stored_as_scheduled_and_hidden():
    note = ResearchNoteFactory(published_at=timezone.now() + HOUR)
    assert note.status == Status.SCHEDULED
    assert note not in ResearchNote.objects.published()
    assert note in ResearchNote.objects.scheduled()
    ResearchNote.objects.filter(pk=note.pk).update(status=Status.DRAFT)
    ResearchNote.objects.filter(pk=note.pk).publish()  # the bulk action schedules it too
    note.refresh_from_db()
    assert note.status == Status.SCHEDULED


def test_what_readers_see_follows_the_status_not_the_clock():
    """No surface compares times with the clock any more: a scheduled row whose time has come
    stays hidden until the command publishes it."""
    now = timezone.now()
    note = ResearchNoteFactory(published_at=now + HOUR)
    with at(now + 2 * HOUR):
        assert note not in ResearchNote.objects.published()
        assert Client().get(note.get_absolute_url()).status_code == 404
        call_command("publish_scheduled", verbosity=0)
        assert note in ResearchNote.objects.published()


SURFACES = ["/feeds/latest.atom", "/api/v1/notes/", "/notes/", "/sitemap-notes.xml"]


def test_scheduled_rows_appear_and_expire_on_every_surface_when_the_command_runs(client):
    """Each surface is fetched (and cached) before; after the due time it still shows the
    old state until the command runs, then the new one (the command's saves announce it)."""
    now = timezone.now()
    coming = ResearchNoteFactory(title="Coming note", published_at=now + HOUR)
    going = ResearchNoteFactory(title="Going note", unpublish_at=now + HOUR)
    later = now + HOUR + datetime.timedelta(seconds=1)
    with at(later):
        for path in SURFACES:
            for _ in range(2):  # the second answer comes from the cache
                body = client.get(path).content.decode()
            assert "Going note" in body or going.slug in body, path
            assert "Coming note" not in body and coming.slug not in body, path
        assert client.get(path)["X-Page-Cache"] == "hit"

        call_command("publish_scheduled", verbosity=0)
        for path in SURFACES:
            body = client.get(path).content.decode()
            assert "Coming note" in body or coming.slug in body, path
            assert "Going note" not in body and going.slug not in body, path
        assert client.get(coming.get_absolute_url()).status_code == 200
        assert client.get(going.get_absolute_url()).status_code == 404
    coming.refresh_from_db()
    going.refresh_from_db()
    assert (coming.status, going.status) == (Status.PUBLISHED, Status.DRAFT)
    assert going.get_publication_state_display(later).startswith("Expired on ")
    assert coming.history.first().history_change_reason == "Scheduled change came due"


def test_the_command_announces_what_it_changes_and_nothing_else():
    now = timezone.now()
    ResearchNoteFactory(published_at=now + HOUR)
    ResearchNoteFactory(unpublish_at=now + 2 * HOUR)
    heard = []

    def listener(sender, withdrawal, **kwargs):
        heard.append((sender, withdrawal))

    content_changed.connect(listener)
    try:
        assert publish_scheduled() == {"published": 0, "unpublished": 0}
        assert heard == []
        with at(now + HOUR):
            assert publish_scheduled() == {"published": 1, "unpublished": 0}
        assert heard == [(ResearchNote, False)]
        with at(now + 2 * HOUR):
            assert publish_scheduled() == {"published": 0, "unpublished": 1}
        assert heard == [(ResearchNote, False), (ResearchNote, True)]
    finally:
        content_changed.disconnect(listener)


def test_the_command_is_idempotent():
    now = timezone.now()
    note = ResearchNoteFactory(published_at=now + HOUR)
    with at(now + 2 * HOUR):
        call_command("publish_scheduled", verbosity=0)
        note.refresh_from_db()
        version, records = note.version, note.history.count()
        generation = caching.current_generation()
        call_command("publish_scheduled", verbosity=0)
    note.refresh_from_db()
    assert (note.status, note.version, note.history.count()) == (
        Status.PUBLISHED,
        version,
        records,
    )
    assert caching.current_generation() == generation  # nothing changed, nothing announced


def test_a_second_run_that_read_the_same_rows_does_no_harm():
    """Two runs at once (cron overlapping a slow run): the one that saves second finds the
    rows saved since it read them and leaves them (the save is a compare-and-swap on the
    version; on PostgreSQL it would not even read rows the first run holds locked)."""
    now = timezone.now()
    coming = ResearchNoteFactory(published_at=now + HOUR)
    going = ResearchNoteFactory(unpublish_at=now + HOUR)
    later = now + 2 * HOUR
    with at(later):
        read_by_the_second = list(ResearchNote._base_manager.filter(due_q(later)).order_by("pk"))
        assert len(read_by_the_second) == 2
        assert publish_scheduled() == {"published": 1, "unpublished": 1}
        records = coming.history.count() + going.history.count()
        assert [flip(row) for row in read_by_the_second] == [False, False]
    assert coming.history.count() + going.history.count() == records
    coming.refresh_from_db()
    going.refresh_from_db()
    assert (coming.status, going.status) == (Status.PUBLISHED, Status.DRAFT)


def test_an_editors_save_after_the_due_time_makes_the_change_itself():
    now = timezone.now()
    note = ResearchNoteFactory(published_at=now + HOUR)
    with at(now + 2 * HOUR):
        note.title = "Edited after its time came"
        note.save()
    assert note.status == Status.PUBLISHED


def test_stored_citing_counts_follow_the_command(client):
    """An edge that appears on schedule and one whose citing paper expires: the stored counts
    (citations/stats/counts.py) move when the command saves them, as for an editor's save."""
    now = timezone.now()
    hub = PaperFactory()
    CitationFactory(cited_paper=hub)
    CitationFactory(cited_paper=hub, published_at=now + HOUR)  # appears in an hour
    expiring = CitationFactory(cited_paper=hub).citing_paper
    expiring.unpublish_at = now + 2 * HOUR
    expiring.save()
    assert CitationCount.objects.get(paper=hub).total == 2

    with at(now + HOUR + datetime.timedelta(seconds=1)):
        publish_scheduled()
        assert CitationCount.objects.get(paper=hub).total == 3
        assert client.get(f"/api/v1/papers/{hub.slug}/").json()["citing_counts"]["total"] == 3
    with at(now + 2 * HOUR + datetime.timedelta(seconds=1)):
        publish_scheduled()
        assert CitationCount.objects.get(paper=hub).total == 2
