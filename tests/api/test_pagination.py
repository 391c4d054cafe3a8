"""Cursor pagination on papers, citations and the hub (stable order, next and previous
links), page numbers elsewhere."""

import base64

import pytest

from tests.factories import PaperFactory
from tests.helpers import ART_OF_SCALING, walk

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo")]


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


def test_a_statement_timeout_on_a_cursor_page_is_503_not_an_invalid_cursor(anon, monkeypatch):
    """At 1M citations a cancelled statement (the anonymous statement timeout) answered 404
    "Invalid cursor": every DatabaseError was taken for a tampered cursor."""
    from django.db import OperationalError
    from rest_framework import pagination

    def cancelled(*args, **kwargs):
        raise OperationalError("canceling statement due to statement timeout")

    monkeypatch.setattr(pagination.CursorPagination, "paginate_queryset", cancelled)
    response = anon.get("/api/v1/papers/")
    assert response.status_code == 503


def test_page_size_is_capped(anon):
    assert len(anon.get("/api/v1/papers/?page_size=1000").json()["results"]) == 56
    assert len(anon.get("/api/v1/papers/?page_size=3").json()["results"]) == 3


def test_page_number_pagination_elsewhere(anon):
    first = anon.get("/api/v1/questions/?page_size=4").json()
    assert first["count"] == 9 and len(first["results"]) == 4
    assert first["next"].endswith("page=2&page_size=4")
    assert anon.get("/api/v1/questions/?page=99").status_code == 404
