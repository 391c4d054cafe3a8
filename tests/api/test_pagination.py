"""Cursor pagination on papers and citations (stable order, next links), page numbers
elsewhere, and query counts that do not grow with the page size."""

import base64

import pytest

from citations.models import Paper
from tests.api.conftest import walk
from tests.conftest import ART_OF_SCALING
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    CommunityPostFactory,
    DimensionFactory,
    LayerFactory,
    LoopStageFactory,
    PaperFactory,
    QuestionFactory,
    ResearchNoteFactory,
)

pytestmark = pytest.mark.usefixtures("demo")


@pytest.mark.parametrize(
    ("url", "total"),
    [
        ("/api/v1/papers/", 56),
        ("/api/v1/papers/?ordering=title", 56),
        ("/api/v1/papers/?ordering=publication_date", 56),
        ("/api/v1/papers/?ordering=-cited_by_count", 56),
        ("/api/v1/citations/", 30),
        (f"/api/v1/papers/{ART_OF_SCALING}/citations/", 30),
    ],
)
def test_cursor_pages_cover_every_row_once_in_order(anon, url, total):
    everything = anon.get(f"{url}{'&' if '?' in url else '?'}page_size=100").json()["results"]
    paged, pages = walk(anon, f"{url}{'&' if '?' in url else '?'}page_size=7")
    assert len(paged) == total
    assert paged == everything
    assert pages == -(-total // 7)


def test_cursor_pages_have_previous_links(anon):
    first = anon.get("/api/v1/papers/?page_size=10").json()
    assert first["previous"] is None
    second = anon.get(first["next"]).json()
    back = anon.get(second["previous"]).json()
    assert back["results"] == first["results"]


def test_cursor_is_stable_when_a_newer_paper_appears(anon):
    first = anon.get("/api/v1/papers/?page_size=10").json()
    PaperFactory(publication_date="2030-01-01")
    second = anon.get(first["next"]).json()
    assert second["results"][0]["slug"] not in [row["slug"] for row in first["results"]]


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        base64.b64encode(b"p=not-a-date").decode(),
        base64.b64encode(b"o=-3").decode(),
        base64.b64encode(b"p=%00").decode(),
    ],
)
def test_bad_cursors_are_404_not_500(anon, cursor):
    response = anon.get("/api/v1/papers/", {"cursor": cursor})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_page_size_is_capped(anon):
    assert len(anon.get("/api/v1/papers/?page_size=1000").json()["results"]) == 56
    assert len(anon.get("/api/v1/papers/?page_size=3").json()["results"]) == 3


def test_page_number_pagination_elsewhere(anon):
    first = anon.get("/api/v1/questions/?page_size=4").json()
    assert first["count"] == 9 and len(first["results"]) == 4
    assert first["next"].endswith("page=2&page_size=4")
    assert anon.get("/api/v1/questions/?page=99").status_code == 404


@pytest.fixture
def crowded(demo):
    """The demo plus enough rows that every list has more than 50 to page through."""
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    layers = LayerFactory.create_batch(55)
    for n in range(55):
        note = ResearchNoteFactory()
        note.papers.add(hub)
        note.layers.add(layers[n])
        note.tags.add(f"extra-{n}", "grpo")
        note.figures.create(value=f"{n}%", label="a figure")
        CitationFactory(cited_paper=hub)
    CitationRoleFactory.create_batch(55)
    CitationPolarityFactory.create_batch(55)
    CommunityPostFactory.create_batch(55)
    QuestionFactory.create_batch(55)
    DimensionFactory.create_batch(55)
    LoopStageFactory.create_batch(55)


LIST_ENDPOINTS = [
    ("/api/v1/papers/", 6),
    ("/api/v1/citations/", 1),
    (f"/api/v1/papers/{ART_OF_SCALING}/citations/", 5),
    ("/api/v1/citation-roles/", 2),
    ("/api/v1/citation-polarities/", 2),
    ("/api/v1/tags/", 4),
    ("/api/v1/notes/", 6),
    ("/api/v1/community-posts/", 2),
    ("/api/v1/questions/", 2),
    ("/api/v1/dimensions/", 2),
    ("/api/v1/loop-stages/", 2),
    ("/api/v1/layers/", 2),
    ("/api/v1/analyses/", 3),
]


@pytest.mark.usefixtures("crowded")
@pytest.mark.parametrize(("url", "ceiling"), LIST_ENDPOINTS)
def test_list_query_count_does_not_grow_with_page_size(
    anon, editor_api, django_assert_max_num_queries, url, ceiling
):
    for page_size in (5, 50):
        with django_assert_max_num_queries(ceiling):
            response = anon.get(f"{url}?page_size={page_size}")
        assert response.status_code == 200
        if "analyses" not in url:  # there is one analysis
            assert len(response.json()["results"]) == page_size
        # An editor's token lookup and permission checks add a fixed three.
        with django_assert_max_num_queries(ceiling + 3):
            assert editor_api.get(f"{url}?page_size={page_size}").status_code == 200
