"""Site search at 100k papers (issue 16): a word in most titles is counted and ranked only up
to a bound, and the page says so; suggestions are bounded prefix lookups; the feed and the
year filter stay exact; on PostgreSQL every title lookup the search makes has an index."""

import datetime

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citations.models import Paper
from search import engine
from search.forms import years_with_papers
from tests.factories import PaperFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

SEARCH = "/search/"


def paper_titles(response):
    return [hit.title for group in response.context["groups"] for hit in group.hits]


@pytest.fixture
def walruses(db, monkeypatch):
    """Five papers titled with the word (a limit of three), and one titled just the word,
    older than all of them."""
    monkeypatch.setattr(engine, "MATCH_LIMIT", 3)
    for number in range(5):
        PaperFactory(
            title=f"Walrus study {number}", publication_date=datetime.date(2020 + number, 1, 1)
        )
    return PaperFactory(title="Walrus", publication_date=datetime.date(2010, 1, 1))


def test_a_word_in_more_titles_than_the_limit_is_counted_up_to_it_and_said_so(client, walruses):
    response = client.get(SEARCH, {"q": "walrus"})
    papers = {group.source.key: group for group in response.context["groups"]}["papers"]
    assert (papers.count, papers.more) == (3, True)
    text = text_of(response)
    assert "More than 3 results" in text
    assert "More than 3 papers →" in text


def test_only_the_newest_matches_and_an_exact_title_are_ranked(client, walruses):
    response = client.get(SEARCH, {"q": "walrus", "kind": "papers"})
    assert paper_titles(response) == [
        "Walrus",  # the title is the query: first, however old
        "Walrus study 4",
        "Walrus study 3",
        "Walrus study 2",
    ]
    assert "the 3 newest are ranked here" in text_of(response)


def test_under_the_limit_every_match_is_counted_and_listed(client, walruses, monkeypatch):
    monkeypatch.setattr(engine, "MATCH_LIMIT", 10)
    response = client.get(SEARCH, {"q": "walrus", "kind": "papers"})
    papers = response.context["groups"][0]
    assert (papers.count, papers.more) == (6, False)
    assert len(paper_titles(response)) == 6
    assert "6 results in papers" in text_of(response)


def test_the_feed_lists_the_newest_published_matches_not_only_the_ranked_ones(client, walruses):
    PaperFactory(title="Walrus notes from 1999", publication_date=datetime.date(1999, 1, 1))
    feed = client.get("/search/feed.atom", {"q": "walrus"}).content.decode()
    assert "Walrus notes from 1999" in feed


def suggested_papers(client, text):
    found = client.get("/search/suggest/", {"q": text}).json()["suggestions"]
    return [suggestion["title"] for suggestion in found if suggestion["kind"] == "Papers"]


def test_two_letters_suggest_the_titles_that_start_with_them_newest_first(client, db):
    PaperFactory(title="Discrete rewards", publication_date=datetime.date(2025, 1, 1))
    PaperFactory(title="Scaling old", publication_date=datetime.date(2020, 1, 1))
    PaperFactory(title="scaling new", publication_date=datetime.date(2024, 1, 1))
    PaperFactory(title="Scaling draft", draft=True)
    assert suggested_papers(client, "sc") == ["scaling new", "Scaling old"]


def test_from_three_letters_suggestions_add_titles_holding_them(client, db):
    PaperFactory(title="Discrete rewards", publication_date=datetime.date(2025, 1, 1))
    PaperFactory(title="Screening", publication_date=datetime.date(2020, 1, 1))
    PaperFactory(title="Discrete draft", draft=True)
    assert suggested_papers(client, "scr") == ["Screening", "Discrete rewards"]


def test_the_year_filter_offers_the_years_of_public_papers_and_follows_publication(db):
    PaperFactory(publication_date=datetime.date(2019, 3, 1))
    PaperFactory(publication_date=datetime.date(2023, 5, 1))
    PaperFactory(publication_date=None)
    draft = PaperFactory(publication_date=datetime.date(2021, 1, 1), draft=True)
    assert years_with_papers() == [2023, 2019]
    Paper.objects.filter(pk=draft.pk).publish()
    cache.clear()  # the years are kept per content generation; here: recomputed
    assert years_with_papers() == [2023, 2021, 2019]
    Paper.objects.filter(publication_date__year=2023).unpublish()
    cache.clear()
    assert years_with_papers() == [2021, 2019]


def test_the_year_filter_reads_the_stored_year_counts_not_the_papers(client, db):
    PaperFactory(publication_date=datetime.date(2019, 3, 1))
    draft = PaperFactory(publication_date=datetime.date(2021, 1, 1), draft=True)
    Paper.objects.filter(pk=draft.pk).publish()  # no cache to clear: the counts move with it
    with CaptureQueriesContext(connection) as queries:
        html = client.get("/search/").content.decode()
    assert '<option value="2021">2021</option>' in html
    assert '<option value="2019">2019</option>' in html
    # Not the papers' date span and one EXISTS per year over the paper table.
    spans = [
        query for query in queries if 'MIN("citations_paper"."publication_date")' in query["sql"]
    ]
    assert not spans


def test_no_published_paper_no_years(db):
    PaperFactory(publication_date=datetime.date(2021, 1, 1), draft=True)
    assert years_with_papers() == []


@pytest.mark.slow  # an EXPLAIN: guards the index (PostgreSQL, CI's slow step)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL indexes")
@pytest.mark.parametrize(
    "lookup, indexes",
    [
        # Django spells these UPPER("title"::text) LIKE/= UPPER(...) on PostgreSQL.
        ("title__icontains", {"paper_title_upper_trgm"}),
        ("title__iexact", {"paper_title_upper_pattern"}),
        ("title__istartswith", {"paper_title_upper_pattern", "paper_title_upper_trgm"}),
    ],
)
def test_each_title_lookup_of_the_search_has_an_index_on_postgresql(db, lookup, indexes):
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # the test table is tiny
    plan = Paper.objects.filter(**{lookup: "walrus"}).explain()
    assert any(index in plan for index in indexes), plan


def test_a_page_within_the_bound_counts_no_further_than_it(client, walruses, monkeypatch):
    """One kind past MATCH_LIMIT matches: the pages within the bound reuse its count ("more
    than"); the paginator used to count every match again (56,077 at 100k papers)."""
    from django.test.utils import CaptureQueriesContext

    from search import views

    monkeypatch.setattr(views, "PAGE_SIZE", 1)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(SEARCH, {"q": "walrus", "kind": "papers"})
    counts = [query["sql"] for query in queries.captured_queries if "COUNT(" in query["sql"]]
    assert len(counts) == 1 and "LIMIT" in counts[0], counts
    assert response.context["page"].count_is_bound
    assert "Page 1 of more than 3" in text_of(response)
    last = client.get(SEARCH, {"q": "walrus", "kind": "papers", "page": 4})
    assert last.status_code == 200  # past the bound: counted as before, still reachable
    assert [hit.title for hit in last.context["page"].object_list] == ["Walrus study 2"]
