"""POST /api/v1/imports/: dry run, apply, confirm, errors, permissions."""

import pytest
from rest_framework.test import APIClient

from citations.importers.runs import ImportRun
from citations.models import Paper
from tests.helpers import IMPORT_FIXTURES, fixture_text

pytestmark = pytest.mark.django_db

URL = "/api/v1/imports/"


@pytest.fixture
def api(editor):
    client = APIClient()
    client.force_authenticate(editor)
    return client


def test_dry_run_then_confirm(api, roles):
    response = api.post(URL, {"text": fixture_text("papers.bib")}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["state"] == "previewed" and body["plan"]["counts"] == {"create": 4}
    assert body["plan"]["papers"][1]["duplicates_in_file"] == ["line 21 (@misc{ppo-duplicate})"]
    assert not Paper.objects.exists()

    response = api.post(body["url"])
    assert response.status_code == 201
    assert response.json()["state"] == "done"
    assert Paper.objects.count() == 4
    again = api.post(body["url"])
    assert again.status_code == 400 and again.json()["errors"]["state"]


def test_apply_at_once_with_an_upload(api, roles):
    with open(IMPORT_FIXTURES / "s2_paper.json", "rb") as upload:
        response = api.post(URL, {"file": upload, "apply": "true"}, format="multipart")
    assert response.status_code == 201, response.json()
    assert response.json()["counts"]["create"] == 6
    assert Paper.objects.get(arxiv_id="2510.13786").status == "draft"


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"text": fixture_text("broken.bib")}, "text", "line 7: BibTeX"),
        ({"text": "x", "format": "endnote"}, "format", ""),
        ({}, "text", "Send the records"),
        ({"text": fixture_text("zotero.json"), "format": "s2"}, "text", "paper 1: not a Semantic"),
        # Found by make fuzz: a text that is no id list, sent as arxiv-ids, was a 500.
        ({"text": "POST /api/v1/papers/batch", "format": "arxiv-ids"}, "text", "not a list"),
    ],
)
def test_bad_input_is_a_400_naming_the_record(api, payload, field, message):
    response = api.post(URL, {**payload, "apply": True}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400 and message in " ".join(body["errors"][field])
    assert not Paper.objects.exists() and not ImportRun.objects.exists()


def test_only_editors_may_import(reader):
    anonymous = APIClient().post(URL, {"text": fixture_text("papers.bib")}, format="json")
    assert anonymous.status_code == 401
    client = APIClient()
    client.force_authenticate(reader)
    assert client.post(URL, {"text": "2510.13786"}, format="json").status_code == 403
    assert not Paper.objects.exists()
