"""Dates the seeds do not give are data, not fact (issue 14): a paper's `date_precision` says
how much of its date is known, and every output shows only that much, "unknown" none at all;
arXiv versions are kept as a list; community posts that link to a search say so."""

import json

import bibtexparser
import pytest
from django.test import Client

from citations.exports.formats import csl_items, ris_records
from citations.models import DatePrecision, Paper
from notes.models import CommunityPost
from tests.factories import PaperFactory
from tests.helpers import ART_OF_SCALING, changes_nothing, run_import, token_client

pytestmark = pytest.mark.django_db

PLACEHOLDER = "2026-08-28"


@pytest.fixture
def undated():
    return PaperFactory(
        title="A Paper Without A Known Date",
        slug="undated",
        publication_date=PLACEHOLDER,
        date_precision=DatePrecision.UNKNOWN,
    )


def test_an_unknown_date_appears_in_no_output(undated):
    client = Client()
    hub = client.get("/papers/undated/").content.decode()
    for shown in (PLACEHOLDER, "2026/8/28", "Aug 28", "August 28"):
        assert shown not in hub
    assert "citation_publication_date" not in hub
    assert '"datePublished"' not in hub
    assert "Aug 28" not in client.get("/research/").content.decode()
    assert "Aug 28" not in client.get("/papers/").content.decode()
    bib = bibtexparser.parse_string(client.get("/papers/undated.bib").content.decode())
    assert "year" not in bib.entries[0].fields_dict
    assert (
        "issued" not in json.loads(json.dumps(csl_items([undated])))[0]
        or not (csl_items([undated])[0]["issued"])
    )
    assert "2026" not in ris_records([undated])
    assert client.get("/api/v1/papers/undated/").json()["publication_date"] is None
    assert client.get("/api/v1/papers/undated/").json()["date_precision"] == "unknown"


def test_an_unknown_date_still_keeps_the_papers_order(undated):
    older = PaperFactory(slug="older", publication_date="2026-01-01")
    newest_first = list(Paper.objects.filter(pk__in=[undated.pk, older.pk]).newest_first())
    assert newest_first == [undated, older]


def test_the_year_filters_do_not_count_a_placeholder(undated):
    PaperFactory(slug="dated", publication_date="2026-03-01")
    research = Client().get("/research/", {"year": 2026})
    assert research.status_code == 200
    assert b"A Paper Without A Known Date" not in research.content
    api = Client().get("/api/v1/papers/", {"year": 2026}).json()
    assert [paper["slug"] for paper in api["results"]] == ["dated"]


@pytest.mark.parametrize(
    ("precision", "shown", "meta"),
    [
        ("day", "Mar 18, 2025", "2025/3/18"),
        ("month", "Mar 2025", "2025/3"),
        ("year", "2025", "2025"),
    ],
)
def test_a_partial_date_shows_only_what_is_known(precision, shown, meta):
    paper = PaperFactory(slug="partial", publication_date="2025-03-18", date_precision=precision)
    paper.refresh_from_db()
    hub = Client().get(paper.get_absolute_url()).content.decode()
    assert shown in hub
    assert f'name="citation_publication_date" content="{meta}"' in hub
    assert csl_items([paper])[0]["issued"] == {"date-parts": [[int(p) for p in meta.split("/")]]}


def test_the_demo_marks_the_dates_the_seeds_do_not_give(demo):
    unknown = Paper.objects.filter(date_precision=DatePrecision.UNKNOWN)
    assert unknown.count() == 20
    assert not unknown.filter(arxiv_id__gt="").exists()
    art = Paper.objects.get(slug=ART_OF_SCALING)
    assert art.known_publication_date.isoformat() == "2025-10-15"
    assert "Aug 28, 2026" not in Client().get("/research/").content.decode()
    assert "Aug 28, 2026" not in Client().get("/").content.decode()


# -- arXiv versions ----------------------------------------------------------------------------


def test_a_versioned_id_typed_through_the_api_keeps_its_versions(editor):
    response = token_client(editor).post(
        "/api/v1/papers/",
        {"title": "Versioned", "arxiv_id": "arXiv:2401.00001v3"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["arxiv_id"] == "2401.00001"
    assert response.json()["arxiv_versions"] == ["v1", "v2", "v3"]


def test_a_versioned_id_typed_in_the_admin_keeps_its_versions(db):
    paper = Paper(title="Typed", slug="typed", arxiv_id="https://arxiv.org/abs/2401.00002v2")
    paper.full_clean()
    paper.save()
    paper.refresh_from_db()
    assert (paper.arxiv_id, paper.arxiv_versions) == ("2401.00002", ["v1", "v2"])


def test_an_arxiv_import_stores_the_versions_and_a_reimport_adds_none(db):
    run_import("arxiv_query.xml")
    math = Paper.objects.get(arxiv_id="2402.03300")
    assert math.arxiv_versions == ["v1", "v2", "v3"]
    assert changes_nothing(run_import("arxiv_query.xml"))


def test_bad_versions_are_refused_by_the_api(editor):
    response = token_client(editor).post(
        "/api/v1/papers/", {"title": "Bad", "arxiv_versions": ["x", 3]}, format="json"
    )
    assert response.status_code == 400
    assert "arxiv_versions" in response.json()["errors"]


# -- community posts ---------------------------------------------------------------------------


def test_community_links_that_open_a_search_say_so(demo):
    home = Client().get("/").content.decode()
    assert home.count("Search LessWrong for this post") == 4
    assert "opens the original" not in home
    post = Client().get("/api/v1/community-posts/").json()["results"][0]
    assert post["url_opens_search"] is True


def test_a_link_to_the_post_itself_is_not_called_a_search(db):
    post = CommunityPost(url="https://www.lesswrong.com/posts/abc123/a-post")
    assert not post.links_to_search
