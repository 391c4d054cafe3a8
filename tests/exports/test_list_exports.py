"""Downloads of a hub's citing papers (honouring the explorer's filters), a tag, a layer and a
research-index search, in every format, linked from those pages (issue 17)."""

import json
import re

import bibtexparser
import pytest
import rispy
from django.core.cache import cache
from django.test import Client
from pylatexenc.latex2text import LatexNodes2Text

from citations.exports import downloads as exports
from citations.models import Citation, Paper
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db

FORMATS = ["bib", "json", "ris"]


def titles(response):
    """The paper titles in a downloaded file, whatever its format."""
    text = response.content.decode()
    if response["Content-Type"].startswith("application/x-bibtex"):
        library = bibtexparser.parse_string(text)
        assert not library.failed_blocks
        decode = LatexNodes2Text().latex_to_text
        return {decode(entry.fields_dict["title"].value) for entry in library.entries}
    if "csl+json" in response["Content-Type"]:
        return {item["title"] for item in json.loads(text)}
    return {record["title"] for record in rispy.loads(text)}


@pytest.mark.parametrize("extension", FORMATS)
def test_hub_export_holds_the_citing_papers_the_explorer_lists(demo, extension):
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    edges = Citation.objects.public().filter(cited_paper=hub)
    url = f"/papers/{ART_OF_SCALING}/citing.{extension}"
    response = Client().get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith(f'-citing.{extension}"')
    assert titles(response) == set(edges.values_list("citing_paper__title", flat=True))
    role = edges.exclude(role=None).values_list("role__slug", flat=True).first()
    filtered = Client().get(f"{url}?role={role}")
    expected = edges.filter(role__slug=role).values_list("citing_paper__title", flat=True)
    assert titles(filtered) == set(expected) and len(expected) < edges.count()


def test_hub_export_rejects_a_bad_filter(demo):
    response = Client().get(f"/papers/{ART_OF_SCALING}/citing.bib?role=made-up")
    assert response.status_code == 400


def test_hub_export_never_holds_a_draft_citing_paper(demo):
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    edge = Citation.objects.public().filter(cited_paper=hub).first()
    Paper.objects.filter(pk=edge.citing_paper_id).update(status="draft")
    response = Client().get(f"/papers/{ART_OF_SCALING}/citing.json")
    assert edge.citing_paper.title not in titles(response)


@pytest.mark.parametrize("extension", FORMATS)
def test_tag_layer_and_search_exports(demo, extension):
    client = Client()
    tagged = set(
        Paper.objects.published().filter(tags__slug="grpo").values_list("title", flat=True)
    )
    assert titles(client.get(f"/tags/grpo/papers.{extension}")) == tagged
    layer = set(
        Paper.objects.published().filter(layers__slug="compute").values_list("title", flat=True)
    )
    assert titles(client.get(f"/bottlenecks/compute/papers.{extension}")) == layer
    found = client.get(f"/research/papers.{extension}?q=scaling")
    assert found.status_code == 200
    assert titles(found) == set(
        Paper.objects.in_research_index().search("scaling").values_list("title", flat=True)
    )


def test_unknown_or_draft_lists_are_404(demo):
    client = Client()
    assert client.get("/tags/no-such-tag/papers.bib").status_code == 404
    assert client.get("/bottlenecks/no-such-layer/papers.bib").status_code == 404
    assert client.get("/papers/no-such-paper/citing.bib").status_code == 404
    assert client.get(f"/papers/{ART_OF_SCALING}/citing.pdf").status_code == 404


def test_pages_link_their_downloads_with_their_filters(demo):
    client = Client()
    hub = client.get(f"/papers/{ART_OF_SCALING}/?role=background&page=1").content.decode()
    assert f'href="/papers/{ART_OF_SCALING}/citing.bib?role=background"' in hub
    assert f'href="/papers/{ART_OF_SCALING}.ris" download' in hub
    assert (
        f'<link rel="alternate" type="application/x-bibtex" href="/papers/{ART_OF_SCALING}.bib"'
        in hub
    )
    assert 'href="/tags/grpo/papers.json"' in client.get("/tags/grpo/").content.decode()
    layer = client.get("/bottlenecks/compute/").content.decode()
    assert 'href="/bottlenecks/compute/papers.ris"' in layer
    research = client.get("/research/?q=scaling").content.decode()
    assert 'href="/research/papers.bib?q=scaling"' in research


LIST_DOWNLOADS = [
    f"/papers/{ART_OF_SCALING}/citing.{{}}?role=background",
    f"/papers/{ART_OF_SCALING}/citing.{{}}",
    "/tags/grpo/papers.{}",
    "/bottlenecks/compute/papers.{}",
    "/research/papers.{}?q=scaling",
]


def link(response, relation):
    """The URL the answer's Link header names for `relation`, or None."""
    found = re.search(rf'<([^>]+)>; rel="{relation}"', response.get("Link", ""))
    return found[1] if found else None


@pytest.mark.parametrize("extension", FORMATS)
@pytest.mark.parametrize("url", LIST_DOWNLOADS)
def test_a_long_list_continues_in_files_each_linked_to_the_next(demo, monkeypatch, url, extension):
    """A list longer than one download is never cut silently: each file holds EXPORT_LIMIT
    papers and names the next one (with the same filters), until every paper was in one."""
    client = Client()
    url = url.format(extension)
    whole = titles(client.get(url))
    monkeypatch.setattr(exports, "EXPORT_LIMIT", 2)
    cache.clear()  # the whole list's file, cached by the page cache
    assert len(whole) > 2
    seen, pages, next_url = [], 0, url
    while next_url:
        response = client.get(next_url)
        assert response.status_code == 200
        pages += 1
        previous = link(response, "prev")
        assert (previous is None) if pages == 1 else previous.endswith(f"page={pages - 1}")
        page = titles(response)
        assert 1 <= len(page) <= 2
        seen += page
        next_url = link(response, "next")
        if next_url:
            assert next_url.startswith(url.split("?")[0] + "?")
            assert next_url.endswith(f"page={pages + 1}")
            assert all(part in next_url for part in url.partition("?")[2].split("&"))
    assert pages == -(-len(whole) // 2)
    assert sorted(seen) == sorted(whole)  # each paper in exactly one file


@pytest.mark.parametrize("page", ["0", "-1", "x", "1.5", "١", "9" * 12])
def test_a_list_download_answers_a_bad_page_with_400(demo, page):
    response = Client().get(f"/tags/grpo/papers.bib?page={page}")
    assert response.status_code == 400


def test_a_list_download_past_its_last_page_is_404(demo):
    assert Client().get("/tags/grpo/papers.bib?page=2").status_code == 404
    assert Client().get("/tags/grpo/papers.bib?page=1").status_code == 200


@pytest.mark.parametrize("url", LIST_DOWNLOADS[:4])
def test_a_list_download_keeps_the_lists_order(demo, url, monkeypatch):
    """Each file lists its papers newest first, as the hub's explorer, the tag's and the
    layer's pages do, on every page of a long list (an undated paper last)."""
    monkeypatch.setattr(exports, "EXPORT_LIMIT", 3)
    client, listed, next_url = Client(), [], url.format("json")
    while next_url:
        response = client.get(next_url)
        listed += [item["id"] for item in json.loads(response.content)]
        next_url = link(response, "next")
    dates = dict(Paper.objects.values_list("cite_key", "publication_date"))
    newest_first = sorted(
        listed, key=lambda key: (dates[key] is not None, dates[key] or 0), reverse=True
    )
    assert len(listed) > 3
    assert [dates[key] for key in listed] == [dates[key] for key in newest_first]


@pytest.mark.parametrize("url", LIST_DOWNLOADS)
def test_a_list_download_builds_no_model_instance_per_paper(demo, url):
    """What a file costs grows with its papers only: each is read as values (its columns and its
    authors' names), never as an instance of the paper, the edges, authorships or authors."""
    from django.db.models.signals import post_init

    built = []

    def count(sender, **kwargs):
        built.append(sender.__name__)

    post_init.connect(count)
    try:
        response = Client().get(url.format("json"))
    finally:
        post_init.disconnect(count)
    entries = len(json.loads(response.content))
    assert entries > 1
    assert built.count("Paper") <= 1  # the hub, whose citing papers these are
    assert not {"Author", "Authorship", "Citation", "CitationRole"} & set(built)
