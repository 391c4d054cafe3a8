"""Browse pages for whole collections: /papers/, /notes/ and /tags/ (issue 16)."""

import datetime

import pytest
from django.urls import reverse

from citations.models import Paper
from notes.models import ResearchNote
from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import text_of
from web import browse

pytestmark = pytest.mark.django_db

BROWSE_URLS = ["/papers/", "/notes/", "/tags/"]
# The COUNT, the rows, and one query per prefetch (papers: authors, tags, layers, notes;
# notes: figures, tags, papers, layers); tags: the COUNT and the rows with their counts.
PAPERS_QUERY_CEILING = 6
NOTES_QUERY_CEILING = 6
TAGS_QUERY_CEILING = 2


@pytest.mark.parametrize("url", BROWSE_URLS)
def test_browse_pages_answer_and_are_in_the_nav(client, demo, url):
    response = client.get(url)
    assert response.status_code == 200
    assert f'href="{url}"' in response.content.decode()  # linked from the site nav


def test_papers_lists_every_published_paper_not_only_the_index(client, demo):
    response = client.get("/papers/", {"sort": "title"})
    published = Paper.objects.published()
    assert response.context["page"].paginator.count == published.count()
    assert published.filter(in_research_index=False).exists()
    outside = published.filter(in_research_index=False).order_by("title").first()
    all_titles = [
        paper.title
        for number in response.context["page"].paginator.page_range
        for paper in client.get("/papers/", {"sort": "title", "page": number}).context["page"]
    ]
    assert outside.title in all_titles
    assert len(all_titles) == published.count()


def test_notes_lists_every_published_note(client, demo):
    text = text_of(client.get("/notes/"))
    notes = ResearchNote.objects.published()
    assert notes.exists()
    for note in notes:
        assert note.title in text


def test_tags_lists_public_tags_with_counts(client, db):
    for paper in PaperFactory.create_batch(2):
        paper.tags.add("grpo")
    ResearchNoteFactory().tags.add("grpo", "notes-only")
    PaperFactory(draft=True).tags.add("grpo", "secret")
    response = client.get("/tags/")
    text = text_of(response)
    assert "2 papers, 1 research note" in text  # grpo: the draft is not counted
    assert "0 papers, 1 research note" in text  # notes-only
    assert "secret" not in text
    assert reverse("tag-detail", kwargs={"slug": "grpo"}) in response.content.decode()


def test_drafts_and_scheduled_items_are_never_listed(client, db):
    future = datetime.datetime(2999, 1, 1, tzinfo=datetime.UTC)
    PaperFactory(title="Public paper")
    PaperFactory(title="Draft paper", draft=True)
    PaperFactory(title="Scheduled paper", published_at=future)
    ResearchNoteFactory(title="Public note")
    ResearchNoteFactory(title="Draft note", draft=True)
    ResearchNoteFactory(title="Scheduled note", published_at=future)
    papers, notes = text_of(client.get("/papers/")), text_of(client.get("/notes/"))
    assert "Public paper" in papers and "Draft paper" not in papers
    assert "Scheduled paper" not in papers
    assert "Public note" in notes and "Draft note" not in notes and "Scheduled note" not in notes


def test_a_draft_citation_is_not_counted(client, db):
    cited = PaperFactory(title="Cited paper")
    CitationFactory.create_batch(2, cited_paper=cited)
    CitationFactory(cited_paper=cited, draft=True)
    assert "Cited by 2 papers" in text_of(client.get("/papers/"))


def test_papers_sort_by_title_newest_and_most_cited(client, db):
    alpha = PaperFactory(title="Alpha", publication_date=datetime.date(2020, 1, 2))
    beta = PaperFactory(title="beta", publication_date=datetime.date(2025, 1, 2))
    gamma = PaperFactory(title="Gamma", publication_date=None)
    CitationFactory.create_batch(3, cited_paper=gamma)
    CitationFactory(cited_paper=alpha)

    def order(sort):
        page = client.get("/papers/", {"sort": sort} if sort else {}).context["page"]
        return [paper.pk for paper in page if paper.pk in (alpha.pk, beta.pk, gamma.pk)]

    assert order(None) == [beta.pk, alpha.pk, gamma.pk]  # newest first, undated last
    assert order("newest") == [beta.pk, alpha.pk, gamma.pk]
    assert order("title") == [alpha.pk, beta.pk, gamma.pk]  # case-insensitive
    assert order("cited") == [gamma.pk, alpha.pk, beta.pk]


def test_notes_and_tags_sort(client, db):
    old = ResearchNoteFactory(
        title="Zebra", published_at=datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
    )
    new = ResearchNoteFactory(title="aardvark")
    old.tags.add("rare")
    new.tags.add("common")
    PaperFactory().tags.add("common")
    notes = lambda sort: [n.pk for n in client.get("/notes/", {"sort": sort}).context["page"]]  # noqa: E731
    assert notes("newest") == [new.pk, old.pk]
    assert notes("title") == [new.pk, old.pk]
    tags = lambda sort: [t.slug for t in client.get("/tags/", {"sort": sort}).context["page"]]  # noqa: E731
    assert tags("name") == ["common", "rare"]
    assert tags("items") == ["common", "rare"]
    old.tags.add("aaa")
    assert tags("name")[0] == "aaa"


@pytest.mark.parametrize("url", BROWSE_URLS)
@pytest.mark.parametrize("sort", ["bogus", "-title", "x" * 300])
def test_an_unknown_sort_is_a_400_and_unknown_params_are_ignored(client, db, url, sort):
    PaperFactory().tags.add("grpo")
    ResearchNoteFactory()
    response = client.get(url, {"sort": sort})
    assert response.status_code == 400
    assert "Select a valid choice" in text_of(response)
    assert client.get(url, {"utm_source": "x", "colour": "red"}).status_code == 200


@pytest.mark.parametrize("url", BROWSE_URLS)
def test_pagination_and_a_missing_page_is_404(client, db, url, monkeypatch):
    monkeypatch.setattr(browse, "PAPERS_PAGE_SIZE", 2)
    monkeypatch.setattr(browse, "NOTES_PAGE_SIZE", 2)
    monkeypatch.setattr(browse, "TAGS_PAGE_SIZE", 2)
    for n in range(5):
        PaperFactory().tags.add(f"tag-{n}")
        ResearchNoteFactory()
    first = client.get(url, {"sort": browse_default(url)})
    assert first.context["page"].paginator.num_pages == 3
    last = client.get(url, {"page": 3, "sort": browse_default(url)})
    assert last.status_code == 200 and len(last.context["page"]) == 1
    assert 'rel="prev"' in last.content.decode()
    assert f"sort={browse_default(url)}" in first.content.decode()  # page links keep the sort
    assert client.get(url, {"page": 9}).status_code == 404


def browse_sorts(url):
    return {
        "/papers/": browse.PAPER_SORTS,
        "/notes/": browse.NOTE_SORTS,
        "/tags/": browse.TAG_SORTS,
    }[url]


def browse_default(url):
    return {"/papers/": "newest", "/notes/": "newest", "/tags/": "name"}[url]


def test_undated_papers_say_date_unknown_never_a_made_up_day(client, db):
    PaperFactory(title="Undated paper", publication_date=None)
    PaperFactory(title="Dated paper", publication_date=datetime.date(2025, 3, 14))
    text = text_of(client.get("/papers/"))
    assert "Date unknown" in text
    assert text.count("Date unknown") == 1
    assert "Mar 14, 2025" in text


def test_sitemap_lists_the_browse_pages(client, db):
    from tests.pages.test_feeds_and_sitemap import sitemap_locations

    locations = sitemap_locations(client)
    for url in BROWSE_URLS:
        assert any(location.endswith(url) for location in locations), url


@pytest.mark.parametrize(
    ("url", "sort", "ceiling"),
    [
        ("/papers/", "newest", PAPERS_QUERY_CEILING),
        ("/papers/", "title", PAPERS_QUERY_CEILING),
        ("/papers/", "cited", PAPERS_QUERY_CEILING),
        ("/notes/", "newest", NOTES_QUERY_CEILING),
        ("/notes/", "title", NOTES_QUERY_CEILING),
        ("/tags/", "name", TAGS_QUERY_CEILING),
        ("/tags/", "items", TAGS_QUERY_CEILING),
    ],
)
def test_query_counts_do_not_grow_with_the_page(
    client, db, django_assert_max_num_queries, url, ceiling, sort
):
    for n in range(20):
        paper = PaperFactory()
        paper.tags.add(f"tag-{n}", "shared")
        CitationFactory(cited_paper=paper)
        note = ResearchNoteFactory()
        note.tags.add(f"tag-{n}")
        note.papers.add(paper)
    client.get(url)  # warm per-process caches (ContentType)
    with django_assert_max_num_queries(ceiling):
        assert client.get(url, {"sort": sort}).status_code == 200
