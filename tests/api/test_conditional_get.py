"""ETag and Last-Modified on lists and details, so tools can poll cheaply."""

import time

import pytest
from django.utils.http import http_date, parse_http_date

from citations.models import Paper
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    "/api/v1/papers/",
    "/api/v1/citations/",
    "/api/v1/notes/",
    "/api/v1/tags/",
    "/api/v1/layers/",
    "/api/v1/questions/",
    "/api/v1/citation-roles/",
]


@pytest.mark.parametrize("url", ENDPOINTS)
def test_lists_answer_304_to_a_matching_if_none_match(anon, url):
    PaperFactory().tags.add("grpo")
    first = anon.get(url)
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    again = anon.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert anon.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200
    assert anon.get(url, HTTP_IF_NONE_MATCH=f'"x", W/{etag}').status_code == 304


def test_list_etag_changes_when_the_content_does(anon):
    paper = PaperFactory()
    etag = anon.get("/api/v1/papers/")["ETag"]
    paper.title = "Retitled"
    paper.save()
    response = anon.get("/api/v1/papers/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] != etag


def test_detail_has_etag_and_last_modified(anon):
    paper = PaperFactory()
    url = f"/api/v1/papers/{paper.slug}/"
    response = anon.get(url)
    # The later of the paper's own change and its edges' (the recount on its first save
    # stamps those a moment after it, which may be the next second).
    counts = Paper.objects.select_related("citation_count").get(pk=paper.pk).citation_count
    changed = max(paper.updated_at, counts.edges_changed_at or paper.updated_at)
    assert response["Last-Modified"] == http_date(changed.timestamp())
    assert anon.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    assert anon.get(url, HTTP_IF_MODIFIED_SINCE=response["Last-Modified"]).status_code == 304
    assert anon.get(url, HTTP_IF_MODIFIED_SINCE="Mon, 01 Jan 2001 00:00:00 GMT").status_code == 200
    # If-None-Match wins over If-Modified-Since (RFC 9110).
    assert (
        anon.get(
            url,
            HTTP_IF_NONE_MATCH='"stale"',
            HTTP_IF_MODIFIED_SINCE=response["Last-Modified"],
        ).status_code
        == 200
    )


def test_a_new_citation_changes_the_cited_papers_etag_and_last_modified(anon):
    paper = PaperFactory()
    url = f"/api/v1/papers/{paper.slug}/"
    before = anon.get(url)
    edge = CitationFactory(cited_paper=paper)
    after = anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after.json()["citing_counts"]["total"] == 1
    # The recount that follows the edge stamps the change, a moment after the edge's own time
    # (a second later when a second boundary falls between them).
    changed = parse_http_date(after["Last-Modified"])
    assert int(edge.updated_at.timestamp()) <= changed <= time.time()
    assert changed >= parse_http_date(before["Last-Modified"])


def test_representations_vary_by_credentials(anon, editor_api):
    response = anon.get("/api/v1/papers/")
    assert {"accept", "authorization", "cookie"} <= {
        header.strip().lower() for header in response["Vary"].split(",")
    }
    assert "no-cache" in response["Cache-Control"]
    assert "private" in editor_api.get("/api/v1/papers/")["Cache-Control"]


def test_drafts_change_the_etag_for_editors_only(anon, editor_api):
    PaperFactory()
    public_etag = anon.get("/api/v1/papers/")["ETag"]
    PaperFactory(draft=True)
    assert anon.get("/api/v1/papers/", HTTP_IF_NONE_MATCH=public_etag).status_code == 304
    assert editor_api.get("/api/v1/papers/", HTTP_IF_NONE_MATCH=public_etag).status_code == 200


def test_hub_call_is_conditional_too(anon):
    paper = PaperFactory()
    url = f"/api/v1/papers/{paper.slug}/citations/"
    etag = anon.get(url)["ETag"]
    assert anon.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    CitationFactory(cited_paper=paper)
    assert anon.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200
