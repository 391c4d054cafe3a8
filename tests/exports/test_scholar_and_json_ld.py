"""The hub page's metadata for Google Scholar and schema.org says what the exports say: a
technical report only when the exports call it one, the journal or conference of a paper
published in one; schema.org `citation` holds the works this paper cites (its citers are
`@reverse`), with the page's image, modification date and publisher; the large card on X."""

import json
import re

import pytest
from django.test import Client

from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db


def meta(html, name):
    return re.findall(rf'<meta name="{name}" content="([^"]*)">', html)


def page(paper):
    return Client().get(paper.get_absolute_url()).content.decode()


def test_an_arxiv_preprint_with_an_institution_is_no_technical_report():
    preprint = PaperFactory(arxiv_id="2512.99002", institution="Meta", publication_type="")
    html = page(preprint)
    assert meta(html, "citation_technical_report_institution") == []
    assert meta(html, "citation_arxiv_id") == ["2512.99002"]


@pytest.mark.parametrize(
    ("publication_type", "tag", "value"),
    [
        ("report", "citation_technical_report_institution", "Test University"),
        ("article", "citation_journal_title", "Journal of RL"),
        ("conference", "citation_conference_title", "Journal of RL"),
    ],
)
def test_reports_journals_and_conferences_are_named(publication_type, tag, value):
    paper = PaperFactory(publication_type=publication_type, venue="Journal of RL")
    html = page(paper)
    assert meta(html, tag) == [value]
    others = {
        "citation_technical_report_institution",
        "citation_journal_title",
        "citation_conference_title",
    } - {tag}
    assert all(meta(html, other) == [] for other in others)


def json_ld(html):
    (payload,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return json.loads(payload)


def test_schema_org_citation_is_what_this_paper_cites():
    hub = PaperFactory(slug="the-hub")
    cited = PaperFactory(slug="cited-by-hub")
    citers = PaperFactory.create_batch(3)
    for citer in citers:
        CitationFactory(citing_paper=citer, cited_paper=hub)
    CitationFactory(citing_paper=hub, cited_paper=cited)
    for data in (json_ld(page(hub)), Client().get("/papers/the-hub.jsonld").json()):
        assert [work["@id"] for work in data["citation"]] == [
            f"http://127.0.0.1:8000{cited.get_absolute_url()}"
        ]
        citing = data["@reverse"]["cito:hasCitedEntity"]
        assert {node["cito:hasCitingEntity"]["@id"] for node in citing} == {
            f"http://127.0.0.1:8000{citer.get_absolute_url()}" for citer in citers
        }
        assert data["image"].endswith("/papers/the-hub/card.png")
        assert data["dateModified"].startswith(str(hub.updated_at.date()))
        assert data["publisher"]["name"] == "RL Scaling"


def test_paper_and_note_pages_use_the_large_card():
    html = page(PaperFactory())
    assert meta(html, "twitter:card") == ["summary_large_image"]
    note = ResearchNoteFactory()
    html = Client().get(note.get_absolute_url()).content.decode()
    assert meta(html, "twitter:card") == ["summary_large_image"]
    assert meta(Client().get("/papers/").content.decode(), "twitter:card") == ["summary"]
