"""One rule for a date the site knows (citations/dates.py): a paper whose date precision is
"unknown" keeps its placeholder date only to order the lists, and so does a claim whose
`reported_on_precision` is "unknown". Walked through every surface that shows a paper or a
claim, no day, month or year of the placeholder appears for it: pages (hub, lists, search,
layer page, claims, notes, the diagnosis, author and graph pages), the API (detail, lists,
facets), the exports, the feeds, the sitemaps and the public dump."""

import datetime
import json
import tomllib

import pytest
from django.test import Client

from citations.importers.apply import set_authors
from citations.models import DatePrecision, Paper
from discovery.bulk import refresh_all
from evidence.models import SignalLayer
from tests.factories import (
    CitationFactory,
    ClaimFactory,
    FailureSignalFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)
from web import demo_content
from web.dump import dump_files

pytestmark = pytest.mark.django_db

# A year nothing else on the site shows, so any "2031" is the placeholder leaking.
PLACEHOLDER = datetime.date(2031, 7, 19)
SHOWN_FORMS = ("2031", "Jul 19", "July 19", "2031-07", "2031/7")


def assert_no_placeholder(text, where):
    for form in SHOWN_FORMS:
        assert form not in text, f"{where} shows {form!r} for a paper of unknown date"


@pytest.fixture
def undated_world():
    layer = LayerFactory(slug="rewards", name="Reward quality")
    undated = PaperFactory(
        title="Glimmering Undated Preprint",
        slug="glimmering",
        publication_date=PLACEHOLDER,
        date_precision=DatePrecision.UNKNOWN,
    )
    undated.layers.add(layer)
    set_authors(undated, ["Ada Glimmer"])
    cited = PaperFactory(title="Cited Hub Paper", slug="hub", publication_date="2024-02-02")
    CitationFactory(citing_paper=undated, cited_paper=cited)
    # A claim whose date is not known either (as the migration marks a claim that typed its
    # paper's placeholder): the value orders the lists and is shown nowhere.
    claim = ClaimFactory(
        statement="Glimmering finding.",
        reported_on=PLACEHOLDER,
        reported_on_precision=DatePrecision.UNKNOWN,
    )
    claim.papers.add(undated)
    claim.layers.add(layer)
    note = ResearchNoteFactory(slug="glimmer-note", title="Glimmer note")
    note.papers.add(undated)
    note.layers.add(layer)
    claim.notes.add(note)
    signal = FailureSignalFactory(slug="glimmer-signal")
    SignalLayer.objects.create(signal=signal, layer=layer, strength=2)
    refresh_all()
    return undated


PAGES = [
    "/",
    "/research/",
    "/papers/",
    "/papers/glimmering/",
    "/papers/hub/",
    "/search/?q=Glimmering",
    "/search/?q=Glimmering&kind=papers",
    "/search/feed.atom?q=Glimmering",
    "/bottlenecks/rewards/",
    "/claims/",
    "/papers/feed.atom",
    "/feeds/latest.atom",
    "/bottlenecks/rewards/feed.atom",
    "/papers/hub/citing.atom",
    "/papers/glimmering.bib",
    "/papers/glimmering.ris",
    "/papers/glimmering.json",
    "/papers/glimmering.jsonld",
    "/papers/hub/citing.bib",
    "/papers/hub/citing.ris",
    "/papers/hub/citing.json",
    "/research/papers.bib",
    "/bottlenecks/rewards/papers.ris",
    "/api/v1/papers/glimmering/",
    "/api/v1/papers/",
    "/api/v1/papers/?group_by=year",
    "/api/v1/papers/?group_by=year&in_research_index=true",
    "/api/v1/papers/hub/citations/",
    "/api/v1/citations/?cited=hub",
    "/api/v1/claims/",
    "/notes/glimmer-note/",
    "/notes/",
    "/notes/feed.atom",
    "/feeds/notes-updated.atom",
    "/diagnose/bottlenecks/?signal=glimmer-signal",
    "/diagnose/tests/?signal=glimmer-signal",
    "/diagnose/plan/?signal=glimmer-signal",
    "/diagnose/plan.md?signal=glimmer-signal",
    "/diagnose/plan.json?signal=glimmer-signal",
    "/authors/",
    "/authors/ada-glimmer/",
    "/papers/glimmering/graph/",
    "/papers/glimmering/graph.json",
    "/papers/glimmering/graph.graphml",
    "/papers/hub/graph/",
    "/papers/hub/graph.json",
    "/papers/hub/graph.graphml",
    "/sitemap.xml",
    "/sitemap-pages.xml",
    "/sitemap-papers.xml",
    "/sitemap-notes.xml",
    "/sitemap-layers.xml",
    "/search/?q=Glimmering&kind=claims",
    "/search/feed.atom?q=Glimmering&kind=claims",
]


@pytest.mark.parametrize("url", PAGES)
def test_no_surface_shows_the_placeholder_date(undated_world, url):
    response = Client().get(url)
    assert response.status_code == 200, url
    assert_no_placeholder(response.content.decode(), url)


def test_the_year_facet_agrees_with_the_year_filter(undated_world):
    client = Client()
    for url in (
        "/api/v1/papers/?group_by=year",
        "/api/v1/papers/?group_by=year&in_research_index=true",
    ):
        groups = client.get(url).json()["groups"]
        assert all(group["value"] != 2031 for group in groups), url
    assert client.get("/api/v1/papers/", {"year": 2031}).json()["results"] == []
    searched = client.get("/search/", {"q": "Glimmering", "kind": "papers", "year": 2031})
    assert b'href="/papers/glimmering/"' not in searched.content


def test_the_layer_chart_plots_no_quarter_for_a_placeholder_or_a_year(undated_world):
    PaperFactory(
        slug="year-only", publication_date="2030-01-01", date_precision=DatePrecision.YEAR
    ).layers.add(undated_world.layers.get())
    page = Client().get("/bottlenecks/rewards/").content.decode()
    assert "2031 Q3" not in page
    assert "2030 Q1" not in page  # a year alone has no quarter


def test_the_dump_ships_null_and_the_precision(undated_world):
    files = dump_files()
    rows = [json.loads(line) for line in files["jsonl/papers.jsonl"].decode().splitlines()]
    shipped = next(row["fields"] for row in rows if row["fields"]["slug"] == "glimmering")
    assert shipped["publication_date"] is None
    assert shipped["date_precision"] == "unknown"
    for name in ("jsonl/papers.jsonl", "csv/papers.csv", "jsonl/claims.jsonl"):
        assert_no_placeholder(files[name].decode(), name)
    # The database keeps the placeholder: it still orders the lists.
    assert Paper.objects.get(slug="glimmering").publication_date == PLACEHOLDER


def test_a_claim_may_not_type_the_placeholder_as_its_date(undated_world):
    papers = {"glimmering": undated_world}
    row = {"slug": "c", "papers": ["glimmering"], "reported_on": PLACEHOLDER}
    with pytest.raises(ValueError, match="placeholder"):
        demo_content.check_reported_on(row, papers)
    demo_content.check_reported_on({**row, "reported_on": None}, papers)


def test_the_demo_claims_type_no_placeholder_date():
    papers = tomllib.loads((demo_content.DEMO_DIR / "papers.toml").read_text())["papers"]
    placeholders = {
        row["slug"]: row["publication_date"]
        for row in papers
        if row.get("date_precision") == DatePrecision.UNKNOWN
    }
    claims = tomllib.loads((demo_content.DEMO_DIR / "evidence.toml").read_text())["claims"]
    typed = [
        claim["slug"]
        for claim in claims
        for slug in claim.get("papers", [])
        if slug in placeholders and claim.get("reported_on") == placeholders[slug]
    ]
    assert typed == []


def test_the_layer_chart_counts_the_papers_it_cannot_place(undated_world):
    layer = undated_world.layers.get()
    PaperFactory(publication_date="2024-05-05").layers.add(layer)
    page = Client().get("/bottlenecks/rewards/").content.decode()
    assert "papers on this layer</span> (1; 1 more without a known quarter)" in page
