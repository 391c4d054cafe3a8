"""The schema tells the truth about the hub endpoint and URLs (issue 11, point 9), odd API paths
get the API's 404, and a PATCH without a precondition is applied (point 12)."""

import pytest
from django.test import Client

from apikit.concurrency import VersionedWritesMixin
from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import ART_OF_SCALING, token_client

pytestmark = pytest.mark.django_db


def test_the_hub_endpoint_is_documented_as_one_hub_object(client):
    schema = client.get("/api/v1/schema/").json()
    response = schema["paths"]["/api/v1/papers/{slug}/citations/"]["get"]["responses"]["200"]
    reference = response["content"]["application/json"]["schema"]["$ref"]
    name = reference.rsplit("/", 1)[1]
    hub = schema["components"]["schemas"][name]
    assert set(hub["properties"]) == {"paper", "summary", "next", "previous", "results"}
    results = hub["properties"]["results"]["items"]["$ref"]
    assert results.endswith("/HubCitation")


def test_the_hub_answer_matches_its_schema(client, demo):
    body = client.get(f"/api/v1/papers/{ART_OF_SCALING}/citations/").json()
    assert set(body) == {"paper", "summary", "next", "previous", "results"}
    assert "citing_paper" in body["results"][0]


def test_a_url_the_api_accepts_is_stored_as_a_uri(editor):
    response = token_client(editor).post(
        "/api/v1/papers/",
        {"title": "IRI", "url": "https://例え.jp/ä?q=ü"},
        format="json",
    )
    assert response.status_code == 201, response.content
    url = response.json()["url"]
    assert url.isascii() and " " not in url
    assert url.startswith("https://xn--")


@pytest.mark.parametrize(
    "path", ["/api/v1/papers/%0A/", "/api/v1/nothing%0Ahere/", "/api/v1/papers/x/%0A/y/"]
)
def test_paths_with_an_encoded_newline_get_the_json_404(path):
    response = Client().get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["status"] == 404


def test_a_patch_without_a_precondition_under_contention_is_applied(editor, monkeypatch):
    paper = PaperFactory(title="Before")
    original = VersionedWritesMixin.check_if_match

    def another_editor_saves_first(self, request, instance):
        Paper.objects.get(pk=instance.pk).save()  # bumps the stored version
        return original(self, request, instance)

    monkeypatch.setattr(VersionedWritesMixin, "check_if_match", another_editor_saves_first)
    response = token_client(editor).patch(
        f"/api/v1/papers/{paper.slug}/", {"title": "After"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert Paper.objects.get(pk=paper.pk).title == "After"


def test_a_patch_with_a_stale_version_is_still_refused(editor):
    paper = PaperFactory(title="Before")
    stale = paper.version
    paper.save()
    response = token_client(editor).patch(
        f"/api/v1/papers/{paper.slug}/", {"title": "After", "version": stale}, format="json"
    )
    assert response.status_code == 409
    assert f"you sent version {stale}" in response.json()["detail"]
