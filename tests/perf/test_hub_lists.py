"""Issue 15, the hub and the citation lists at 1M edges: the API citation list's orderings and
filters have indexes to walk, `cited=<slug>` compares the paper's id, a hub's representative
edges are found before they are ordered, and `cited=<slug>&group_by=role|polarity` answers from
the hub's summary, which stays right under edits, unpublishing and deletes."""

import pytest
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from citations.models import Citation, CitationRole
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import text_of, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def hub():
    """A hub with six citing papers: three methods, two background, one unclassified (and one
    draft edge, which readers never count)."""
    hub = PaperFactory(title="The hub")
    method = CitationRoleFactory(slug="method", name="Method")
    background = CitationRoleFactory(slug="background", name="Background")
    supporting = CitationPolarityFactory(slug="supporting", name="Supporting")
    for role, polarity, representative in [
        (method, supporting, True),
        (method, supporting, False),
        (method, None, False),
        (background, supporting, True),
        (background, None, False),
        (None, None, False),
    ]:
        CitationFactory(
            cited_paper=hub, role=role, polarity=polarity, is_representative=representative
        )
    CitationFactory(cited_paper=hub, role=method, status="draft")
    return hub


def index_columns(name):
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "citations_citation")
    return constraints.get(name, {}).get("columns")


@pytest.mark.parametrize(
    "name, columns",
    [
        ("citation_created", ["created_at", "id"]),  # ordering=-created_at
        ("citation_updated", ["updated_at", "id"]),  # ordering=-updated_at
        ("citation_cited_id", ["cited_paper_id", "id"]),  # cited=<hub>, newest edges first
        ("citation_influential", ["id"]),  # is_influential=true, partial
        ("citation_cited_influential", ["cited_paper_id"]),  # a hub's, partial
    ],
)
def test_the_citation_lists_orderings_and_filters_have_indexes(name, columns):
    assert index_columns(name) == columns


def list_sql(client, url, params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, params)
    assert response.status_code == 200, response.content
    return response, [query["sql"] for query in queries.captured_queries]


def test_cited_compares_the_papers_id_not_its_slug(hub):
    response, queries = list_sql(APIClient(), "/api/v1/citations/", {"cited": hub.slug})
    assert len(response.json()["results"]) == 6
    edges = [sql for sql in queries if 'FROM "citations_citation"' in sql]
    assert edges and all(hub.slug not in sql for sql in edges)
    assert all(f'"cited_paper_id" = {hub.pk}' in sql for sql in edges)


def test_cited_with_an_unknown_slug_lists_nothing(hub):
    response = APIClient().get("/api/v1/citations/", {"cited": "no-such-paper"})
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_a_hubs_representative_edges_are_found_before_they_are_ordered(hub):
    url = f"/api/v1/papers/{hub.slug}/citations/"
    response, queries = list_sql(APIClient(), url, {"is_representative": "true"})
    results = response.json()["results"]
    assert len(results) == 2
    flagged = Citation.objects.filter(cited_paper=hub, is_representative=True)
    assert {edge["id"] for edge in results} == set(flagged.values_list("pk", flat=True))
    # The page is read by those edges' ids, not by a filter on the flag in the list's order.
    page = [sql for sql in queries if "ORDER BY" in sql and "citations_citation" in sql]
    assert page and all('"citations_citation"."id" IN (' in sql for sql in page)
    others = APIClient().get(url, {"is_representative": "false"}).json()["results"]
    assert len(others) == 4


def expected_groups(hub, axis):
    rows = (
        Citation.objects.public()
        .filter(cited_paper=hub)
        .values(f"{axis}__slug")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row[f"{axis}__slug"]: row["n"] for row in rows}


def grouped(client, hub, axis):
    response = client.get("/api/v1/citations/", {"cited": hub.slug, "group_by": axis})
    assert response.status_code == 200, response.content
    body = response.json()
    return body["total"], {group["value"]: group["count"] for group in body["groups"]}


@pytest.mark.parametrize("axis", ["role", "polarity"])
def test_group_by_of_one_hub_reads_its_summary_without_counting(hub, axis):
    with CaptureQueriesContext(connection) as queries:
        total, groups = grouped(APIClient(), hub, axis)
    assert total == 6
    assert groups == expected_groups(hub, axis)
    assert not [query for query in queries.captured_queries if "COUNT(" in query["sql"]]


@pytest.mark.parametrize("axis", ["role", "polarity"])
def test_group_by_of_one_hub_stays_right_under_edits(hub, axis):
    anon = APIClient()
    assert grouped(anon, hub, axis)[1] == expected_groups(hub, axis)
    edges = list(Citation.objects.filter(cited_paper=hub, status="published").order_by("pk"))
    edges[0].role, edges[0].polarity = None, None  # reclassified
    edges[0].save()
    edges[1].status = "draft"  # unpublished
    edges[1].save()
    edges[2].delete()
    Citation.objects.filter(cited_paper=hub, status="draft", role__slug="method").publish()
    expected = expected_groups(hub, axis)
    assert grouped(APIClient(), hub, axis) == (sum(expected.values()), expected)


def test_group_by_for_editors_counts_drafts_and_of_a_draft_hub_nothing(hub, editor):
    total, groups = grouped(token_client(editor), hub, "role")
    assert total == 7
    assert groups["method"] == 4
    draft_hub = PaperFactory(status="draft")
    CitationFactory(cited_paper=draft_hub)
    assert grouped(APIClient(), draft_hub, "role") == (0, {})


def test_group_by_with_another_filter_counts_the_filtered_edges(hub):
    response = APIClient().get(
        "/api/v1/citations/", {"cited": hub.slug, "group_by": "role", "is_representative": "true"}
    )
    body = response.json()
    assert body["total"] == 2
    assert {group["value"]: group["count"] for group in body["groups"]} == {
        "method": 1,
        "background": 1,
    }


def explorer(client, hub, params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(hub.get_absolute_url(), params)
    assert response.status_code == 200
    sqls = [query["sql"] for query in queries.captured_queries]
    counts = [sql for sql in sqls if "COUNT(" in sql and "GROUP BY" not in sql]
    return response, counts


def test_a_filtered_explorer_counts_a_bounded_number_of_citing_papers(client, hub, monkeypatch):
    """A filter the hub's summary does not count (here: provenance) is counted only a few rows
    past the page, and the page says "more than"; each later page counts further, and the
    pages together list every citing paper once, in the hub's order."""
    monkeypatch.setattr("web.papers.EXPLORER_PAGE_SIZE", 2)
    monkeypatch.setattr("web.papers.EXPLORER_COUNT_AHEAD", 3)
    # Every edge classified by an editor (an unclassified edge has no classifier).
    Citation.objects.filter(cited_paper=hub).update(
        role=CitationRole.objects.get(slug="method"), source="editor"
    )
    every = [edge.pk for edge in hub.citing_citations()]
    assert len(every) == 6
    listed = []
    for number, says in [(1, "more than 3 of 6 citing papers"), (2, "more than 5 of 6")]:
        response, counts = explorer(client, hub, {"provenance": "editor", "page": number})
        assert says in text_of(response)
        assert f"Page {number} of more than" in text_of(response)
        assert counts and all("LIMIT" in sql for sql in counts)
        listed += [edge.pk for edge in response.context["explorer_page"].object_list]
    response, counts = explorer(client, hub, {"provenance": "editor", "page": 3})
    assert "6 of 6 citing papers" in text_of(response)
    assert "more than" not in text_of(response)
    listed += [edge.pk for edge in response.context["explorer_page"].object_list]
    assert listed == every
    response = client.get(hub.get_absolute_url(), {"provenance": "editor", "page": 4})
    assert response.status_code == 404


def test_an_explorer_page_past_any_count_is_a_404(client, hub):
    url = hub.get_absolute_url()
    for page in ["99", "99999999999999999999999", "x"]:
        assert client.get(url, {"provenance": "editor", "page": page}).status_code == 404


@pytest.mark.skipif(connection.vendor != "postgresql", reason="full-text search: PostgreSQL")
def test_the_explorer_search_tests_each_citing_paper_as_the_walk_reaches_it(client, hub):
    """`?q=` tests the citing paper's stored search document on each edge (the page stops after
    twenty), not every matching paper of the corpus found first and joined to the edges."""
    titled = hub.citing_citations().first()
    titled.citing_paper.title = "Zymurgy gradients at scale"
    titled.citing_paper.save()
    CitationFactory(cited_paper=hub, context="A zymurgy-gradient baseline.")
    with CaptureQueriesContext(connection) as queries:
        response = client.get(hub.get_absolute_url(), {"q": "zymurgy"})
    listed = [edge.pk for edge in response.context["explorer_page"].object_list]
    assert len(listed) == 2 and titled.pk in listed
    sqls = [query["sql"] for query in queries.captured_queries]
    context = 'UPPER("citations_citation"."context"'
    page = [sql for sql in sqls if "ORDER BY" in sql and context in sql]
    assert page and all("@@" in sql and "IN (SELECT" not in sql for sql in page)
