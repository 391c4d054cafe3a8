"""The site search at /search/ (issue 16): every kind of content, identifiers, highlighting,
filters, pagination, suggestions and the feed; drafts never."""

import re
import xml.etree.ElementTree as ET
from html import unescape
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.db import connection

from bottlenecks.models import Layer
from citations.models import Paper
from evidence.models import Claim
from notes.models import CommunityPost, ResearchNote
from search.highlight import highlight
from tests.factories import (
    ClaimFactory,
    CommunityPostFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

SEARCH = "/search/"
ATOM = "{http://www.w3.org/2005/Atom}"


def result_urls(response):
    return [hit.url for group in response.context["groups"] for hit in group.hits]


def result_titles(response):
    return [hit.title for group in response.context["groups"] for hit in group.hits]


@pytest.mark.parametrize("title", ["KnowGPO", "TASPO", "Locked at the Entrance", "Weblica"])
def test_titles_the_research_index_search_missed_are_found(client, demo, title):
    response = client.get(SEARCH, {"q": title})
    assert response.status_code == 200
    assert any(title.lower() in found.lower() for found in result_titles(response))


def test_every_kind_is_searched_and_grouped(client, demo):
    note = ResearchNote.objects.published().first()
    claim = Claim.objects.published().first()
    layer = Layer.objects.published().first()
    post = CommunityPost.objects.published().first()
    for kind, title in [
        ("notes", note.title),
        ("claims", claim.statement),
        ("layers", layer.name),
        ("posts", post.title),
    ]:
        response = client.get(SEARCH, {"q": title})
        groups = {group.source.key: group for group in response.context["groups"]}
        assert kind in groups, title
        assert title in [hit.title for hit in groups[kind].hits]


def test_tags_are_found_by_name(client, demo):
    response = client.get(SEARCH, {"q": "grpo"})
    groups = {group.source.key: group for group in response.context["groups"]}
    assert "/tags/grpo/" in [hit.url for hit in groups["tags"].hits]


def test_papers_are_found_by_author_abstract_and_summary(client, db):
    paper = PaperFactory(
        title="Plain title",
        abstract="We study the zeppelin effect in rollouts.",
        summary="An original note on quokka gradients.",
    )
    for text in ["zeppelin effect", "quokka"]:
        assert paper.get_absolute_url() in result_urls(client.get(SEARCH, {"q": text}))


@pytest.mark.parametrize(
    "pasted",
    [
        "2510.13786",
        "2510.13786v2",
        "arXiv:2510.13786",
        "https://arxiv.org/abs/2510.13786v2",
        "http://www.arxiv.org/pdf/2510.13786v1.pdf",
        "arxiv.org/abs/2510.13786",
        "10.48550/arXiv.2510.13786",
        "https://doi.org/10.48550/ARXIV.2510.13786",
    ],
)
def test_a_pasted_arxiv_id_or_doi_lands_on_the_paper(client, db, pasted):
    paper = PaperFactory(title="Scaling things", arxiv_id="2510.13786")
    response = client.get(SEARCH, {"q": pasted})
    assert response.status_code == 302
    assert response["Location"] == paper.get_absolute_url()


@pytest.mark.parametrize(
    "pasted", ["10.1234/ABC.5", "https://doi.org/10.1234/abc.5", "doi:10.1234/abc.5"]
)
def test_a_pasted_doi_of_a_journal_paper_lands_on_it(client, db, pasted):
    paper = PaperFactory(title="Journal thing", doi="10.1234/abc.5")
    response = client.get(SEARCH, {"q": pasted})
    assert response.status_code == 302
    assert response["Location"] == paper.get_absolute_url()


def test_demo_identifiers_land_on_their_papers(client, demo):
    for paper in Paper.objects.published().exclude(arxiv_id="")[:5]:
        url = f"https://arxiv.org/abs/{paper.arxiv_id}v2"
        response = client.get(SEARCH, {"q": url})
        assert response.status_code == 302
        assert response["Location"] == paper.get_absolute_url()


def test_drafts_are_never_found_nor_redirected_to(client, db):
    PaperFactory(draft=True, title="Secret zebra paper", arxiv_id="2601.00001")
    ResearchNoteFactory(draft=True, title="Secret zebra note")
    ClaimFactory(draft=True, statement="Secret zebra claim")
    LayerFactory(draft=True, name="Secret zebra layer")
    CommunityPostFactory(draft=True, title="Secret zebra post")
    response = client.get(SEARCH, {"q": "zebra"})
    assert response.status_code == 200
    assert response.context["total"] == 0
    assert "Secret" not in text_of(response).replace("Nothing matches", "")
    assert client.get(SEARCH, {"q": "2601.00001"}).status_code == 200
    suggest = client.get("/search/suggest/", {"q": "zebra"}).json()
    assert suggest["suggestions"] == []
    feed = client.get("/search/feed.atom", {"q": "zebra"}).content.decode()
    assert "Secret" not in feed


def test_matches_are_highlighted_after_escaping(client, db):
    PaperFactory(title="<b>Bold</b> scaling of rollouts", summary="Rollouts & <i>friends</i>")
    html = client.get(SEARCH, {"q": "rollouts"}).content.decode()
    assert "&lt;b&gt;Bold&lt;/b&gt; scaling of <mark>rollouts</mark>" in html
    assert "<mark>Rollouts</mark> &amp; &lt;i&gt;friends&lt;/i&gt;" in html
    assert "<b>Bold</b>" not in html


def test_highlight_marks_stems_and_never_markup():
    marked = highlight('Scaled "scaling" <script>', ["scaling"])
    assert marked == "<mark>Scaled</mark> &quot;<mark>scaling</mark>&quot; &lt;script&gt;"
    assert highlight("<mark>", ["mark"]) == "&lt;<mark>mark</mark>&gt;"


def test_a_long_text_is_excerpted_around_the_match(client, db):
    PaperFactory(title="Long one", summary=("filler words " * 60) + "the needle here " + "x " * 200)
    html = client.get(SEARCH, {"q": "needle"}).content.decode()
    excerpt = re.search(r'<p class="search-hit__text">(.*?)</p>', html).group(1)
    assert "<mark>needle</mark>" in excerpt
    assert excerpt.startswith("…") and excerpt.endswith("…")
    assert len(unescape(re.sub("<[^>]+>", "", excerpt))) < 300


def test_results_filter_by_kind_and_paginate(client, db):
    for number in range(25):
        PaperFactory(title=f"Walrus study {number}")
    ResearchNoteFactory(title="Walrus note")
    everything = client.get(SEARCH, {"q": "walrus"})
    groups = {group.source.key: group for group in everything.context["groups"]}
    assert groups["papers"].count == 25 and len(groups["papers"].hits) == 5
    assert "kind=papers" in everything.content.decode()
    first = client.get(SEARCH, {"q": "walrus", "kind": "papers"})
    assert [group.source.key for group in first.context["groups"]] == ["papers"]
    assert len(first.context["page"].object_list) == 20
    second = client.get(SEARCH, {"q": "walrus", "kind": "papers", "page": 2})
    assert len(second.context["page"].object_list) == 5
    assert not set(result_urls(first)) & set(result_urls(second))
    assert client.get(SEARCH, {"q": "walrus", "kind": "papers", "page": 9}).status_code == 404


def test_results_filter_by_year(client, db):
    import datetime

    PaperFactory(title="Narwhal old", publication_date=datetime.date(2023, 5, 1))
    PaperFactory(title="Narwhal new", publication_date=datetime.date(2025, 5, 1))
    response = client.get(SEARCH, {"q": "narwhal", "year": 2025})
    assert result_titles(response) == ["Narwhal new"]
    assert '<option value="2023">2023</option>' in response.content.decode()


@pytest.mark.parametrize(
    "params",
    [
        {"q": "x", "kind": "everything-else"},
        {"q": "x", "year": "twenty"},
        {"q": "x", "year": "99999"},
        {"q": "x" * 201},
    ],
)
def test_bad_parameters_are_a_400_with_the_reason(client, db, params):
    response = client.get(SEARCH, params)
    assert response.status_code == 400
    assert "This search could not be run" in response.content.decode()
    assert client.get("/search/feed.atom", params).status_code == 400


def test_an_empty_result_suggests_something(client, demo):
    response = client.get(SEARCH, {"q": "qqxyzzyplugh"})
    assert response.status_code == 200
    text = text_of(response)
    assert "Nothing matches" in text
    assert "arXiv id" in text
    assert 'href="/tags/' in response.content.decode()
    assert 'href="/papers/"' in response.content.decode()


def test_an_empty_query_shows_the_form(client, db):
    response = client.get(SEARCH)
    assert response.status_code == 200
    assert "What are you looking for?" in text_of(response)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="trigram similarity: PostgreSQL")
def test_a_typo_still_finds_the_title_on_postgresql(client, db):
    PaperFactory(title="Reinforcement learning for language models")
    response = client.get(SEARCH, {"q": "reinforcment"})
    assert "Reinforcement learning for language models" in result_titles(response)


def test_the_search_page_has_one_search_box_and_a_feed_link(client, demo):
    html = client.get(SEARCH, {"q": "scaling"}).content.decode()
    assert html.count('type="search"') == 1
    assert re.search(r'<link rel="alternate" type="application/atom\+xml"[^>]+/search/feed', html)


def test_the_feed_lists_matching_papers_and_notes(client, demo):
    note = ResearchNote.objects.published().first()
    response = client.get("/search/feed.atom", {"q": note.title})
    assert response.status_code == 200
    root = ET.fromstring(response.content)
    titles = [entry.find(f"{ATOM}title").text for entry in root.iter(f"{ATOM}entry")]
    assert note.title in titles


def test_suggestions_start_at_two_characters(client, demo):
    assert client.get("/search/suggest/", {"q": "k"}).json()["suggestions"] == []
    found = client.get("/search/suggest/", {"q": "KnowG"}).json()["suggestions"]
    assert any("KnowGPO" in suggestion["title"] for suggestion in found)
    assert all(set(suggestion) == {"title", "url", "kind"} for suggestion in found)


def test_suggestions_read_only_the_titles_and_slugs_of_papers(client, demo):
    """A suggestion is a title and a link: typing must not load abstracts or authors."""
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        found = client.get("/search/suggest/", {"q": "KnowG"}).json()["suggestions"]
    assert any("KnowGPO" in suggestion["title"] for suggestion in found)
    papers = [q["sql"] for q in queries if q["sql"].startswith('SELECT "citations_paper"."id"')]
    assert papers and not [sql for sql in papers if '"abstract"' in sql.partition(" FROM ")[0]]
    assert not [q for q in queries if '"citations_authorship"' in q["sql"]]


def test_the_site_pages_searched_read_the_guide_once_and_show_an_edit_at_once(
    client, demo, settings
):
    from django.test.utils import CaptureQueriesContext

    from notes.models import GuideSection

    settings.PAGE_CACHE_SECONDS = 0  # every request runs the view, as a page-cache miss does

    def suggested(text):
        with CaptureQueriesContext(connection) as queries:
            found = client.get("/search/suggest/", {"q": text}).json()["suggestions"]
        assert sum('"notes_guidesection"' in query["sql"] for query in queries) == 1
        return [suggestion["title"] for suggestion in found]

    assert "Research index" in suggested("Research")
    assert "Research index" not in suggested("Every paper we track")
    GuideSection.objects.filter(key="research-index").update(heading="Every paper we track")
    assert "Research index" in suggested("Every paper we track")


def test_suggestions_for_an_identifier_name_the_paper(client, demo):
    paper = Paper.objects.published().exclude(arxiv_id="").first()
    found = client.get("/search/suggest/", {"q": f"arXiv:{paper.arxiv_id}"}).json()
    assert found["suggestions"][0]["url"] == paper.get_absolute_url()


def test_search_queries_stay_few(client, demo, django_assert_max_num_queries):
    # Per kind a COUNT and the rows (papers: + authors); pages: the guide sections and
    # analyses; tags for the empty state; session/generation bookkeeping.
    with django_assert_max_num_queries(20):
        client.get(SEARCH, {"q": "scaling"})


def sitemap_locations(client):
    index = ET.fromstring(client.get("/sitemap.xml").content)
    namespace = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    for section in index.iter(f"{namespace}loc"):
        parts = urlsplit(section.text)
        sitemap = client.get(parts.path, dict([parts.query.split("=")]) if parts.query else {})
        for loc in ET.fromstring(sitemap.content).iter(f"{namespace}loc"):
            yield urlsplit(loc.text).path


# slow (`make test-all`, CI's slow step): a search for the title of every page in the sitemap.
@pytest.mark.slow
def test_search_finds_the_title_of_every_public_page(client, demo):
    """Walk the sitemap; each page's h1, searched for, lists that page among the results."""

    def search(**params):
        cache.clear()  # the rendered context, not a cached page
        response = client.get(SEARCH, params)
        assert response.status_code == 200, params
        return response.context

    missed = []
    for path in sitemap_locations(client):
        html = client.get(path).content.decode()
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)
        title = unescape(re.sub(r"<[^>]+>", "", heading.group(1))).strip()
        urls = []
        for group in search(q=title)["groups"]:
            source_urls = [hit.url for hit in group.hits]
            if group.count > len(group.hits):  # the page might be further down its kind
                pages = search(q=title, kind=group.source.key)["page"].paginator.page_range
                source_urls = [
                    hit.url
                    for number in pages
                    for hit in search(q=title, kind=group.source.key, page=number)["page"]
                ]
            urls += source_urls
        if path not in urls:
            missed.append((path, title))
    assert missed == []


def test_the_search_feed_keeps_each_requests_parameters_apart(rf, db):
    """One feed object serves every request (and every thread of a threaded server): what a
    request asked for must travel with its own object, not sit on the shared feed, or one
    reader's feed links to another's search."""
    from search.feeds import SearchFeed

    feed = SearchFeed()
    first = feed.get_object(rf.get("/search/feed.atom", {"q": "scaling", "kind": "papers"}))
    feed.get_object(rf.get("/search/feed.atom", {"q": "reward"}))
    assert feed.link(first).endswith("/search/?q=scaling&kind=papers")
    assert feed.feed_url(first).endswith("/search/feed.atom?q=scaling&kind=papers")


@pytest.mark.parametrize("kind", ["", "papers"])
def test_a_paper_hit_names_the_byline_else_the_authors_and_reads_authors_only_for_those(
    client, db, settings, kind
):
    """As the feeds: the search read the authors of every paper hit, while a hit shows them only
    for a paper without a byline (nearly every paper has one). Its feed shows neither."""
    from django.test.utils import CaptureQueriesContext

    from citations.models import Author, Authorship

    settings.PAGE_CACHE_SECONDS = 0
    with_byline = PaperFactory(title="Zeppelin with a byline", byline="Lab A")
    Authorship.objects.create(paper=with_byline, author=Author.objects.create(name="Zed Unshown"))

    def shown(url):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, {"q": "zeppelin", **({"kind": kind} if kind else {})})
        assert response.status_code == 200
        # Reads of authorships, not the match (on SQLite, `EXISTS` over them in the WHERE).
        reads = [
            q for q in queries if 'FROM "citations_authorship"' in q["sql"].split(" WHERE ")[0]
        ]
        return text_of(response), len(reads)

    text, reads = shown(SEARCH)
    assert "Lab A" in text and "Zed Unshown" not in text and reads == 0
    assert shown("/search/feed.atom")[1] == 0
    anonymous = PaperFactory(title="Zeppelin without one", byline="")
    for position, name in enumerate(["Ada Lovelace", "Alan Turing"]):
        author = Author.objects.create(name=name)
        Authorship.objects.create(paper=anonymous, author=author, position=position)
    text, reads = shown(SEARCH)
    assert "Ada Lovelace, Alan Turing" in text and reads == 1
