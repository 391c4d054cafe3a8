"""`/api/v1/results/?cursor=`: a keyset over the whole ordering, so a walk sees every row once
while rows are added between pages; `page=` keeps working, deprecated."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.factories import PaperFactory
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def points():
    """Public points on two benchmarks, several sharing every sort key but the id, some
    without compute or steps (nulls in the ordering)."""
    made = []
    for benchmark_name in ("AIME", "MATH"):
        benchmark = BenchmarkFactory(name=benchmark_name)
        for run in ("Run A", "Run B"):
            series = SeriesFactory(benchmark=benchmark, name=run)
            for index in range(5):
                compute = None if index == 0 else float(100 * (index % 3 + 1))
                made.append(
                    ResultFactory(
                        series=series,
                        location=f"Table {index}",
                        value=float(10 + index % 2),
                        compute_reported=compute,
                        compute_unit="gpu_hours" if compute else "",
                        steps=None if index % 2 else index,
                    )
                )
    return made


def walk_inserting(client, url, insert):
    """Follow `next` links, calling `insert(page_number)` after each page."""
    seen, pages = [], 0
    while url:
        answer = client.get(url)
        assert answer.status_code == 200, answer.content
        body = answer.json()
        seen += [row["id"] for row in body["results"]]
        pages += 1
        insert(pages)
        url = body["next"]
        # Page numbers over a growing list never reach its end: fail instead of looping.
        assert pages < 200, "the walk does not end"
    return seen, pages


@pytest.mark.parametrize(
    "ordering", ["", "&ordering=value", "&ordering=-value", "&ordering=steps", "&ordering=-steps"]
)
def test_a_cursor_walk_sees_every_row_once_while_rows_are_added(points, ordering):
    series = [point.series for point in points[::5]]
    added = []

    def insert(page):
        # Before and after the walk's position, into every series, some without compute.
        for number, run in enumerate(series):
            compute = None if (page + number) % 3 == 0 else float(50 * page + number)
            added.append(
                ResultFactory(
                    series=run,
                    location=f"Added {page}-{number}",
                    value=float(page % 4 + 9),
                    compute_reported=compute,
                    compute_unit="gpu_hours" if compute else "",
                    steps=None if number % 2 else page,
                ).pk
            )

    seen, pages = walk_inserting(APIClient(), f"/api/v1/results/?page_size=3{ordering}", insert)
    assert len(seen) == len(set(seen)), "a row was served twice"
    assert {point.pk for point in points} <= set(seen), "a row was skipped"
    assert pages >= 7
    assert set(seen) <= {point.pk for point in points} | set(added)


def test_the_cursor_order_is_the_list_order_without_inserts(points):
    first = APIClient().get("/api/v1/results/?page_size=100").json()["results"]
    seen, _ = walk_inserting(APIClient(), "/api/v1/results/?page_size=4", lambda page: None)
    assert seen == [row["id"] for row in first]
    # Points without compute first within a run, as on the pages.
    assert first[0]["compute_reported"] is None


def test_drafts_are_never_in_a_cursor_walk_for_readers(points):
    hidden = [
        SeriesFactory(draft=True),
        SeriesFactory(paper=PaperFactory(draft=True)),
        SeriesFactory(benchmark=BenchmarkFactory(draft=True)),
    ]
    secret = {ResultFactory(series=series).pk for series in hidden for _ in range(3)}
    seen, _ = walk_inserting(APIClient(), "/api/v1/results/?page_size=2", lambda page: None)
    assert not secret & set(seen)
    assert set(seen) == {point.pk for point in points}


def test_the_first_page_links_to_a_cursor_and_counts(points):
    body = APIClient().get("/api/v1/results/?page_size=5").json()
    assert body["count"] == len(points)
    assert "cursor=" in body["next"] and "page=" not in body["next"].replace("page_size", "")
    assert body["previous"] is None


def test_page_numbers_still_work_and_say_they_are_deprecated(points):
    client = APIClient()
    answer = client.get("/api/v1/results/?page=2&page_size=5")
    assert answer.status_code == 200
    body = answer.json()
    assert body["count"] == len(points)
    assert len(body["results"]) == 5
    assert "page=3" in body["next"]
    assert answer["Deprecation"].startswith("@")
    assert "GMT" in answer["Sunset"]
    assert 'rel="deprecation"' in answer["Link"]
    plain = client.get("/api/v1/results/?page_size=5")
    assert "Deprecation" not in plain and "Sunset" not in plain


def test_a_tampered_or_foreign_cursor_is_a_404_never_a_500(points):
    client = APIClient()
    body = client.get("/api/v1/results/?page_size=3").json()
    cursor = body["next"].split("cursor=")[1].split("&")[0]
    for bad in ("nonsense", "e30", cursor[:-4]):
        assert client.get(f"/api/v1/results/?cursor={bad}").status_code == 404
    # A cursor made for another ordering does not silently skip rows.
    assert client.get(f"/api/v1/results/?cursor={cursor}&ordering=-value").status_code == 404


def test_the_query_count_is_the_same_on_every_page(points):
    client = APIClient()
    counts, url = [], "/api/v1/results/?page_size=3"
    while url:
        with CaptureQueriesContext(connection) as queries:
            body = client.get(url).json()
        counts.append(len(queries))
        url = body["next"]
    assert len(counts) >= 7
    assert max(counts) == min(counts) <= 3, counts


def test_the_schema_offers_the_cursor_and_marks_page_deprecated():
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    parameters = {p["name"]: p for p in schema["paths"]["/api/v1/results/"]["get"]["parameters"]}
    assert "cursor" in parameters
    assert parameters["page"].get("deprecated") is True
    assert not parameters["cursor"].get("deprecated")
