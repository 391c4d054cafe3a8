"""Every paper URL answers in the format the client asks for (issue 17): HTML for browsers,
JSON-LD, CSL-JSON, BibTeX and RIS by Accept, 406 for anything else; extension URLs too; the page
cache keeps the representations apart."""

import json

import bibtexparser
import pytest
import rispy
from django.test import Client

from citations.models import Paper
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db

HUB = f"/papers/{ART_OF_SCALING}/"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"


def get(path, accept=None, client=None):
    client = client or Client()
    headers = {"accept": accept} if accept is not None else {}
    return client.get(path, headers=headers)


@pytest.mark.parametrize("accept", [None, "", "*/*", BROWSER, "text/html"])
def test_browsers_and_any_type_get_the_hub_page(demo, accept):
    response = get(HUB, accept)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "Accept" in response["Vary"]


def test_bibtex_by_accept(demo):
    response = get(HUB, "application/x-bibtex")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-bibtex")
    assert "Accept" in response["Vary"]
    library = bibtexparser.parse_string(response.content.decode())
    assert [entry.key for entry in library.entries] == ["khatri2025scaling"]


def test_csl_json_by_accept(demo):
    response = get(HUB, "application/vnd.citationstyles.csl+json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.citationstyles.csl+json")
    item = json.loads(response.content)  # one paper: one CSL item, an object
    assert item["type"] == "article"
    assert item["title"] == "The Art of Scaling Reinforcement Learning Compute for LLMs"
    assert item["author"][0] == {"family": "Khatri", "given": "Devvrit"}
    assert item["issued"] == {"date-parts": [[2025, 10, 15]]}


def test_ris_by_accept(demo):
    response = get(HUB, "application/x-research-info-systems")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-research-info-systems")
    (record,) = rispy.loads(response.content.decode())
    assert record["type_of_reference"] == "UNPB"
    assert record["authors"][0] == "Khatri, Devvrit"


def test_json_ld_by_accept(demo):
    response = get(HUB, "application/ld+json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/ld+json")
    data = json.loads(response.content)
    assert data["@type"] == "ScholarlyArticle"
    assert data["@reverse"]["cito:hasCitedEntity"]  # the papers citing the hub


def test_the_client_preference_wins(demo):
    response = get(HUB, "text/html;q=0.5, application/x-bibtex")
    assert response["Content-Type"].startswith("application/x-bibtex")
    response = get(HUB, "application/x-bibtex;q=0.5, text/html")
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("accept", ["image/png", "application/json", "text/plain", "x;;q=?"])
def test_an_unsupported_accept_is_406(demo, accept):
    response = get(HUB, accept)
    assert response.status_code == 406
    assert "application/x-bibtex" in response.content.decode()
    assert "Accept" in response["Vary"]


def test_a_draft_is_404_in_every_representation(demo):
    Paper.objects.filter(slug=ART_OF_SCALING).update(status="draft")
    for accept in ("text/html", "application/x-bibtex", "application/ld+json"):
        assert get(HUB, accept).status_code == 404
    for extension in ("bib", "json", "ris", "jsonld"):
        assert get(f"/papers/{ART_OF_SCALING}.{extension}").status_code == 404


@pytest.mark.parametrize(
    ("extension", "media_type"),
    [
        ("bib", "application/x-bibtex"),
        ("json", "application/vnd.citationstyles.csl+json"),
        ("ris", "application/x-research-info-systems"),
        ("jsonld", "application/ld+json"),
    ],
)
def test_extension_urls(demo, extension, media_type):
    response = get(f"/papers/{ART_OF_SCALING}.{extension}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(media_type)


def test_the_page_cache_never_serves_cached_html_to_a_bibtex_client(demo):
    client = Client()
    assert get(HUB, BROWSER, client).status_code == 200
    assert get(HUB, BROWSER, client)["X-Page-Cache"] == "hit"
    response = get(HUB, "application/x-bibtex", client)
    assert response["Content-Type"].startswith("application/x-bibtex")
    assert response.get("X-Page-Cache") != "hit"
    again = get(HUB, "application/x-bibtex", client)
    assert again["Content-Type"].startswith("application/x-bibtex")
    # Another browser's spelling of "HTML" shares the HTML entry.
    html = get(HUB, "text/html", client)
    assert html["Content-Type"].startswith("text/html") and html["X-Page-Cache"] == "hit"


def test_a_view_varying_on_accept_without_a_keyed_variant_is_not_stored(rf):
    from django.http import HttpResponse

    from pagecache.caching import keys_its_variants

    response = HttpResponse("x")
    response["Vary"] = "Accept-Encoding, Accept"
    assert not keys_its_variants(rf.get("/tags/"), response)
    assert keys_its_variants(rf.get(HUB), response)
    assert keys_its_variants(rf.get("/api/v1/papers/"), response)


def test_a_published_papers_json_ld_is_the_same_by_accept_and_an_edit_shows_at_once(demo, settings):
    """A hub's JSON-LD reads its newest typed citations each way, on every page-cache miss
    (another Accept, another worker): the same document by URL or by Accept, and an editorial
    change shows at once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.PAGE_CACHE_SECONDS = 0  # every request runs the view, as a page-cache miss does

    def json_ld(url, accept=None):
        with CaptureQueriesContext(connection) as queries:
            response = get(url, accept)
        assert response.status_code == 200
        edges = sum('"citations_citation"' in query["sql"] for query in queries)
        return json.loads(response.content), edges

    first, edges = json_ld(f"/papers/{ART_OF_SCALING}.jsonld")
    assert edges and first["name"]
    again, edges = json_ld(HUB, "application/ld+json")
    assert again == first and edges
    Paper.objects.get(slug=ART_OF_SCALING).tags.add("added-now")
    edited, edges = json_ld(f"/papers/{ART_OF_SCALING}.jsonld")
    assert "added-now" in edited["keywords"] and edges


def test_an_editor_sees_a_drafts_json_ld_as_it_is_now(demo, settings):
    """A draft's edits leave the generation alone (readers never see it): its JSON-LD is built
    afresh for the editor each time, never kept."""
    from tests.factories import UserFactory

    settings.PAGE_CACHE_SECONDS = 0
    paper = Paper.objects.get(slug=ART_OF_SCALING)
    paper.status = "draft"
    paper.save()
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert get(f"/papers/{ART_OF_SCALING}.jsonld", client=client).json()["name"] == paper.title
    paper.title = "Retitled in draft"
    paper.save()
    response = get(f"/papers/{ART_OF_SCALING}.jsonld", client=client)
    assert response.json()["name"] == "Retitled in draft"
