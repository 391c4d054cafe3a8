"""The neighbourhood graph: its page (SVG with a link per node, a table, a legend, no script
needed), its JSON and GraphML downloads and the API's copy; drafts never appear; the query
count does not grow with the graph."""

import io
import re

import networkx as nx
import pytest

from citations.models import DatePrecision
from discovery.bulk import refresh_all
from discovery.graph import UNKNOWN_YEAR_COLOUR, NeighbourhoodGraph
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def render_mode(settings):
    settings.PAGE_CACHE_SECONDS = 0


@pytest.fixture
def hub():
    """A hub citing two papers, cited by three (one classified contrasting), and a draft
    citing it; a similar paper sharing its references."""
    role = CitationRoleFactory(slug="method", name="Method")
    contrasting = CitationPolarityFactory(slug="contrasting", name="Contrasting")
    centre = PaperFactory(slug="hub", title="The hub paper")
    references = [PaperFactory(slug=f"ref-{n}", title=f"Reference {n}") for n in range(2)]
    for reference in references:
        CitationFactory(citing_paper=centre, cited_paper=reference)
    for n in range(3):
        citer = PaperFactory(slug=f"citer-{n}", title=f"Citer {n}")
        kwargs = {"role": role, "polarity": contrasting} if n == 0 else {}
        CitationFactory(citing_paper=citer, cited_paper=centre, **kwargs)
    twin = PaperFactory(
        slug="twin",
        title="Twin paper",
        date_precision=DatePrecision.UNKNOWN,
    )
    for reference in references:
        CitationFactory(citing_paper=twin, cited_paper=reference)
    draft = PaperFactory(slug="secret-draft", title="Secret draft paper", draft=True)
    CitationFactory(citing_paper=draft, cited_paper=centre)
    draft_edge_paper = PaperFactory(slug="draft-edge-citer", title="Draft edge citer")
    CitationFactory(citing_paper=draft_edge_paper, cited_paper=centre, draft=True)
    refresh_all()
    return centre


def svg_of(html):
    return re.search(r"<svg class=\"graph\".*?</svg>", html, re.S).group(0)


def test_the_page_draws_every_node_as_a_link(client, hub):
    response = client.get("/papers/hub/graph/")
    assert response.status_code == 200
    html = response.content.decode()
    svg = svg_of(html)
    slugs = set(re.findall(r'<a href="/papers/([^/]+)/"', svg))
    assert slugs == {"hub", "ref-0", "ref-1", "citer-0", "citer-1", "citer-2", "twin"}
    assert "<table" in html and html.count("<tr>") >= 8  # the papers, then the citations
    assert "Contrasting" in html and "Method" in html  # the legend names what is drawn
    assert "Date unknown" in html  # the twin's date is not known
    assert "{% extends" not in html and "<script" not in svg
    assert 'href="/papers/hub/graph.json"' in html and 'href="/papers/hub/graph.graphml"' in html


def test_drafts_are_never_nodes_links_or_counts(client, hub):
    for path in (
        "/papers/hub/graph/",
        "/papers/hub/graph.json",
        "/papers/hub/graph.graphml",
        "/api/v1/papers/hub/graph/",
        "/papers/hub/",
    ):
        body = client.get(path).content.decode()
        assert "secret-draft" not in body and "Secret draft" not in body, path
        assert "draft-edge-citer" not in body, path
    data = client.get("/api/v1/papers/hub/graph/").json()
    centre = next(node for node in data["nodes"] if node["slug"] == "hub")
    assert centre["cited_by_count"] == 3


def test_the_json_download_and_the_api_are_the_same_graph(client, hub):
    download = client.get("/papers/hub/graph.json")
    assert download["Content-Disposition"].startswith("attachment")
    api = client.get("/api/v1/papers/hub/graph/").json()
    assert download.json() == api
    assert api["nodes"][0]["slug"] == "hub"
    edge = next(e for e in api["edges"] if e["source"] == "citer-0")
    assert edge == {
        "source": "citer-0",
        "target": "hub",
        "kind": "citation",
        "role": "method",
        "polarity": "contrasting",
    }
    assert {
        "source": "hub",
        "target": "twin",
        "kind": "similar",
        "role": None,
        "polarity": None,
    } in api["edges"]
    twin = next(node for node in api["nodes"] if node["slug"] == "twin")
    assert twin["year"] is None


def test_the_graphml_download_reads_back(client, hub):
    response = client.get("/papers/hub/graph.graphml")
    assert response["Content-Type"].startswith("application/graphml+xml")
    graph = nx.read_graphml(io.BytesIO(response.content))
    assert set(graph.nodes) == {"hub", "ref-0", "ref-1", "citer-0", "citer-1", "citer-2", "twin"}
    assert graph.edges["citer-0", "hub"]["polarity"] == "contrasting"
    assert graph.nodes["hub"]["title"] == "The hub paper"


def test_the_layout_is_the_same_every_time(hub):
    first = NeighbourhoodGraph.for_paper(hub).as_data()
    second = NeighbourhoodGraph.for_paper(hub).as_data()
    assert first == second
    graph = NeighbourhoodGraph.for_paper(hub)
    for node in graph.nodes:
        assert 0 <= node.x <= graph.width and 0 <= node.y <= graph.height
    twin = next(node for node in graph.nodes if node.paper.slug == "twin")
    assert twin.colour == UNKNOWN_YEAR_COLOUR
    assert next(n for n in graph.nodes if n.paper.slug == "hub").radius > twin.radius


def test_a_paper_alone_is_a_graph_of_one(client):
    PaperFactory(slug="alone")
    response = client.get("/papers/alone/graph/")
    assert response.status_code == 200
    assert client.get("/api/v1/papers/alone/graph/").json()["edges"] == []


def test_an_old_slug_redirects(client, hub):
    hub.slug = "renamed-hub"
    hub.save()
    response = client.get("/papers/hub/graph/")
    assert response.status_code == 301 and response["Location"].endswith(
        "/papers/renamed-hub/graph/"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/papers/hub/graph/",
        "/papers/hub/graph.json",
        "/api/v1/papers/hub/graph/",
        "/api/v1/papers/hub/neighbours/",
        "/papers/hub/",
    ],
)
def test_more_nodes_add_no_query(client, hub, django_assert_max_num_queries, path):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(path)
    with CaptureQueriesContext(connection) as small:
        assert client.get(path).status_code == 200
    centre = hub
    for n in range(30):
        citer = PaperFactory(slug=f"more-{n}", title=f"More {n}")
        CitationFactory(citing_paper=citer, cited_paper=centre)
        CitationFactory(citing_paper=citer, cited_paper=PaperFactory())
    refresh_all()
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert client.get(path).status_code == 200
