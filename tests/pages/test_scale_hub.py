"""Query counts do not grow with the data: a hub with 2,499 citing papers (generate_corpus with
one hub taking 90% of the edges) answers within the same ceilings as the demo hub, for the hub
page, its explorer filtered by role, the research index and the API hub call. Each request is
the first of its kind (the page cache is empty), so the view itself runs."""

import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction
from rest_framework.test import APIClient

from citations.models import Paper
from tests.helpers import (
    API_LIST_QUERY_CEILINGS,
    ART_OF_SCALING,
    HUB_QUERY_CEILING,
    INDEX_QUERY_CEILING,
)

API_HUB_CEILING = dict(API_LIST_QUERY_CEILINGS)[f"/api/v1/papers/{ART_OF_SCALING}/citations/"]

# slow (`make test-all`, CI's slow step): a hub with thousands of generated citing papers.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture(scope="module")
def big_hub(django_db_setup, django_db_blocker):
    """The slug of a paper with 2,499 public-or-not citing papers, built once per module."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command(
            "generate_corpus",
            papers=2500,
            citations=3000,
            hubs=1,
            hub_share=0.9,
            seed=5,
            stdout=io.StringIO(),
        )
        hub = max(
            Paper.objects.published(),
            key=lambda paper: paper.public_citations_received().count(),
        )
        yield hub.slug
        transaction.set_rollback(True)


def test_the_hub_has_thousands_of_citing_papers(big_hub):
    assert Paper.objects.get(slug=big_hub).public_citations_received().count() > 2000


@pytest.mark.parametrize("query", ["", "?role=background", "?page=50", "?polarity=neutral"])
def test_hub_page_within_the_demo_ceiling(client, big_hub, query, django_assert_max_num_queries):
    cache.clear()
    with django_assert_max_num_queries(HUB_QUERY_CEILING):
        response = client.get(f"/papers/{big_hub}/{query}")
    assert response.status_code == 200
    page = response.context["explorer_page"]
    assert len(page.object_list) == 20
    assert page.paginator.count > 300


@pytest.mark.parametrize(
    "query",
    [
        "?role=background&polarity=neutral",
        "?unclassified=on",
        "?unclassified=on&page=20",
        "?year_from=2000&year_to=2030",
        "?year=2024",
        "?has_context=on",
        "?q=scaling",
        "?q=scaling&role=method&year_from=2020",
        "?institution=lab",
        "?layer=rollouts",
        "?provenance=editor",
        "?utm_source=newsletter&role=method",
    ],
)
def test_every_explorer_filter_within_the_demo_ceiling(
    client, big_hub, query, django_assert_max_num_queries
):
    """Issue 12 point 3: each filter, alone or combined, costs the same queries at scale."""
    cache.clear()
    with django_assert_max_num_queries(HUB_QUERY_CEILING):
        response = client.get(f"/papers/{big_hub}/{query}")
    assert response.status_code == 200
    page = response.context["explorer_page"]
    assert page.paginator.count == len(page.object_list) or len(page.object_list) == 20


def test_explorer_pages_are_in_order_from_both_ends(client, big_hub):
    """The last pages are read through the reversed ordering (TwoEndedPaginator): they must
    join up with the first pages exactly, every edge once."""
    first = client.get(f"/papers/{big_hub}/?role=method").context["explorer_page"]
    seen = []
    for number in first.paginator.page_range:
        response = client.get(f"/papers/{big_hub}/?role=method&page={number}")
        seen.extend(edge.pk for edge in response.context["explorer_page"].object_list)
    hub = Paper.objects.get(slug=big_hub)
    assert seen == list(hub.citing_citations(role="method").values_list("pk", flat=True))


def test_research_index_within_the_demo_ceiling(client, big_hub, django_assert_max_num_queries):
    for query in ("", "?sort=oldest", "?page=40", "?sort=oldest&page=40", "?tag=grpo"):
        cache.clear()
        with django_assert_max_num_queries(INDEX_QUERY_CEILING):
            response = client.get(f"/research/{query}")
        assert response.status_code in {200, 404}, query


def test_research_index_deep_page_matches_the_offset_page(client, big_hub):
    last = client.get("/research/").context["page"].paginator.num_pages
    response = client.get(f"/research/?page={last - 1}")
    titles = [paper.title for paper in response.context["page"].object_list]
    ordered = response.context["filterset"].qs
    expected = [paper.title for paper in ordered[(last - 2) * 20 : (last - 1) * 20]]
    assert titles == expected


def test_api_hub_call_within_the_demo_ceiling(big_hub, django_assert_max_num_queries):
    for query in ("", "?role=background"):
        cache.clear()
        with django_assert_max_num_queries(API_HUB_CEILING):
            response = APIClient().get(f"/api/v1/papers/{big_hub}/citations/{query}")
        assert response.status_code == 200
        assert response.json()["summary"]["total"] > 2000
