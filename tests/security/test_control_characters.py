"""One control character must not take an output down (issue 11, point 1): editorial text loses
C0 controls and lone surrogates at the model level, whatever door it comes through, and the
feed stays well-formed whatever is already stored."""

import json
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from citations.models import Paper
from core.text import clean_text
from notes.models import ResearchNote
from tags.models import Tag
from tests.factories import PaperFactory, ResearchNoteFactory
from tests.helpers import token_client

pytestmark = pytest.mark.django_db

PASTE = "Scaling\x0claws\x0b for\x1b[0m RL\x00\x07 \ud800done\ufffe"


def test_clean_text_keeps_tabs_and_newlines_and_drops_the_rest():
    assert clean_text("a\tb\nc\r\n") == "a\tb\nc\r\n"
    assert clean_text(PASTE) == "Scaling laws  for[0m RL done"
    assert clean_text("\u202eevil\u202c") == "\u202eevil\u202c"  # bidi controls are text


def test_model_saves_clean_every_text_field():
    paper = PaperFactory(title=PASTE, summary=PASTE, byline=PASTE)
    paper.refresh_from_db()
    for value in (paper.title, paper.summary, paper.byline):
        # The editorial rule also folds a vertical tab and its spaces into one space.
        assert value == "Scaling laws for[0m RL done"


def test_the_api_stores_clean_text(editor):
    paste = "Scaling\x0claws\x0b for\x1b RL\x07"
    body = {"title": paste, "summary": paste, "authors": ["Ada\x0cLovelace"], "tags": ["RL\x1b"]}
    response = token_client(editor).post(
        "/api/v1/papers/", json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["title"] == "Scaling laws for RL"
    assert body["authors"] == ["Ada Lovelace"]
    assert body["tags"] == ["RL"]


@pytest.mark.parametrize("character", ["\x00", "\ud800"])
def test_the_api_refuses_nul_and_lone_surrogates_with_a_400(editor, character):
    body = json.dumps({"title": f"bad{character}title"})
    response = token_client(editor).post("/api/v1/papers/", body, content_type="application/json")
    assert response.status_code == 400
    assert "title" in response.json()["errors"]


def test_the_admin_stores_clean_text(editor_client):
    note = ResearchNoteFactory()
    response = editor_client.get(f"/admin/notes/researchnote/{note.pk}/change/")
    assert response.status_code == 200
    note.title = "Admin\x0cpaste"
    note.save()
    assert ResearchNote.objects.get(pk=note.pk).title == "Admin paste"


def feed_xml():
    response = Client().get("/feeds/latest.atom")
    assert response.status_code == 200
    return ET.fromstring(response.content)


def test_the_feed_survives_controls_saved_through_the_model():
    paper = PaperFactory(title="Feed\x0ctitle", summary="x\x0by", byline="Lab\x1b")
    paper.tags.add("tag\x0cname")
    root = feed_xml()
    assert "Feed title" in ET.tostring(root, encoding="unicode")


def test_the_feed_survives_controls_already_stored_by_a_bulk_write():
    paper = PaperFactory()
    note = ResearchNoteFactory()
    tag = Tag.objects.create(name="clean", slug="clean")
    paper.tags.add(tag)
    # Around the model: what an old row, raw SQL or queryset.update() may hold.
    Paper.objects.filter(pk=paper.pk).update(title="Bulk\x0ctitle", summary="s\x1b", byline="\x07")
    ResearchNote.objects.filter(pk=note.pk).update(dek="dek\x0b")
    Tag.objects.filter(pk=tag.pk).update(name="bad\x0ctag")
    root = feed_xml()
    text = ET.tostring(root, encoding="unicode")
    assert "Bulk title" in text
    assert "bad tag" in text


def test_sitemaps_stay_well_formed_with_controls_stored():
    paper = PaperFactory()
    Paper.objects.filter(pk=paper.pk).update(title="Bulk\x0ctitle")
    tag = Tag.objects.create(name="t", slug="t")
    paper.tags.add(tag)
    Tag.objects.filter(pk=tag.pk).update(name="bad\x0ctag")
    index = Client().get("/sitemap.xml")
    ET.fromstring(index.content)
    for location in ET.fromstring(index.content).iter("{*}loc"):
        path = location.text.split("//", 1)[1].split("/", 1)[1]
        response = Client().get("/" + path)
        assert response.status_code == 200
        ET.fromstring(response.content)
