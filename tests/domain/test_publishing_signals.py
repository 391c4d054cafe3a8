"""Publishing announces changes readers may see (publishing/signals.py `content_changed`); the
page cache listens (pagecache/apps.py) and knows nothing of models or statuses."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from notes.models import ResearchNote
from pagecache import caching
from publishing.models import Status
from publishing.signals import content_changed
from tests.factories import ResearchNoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    announced = []

    def listener(sender, withdrawal, **kwargs):
        announced.append((sender, withdrawal))

    content_changed.connect(listener)
    yield announced
    content_changed.disconnect(listener)


def test_a_public_save_is_announced_a_draft_save_is_not(heard):
    draft = ResearchNoteFactory(draft=True)
    draft.title = "Still a draft"
    draft.save()
    assert heard == []
    note = ResearchNoteFactory()
    assert heard == [(ResearchNote, False)]
    note.status = Status.DRAFT
    note.save()
    assert heard[-1] == (ResearchNote, True)  # it left public view


def test_a_delete_and_a_tag_change_of_a_public_row_are_announced(heard):
    note = ResearchNoteFactory()
    heard.clear()
    note.tags.add("grpo")
    assert heard and all(withdrawal is False for _, withdrawal in heard)
    heard.clear()
    note.delete()
    assert (ResearchNote, True) in heard


def test_bulk_publish_and_unpublish_are_announced(heard):
    note = ResearchNoteFactory(draft=True)
    rows = ResearchNote.objects.filter(pk=note.pk)
    assert rows.publish() == 1
    assert heard == [(ResearchNote, False)]
    assert rows.unpublish() == 1
    assert heard == [(ResearchNote, False), (ResearchNote, True)]


def test_the_page_cache_listens(client):
    client.get("/notes/")
    assert client.get("/notes/")["X-Page-Cache"] == "hit"
    generation = caching.current_generation()
    content_changed.send(sender=ResearchNote, withdrawal=False)
    assert caching.current_generation() != generation
    assert "X-Page-Cache" not in Client().get("/notes/")  # rendered afresh


def test_a_scheduled_save_leaves_the_cache_alone(client):
    client.get("/notes/")
    generation = caching.current_generation()
    ResearchNoteFactory(published_at=timezone.now() + timedelta(hours=1))
    assert caching.current_generation() == generation
    assert client.get("/notes/")["X-Page-Cache"] == "hit"
