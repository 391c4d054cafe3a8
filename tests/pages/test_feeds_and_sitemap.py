"""The Atom feed, sitemap.xml and robots.txt: published content only, absolute SITE_URL links."""

import datetime
import re
import xml.etree.ElementTree as ET
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.test import override_settings
from django.urls.resolvers import URLResolver

from bottlenecks.models import Layer
from citations.models import Paper
from notes.models import ResearchNote
from tests.factories import LayerFactory, PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
FEED_QUERY_CEILING = 6
SITEMAP_QUERY_CEILING = 8
FUTURE = datetime.datetime(2999, 1, 1, tzinfo=datetime.UTC)


def feed_entries(client):
    response = client.get("/feeds/latest.atom")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    return [
        {
            "title": entry.findtext(f"{ATOM}title"),
            "link": entry.find(f"{ATOM}link").get("href"),
            "summary": entry.findtext(f"{ATOM}summary"),
            "categories": [c.get("term") for c in entry.findall(f"{ATOM}category")],
        }
        for entry in root.findall(f"{ATOM}entry")
    ]


def sitemap_index(client):
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml"
    root = ET.fromstring(response.content)
    return [entry.findtext(f"{SITEMAP}loc") for entry in root.findall(f"{SITEMAP}sitemap")]


def sitemap_locations(client):
    """Every URL of every section sitemap the index lists."""
    locations = []
    for section in sitemap_index(client):
        parts = urlsplit(section)
        response = client.get(parts.path, dict(parse_qsl(parts.query)))
        assert response.status_code == 200
        root = ET.fromstring(response.content)
        locations += [url.findtext(f"{SITEMAP}loc") for url in root.findall(f"{SITEMAP}url")]
    return locations


def test_feed_has_the_published_notes_and_index_papers(client, demo):
    entries = feed_entries(client)
    titles = [entry["title"] for entry in entries]
    assert len(entries) == ResearchNote.objects.published().count() + 18
    assert "Locked at the Entrance, Open Inside" in titles
    assert "The Art of Scaling Reinforcement Learning Compute for LLMs" in titles
    assert "Zone of Proximal Policy Optimization: Teacher in Prompts, Not Gradients" not in titles
    note = next(e for e in entries if e["title"] == "Locked at the Entrance, Open Inside")
    assert note["link"] == "http://127.0.0.1:8000/notes/locked-at-the-entrance-open-inside/"
    assert note["summary"].startswith("Across two controlled training setups")
    assert note["categories"][0] == "Research note" and "RLVR" in note["categories"]


def test_feed_is_newest_first(client, db):
    ResearchNoteFactory(title="Older", published_at="2026-01-01T00:00:00Z")
    PaperFactory(title="Newest", published_at="2026-03-01T00:00:00Z")
    ResearchNoteFactory(title="Middle", published_at="2026-02-01T00:00:00Z")
    assert [entry["title"] for entry in feed_entries(client)] == ["Newest", "Middle", "Older"]


def test_feed_leaves_out_drafts_and_future_items(client, db):
    ResearchNoteFactory(title="Draft note", draft=True)
    PaperFactory(title="Draft paper", draft=True)
    ResearchNoteFactory(title="Embargoed note", published_at=FUTURE)
    PaperFactory(title="Public paper")
    assert [entry["title"] for entry in feed_entries(client)] == ["Public paper"]


@override_settings(SITE_URL="https://rlscaling.example")
def test_feed_links_use_site_url_not_the_request_host(client, db):
    paper = PaperFactory()
    response = client.get("/feeds/latest.atom", HTTP_HOST="127.0.0.1")
    root = ET.fromstring(response.content)
    assert root.find(f"{ATOM}entry/{ATOM}link").get("href") == (
        f"https://rlscaling.example{paper.get_absolute_url()}"
    )


@pytest.mark.parametrize("url", ["/feeds/latest.atom", "/tags/grpo/feed.atom", "/papers/feed.atom"])
def test_a_feed_entry_works_out_its_link_once_and_its_id_is_permanent(client, db, monkeypatch, url):
    papers = [PaperFactory(in_research_index=True) for _ in range(3)]
    for paper in papers:
        paper.tags.add("grpo")
    note = ResearchNoteFactory()
    note.tags.add("grpo")
    calls = []
    for model in (Paper, ResearchNote):
        original = model.get_absolute_url
        monkeypatch.setattr(
            model,
            "get_absolute_url",
            lambda item, original=original: calls.append(item) or original(item),
        )
    root = ET.fromstring(client.get(url).content)
    entries = root.findall(f"{ATOM}entry")
    assert entries and len(calls) == len(entries)
    for entry in entries:
        # The row's id (a tag: URI), not the link: a renamed slug is not a new entry.
        assert re.fullmatch(r"tag:[^,]+,\d{4}:(paper|note):\d+", entry.find(f"{ATOM}id").text)


@pytest.mark.parametrize("url", ["/feeds/latest.atom", "/tags/grpo/feed.atom", "/papers/feed.atom"])
def test_a_feed_names_the_byline_else_the_authors_and_reads_authors_only_for_those(
    client, db, settings, url
):
    """At 1M nearly every paper has a byline: a feed reads the authors of the papers it shows
    without one, not of all the papers it considered."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from citations.models import Author, Authorship

    settings.PAGE_CACHE_SECONDS = 0
    with_byline = PaperFactory(title="With a byline", byline="Lab A", in_research_index=True)
    with_byline.tags.add("grpo")
    Authorship.objects.create(paper=with_byline, author=Author.objects.create(name="Hidden"))

    def authors_read():
        with CaptureQueriesContext(connection) as queries:
            root = ET.fromstring(client.get(url).content)
        names = {
            entry.find(f"{ATOM}title").text: entry.find(f"{ATOM}author/{ATOM}name").text
            for entry in root.findall(f"{ATOM}entry")
        }
        return names, sum('"citations_authorship"' in query["sql"] for query in queries)

    names, reads = authors_read()
    assert names == {"With a byline": "Lab A"} and reads == 0
    anonymous = PaperFactory(title="Without one", byline="", in_research_index=True)
    anonymous.tags.add("grpo")
    for position, name in enumerate(["Ada Lovelace", "Alan Turing"]):
        author = Author.objects.create(name=name)
        Authorship.objects.create(paper=anonymous, author=author, position=position)
    names, reads = authors_read()
    assert names["Without one"] == "Ada Lovelace, Alan Turing" and reads == 1


def test_feed_query_count_is_flat(client, db, django_assert_max_num_queries):
    for number in range(40):
        PaperFactory().tags.add(f"t{number}")
        ResearchNoteFactory().tags.add(f"n{number}")
    with django_assert_max_num_queries(FEED_QUERY_CEILING):
        assert len(feed_entries(client)) == 30


def test_sitemap_lists_every_public_page(client, demo):
    locations = set(sitemap_locations(client))
    base = "http://127.0.0.1:8000"
    for path in ["/", "/research/", "/bottlenecks/", "/bottlenecks/rewards/", "/tags/grpo/"]:
        assert base + path in locations
    for paper in Paper.objects.published():
        assert base + paper.get_absolute_url() in locations
    for note in ResearchNote.objects.published():
        assert base + note.get_absolute_url() in locations
    assert len(locations) == len(sitemap_locations(client))  # no duplicates
    assert Layer.objects.published().count() == 6


def test_sitemap_leaves_out_drafts(client, db):
    PaperFactory(slug="draft-paper", draft=True).tags.add("draft-only")
    ResearchNoteFactory(slug="draft-note", draft=True)
    LayerFactory(slug="draft-layer", draft=True)
    PaperFactory(slug="embargoed", published_at=FUTURE)
    PaperFactory(slug="public-paper").tags.add("public-tag")
    locations = " ".join(sitemap_locations(client))
    for hidden in ("draft-paper", "draft-note", "draft-layer", "embargoed", "draft-only"):
        assert hidden not in locations
    assert "/papers/public-paper/" in locations and "/tags/public-tag/" in locations


@override_settings(SITE_URL="https://rlscaling.example")
def test_sitemap_urls_use_site_url(client, db):
    PaperFactory(slug="a-paper")
    assert sitemap_index(client)[0] == "https://rlscaling.example/sitemap-pages.xml"
    locations = sitemap_locations(client)
    assert "https://rlscaling.example/papers/a-paper/" in locations
    assert all(location.startswith("https://rlscaling.example/") for location in locations)


def test_large_sections_are_split_into_pages(client, db, monkeypatch):
    from web.sitemaps import PaperSitemap

    monkeypatch.setattr(PaperSitemap, "limit", 10)
    for _ in range(25):
        PaperFactory()
    index = sitemap_index(client)
    assert [loc for loc in index if "sitemap-papers" in loc] == [
        "http://127.0.0.1:8000/sitemap-papers.xml",
        "http://127.0.0.1:8000/sitemap-papers.xml?p=2",
        "http://127.0.0.1:8000/sitemap-papers.xml?p=3",
    ]
    hubs = [loc for loc in sitemap_locations(client) if "/papers/" in loc]
    assert len(hubs) == 26  # the 25 hubs and the /papers/ list
    assert "http://127.0.0.1:8000/papers/" in hubs
    assert client.get("/sitemap-papers.xml", {"p": 4}).status_code == 404
    assert client.get("/sitemap-no-such-section.xml").status_code == 404


def test_sitemap_query_count_is_flat(client, db, django_assert_max_num_queries):
    with django_assert_max_num_queries(SITEMAP_QUERY_CEILING):
        sitemap_index(client)
    with django_assert_max_num_queries(SITEMAP_QUERY_CEILING):
        client.get("/sitemap-papers.xml")
    for number in range(30):
        PaperFactory().tags.add(f"t{number}")
        ResearchNoteFactory().tags.add(f"n{number}")
        LayerFactory()
    with django_assert_max_num_queries(SITEMAP_QUERY_CEILING):
        assert len(sitemap_index(client)) == 5
    for section in ("papers", "notes", "layers", "tags"):
        with django_assert_max_num_queries(SITEMAP_QUERY_CEILING):
            assert client.get(f"/sitemap-{section}.xml").status_code == 200
    assert len(sitemap_locations(client)) > 120


def test_robots_txt_points_at_the_sitemap(client, db):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    body = response.content.decode()
    assert "User-agent: *" in body
    assert "Disallow: /admin/" in body
    assert "Sitemap: http://127.0.0.1:8000/sitemap.xml" in body
    assert "Disallow: /api/" in body


def test_base_template_advertises_the_feed(client, db):
    html = client.get("/").content.decode()
    assert 'rel="alternate" type="application/atom+xml"' in html
    assert 'href="/feeds/latest.atom"' in html


def test_sitemaps_never_count_the_published_rows(client, db):
    """The index and the section pages are paged by id ranges (web/sitemaps.py): no
    COUNT over the papers through the publication rule, whatever the corpus size (issue 15)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):
        PaperFactory()
    for url in ["/sitemap.xml", "/sitemap-papers.xml", "/sitemap-notes.xml"]:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"]]
        assert not [sql for sql in counts if "citations_paper" in sql or "notes_" in sql], url


def test_a_sitemap_entry_has_its_location_date_frequency_and_priority(client, db):
    updated = datetime.datetime(2026, 5, 6, 23, 30, tzinfo=datetime.UTC)
    PaperFactory(slug="indexed", in_research_index=True)
    PaperFactory(slug="record", in_research_index=False)
    Paper.objects.update(updated_at=updated)
    response = client.get("/sitemap-papers.xml")
    assert response["Last-Modified"] == "Wed, 06 May 2026 23:30:00 GMT"
    assert response["X-Robots-Tag"] == "noindex, noodp, noarchive"
    entries = {
        url.findtext(f"{SITEMAP}loc"): [child.text for child in url][1:]
        for url in ET.fromstring(response.content).findall(f"{SITEMAP}url")
    }
    assert entries == {
        "http://127.0.0.1:8000/papers/indexed/": ["2026-05-06", "weekly", "0.7"],
        "http://127.0.0.1:8000/papers/record/": ["2026-05-06", "weekly", "0.4"],
    }
    index = ET.fromstring(client.get("/sitemap.xml").content)
    papers = index.findall(f"{SITEMAP}sitemap")[1]
    assert papers.findtext(f"{SITEMAP}lastmod") == "2026-05-06T23:30:00+00:00"


def test_a_sitemap_page_reverses_its_url_pattern_once_not_once_per_url(client, db, monkeypatch):
    """A reverse() and a model instance per URL were most of the time of a page of 500 URLs
    at 100k papers: the paths are formatted from one reverse() per page."""
    for _ in range(30):
        PaperFactory()
    reversed_names = []
    reverse_with_prefix = URLResolver._reverse_with_prefix

    def counting(resolver, lookup_view, *args, **kwargs):
        reversed_names.append(lookup_view)
        return reverse_with_prefix(resolver, lookup_view, *args, **kwargs)

    monkeypatch.setattr(URLResolver, "_reverse_with_prefix", counting)
    response = client.get("/sitemap-papers.xml")
    assert len(ET.fromstring(response.content).findall(f"{SITEMAP}url")) == 30
    assert reversed_names.count("paper-detail") == 1


def test_favicon_ico_leads_to_the_sites_icon(client):
    """Browsers and crawlers ask for /favicon.ico whatever the page links."""
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("favicon.svg")
