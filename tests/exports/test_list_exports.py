"""Downloads of a hub's citing papers (honouring the explorer's filters), a tag, a layer and a
research-index search, in every format, linked from those pages (issue 17)."""

import json

import bibtexparser
import pytest
import rispy
from django.test import Client
from pylatexenc.latex2text import LatexNodes2Text

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
