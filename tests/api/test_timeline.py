"""GET /api/v1/papers/{slug}/timeline/ (issue 12): the hub's citing papers per quarter by role
and polarity, with the year-only and undated ones apart; the same numbers the hub page draws;
drafts never counted, a draft hub a 404 for the public."""

import re

import pytest
from django.core.cache import cache

from tests.factories import CitationFactory, PaperFactory, timeline_hub
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


def url(slug):
    return f"/api/v1/papers/{slug}/timeline/"


@pytest.fixture
def hub():
    return timeline_hub()


def test_the_timeline_in_numbers(anon, hub):
    body = anon.get(url(hub.slug)).json()
    assert body["paper"]["slug"] == hub.slug
    assert (body["total"], body["dated"], body["year_only_total"], body["undated_total"]) == (
        7,
        4,
        1,
        2,
    )
    assert (body["first_quarter"], body["last_quarter"]) == ("2024-Q1", "2025-Q1")
    assert [role["slug"] for role in body["roles"]] == ["background", "method"]
    assert [polarity["slug"] for polarity in body["polarities"]] == ["supporting", "contrasting"]
    assert [(q["quarter"], q["total"]) for q in body["quarters"]] == [
        ("2024-Q1", 2),
        ("2024-Q2", 0),
        ("2024-Q3", 0),
        ("2024-Q4", 1),
        ("2025-Q1", 1),
    ]
    first, _, _, fourth, fifth = body["quarters"]
    assert first == {
        "quarter": "2024-Q1",
        "year": 2024,
        "number": 1,
        "start": "2024-01-01",
        "total": 2,
        "by_role": {"background": 1, "method": 1},
        "role_unclassified": 0,
        "by_polarity": {"supporting": 2, "contrasting": 0},
        "polarity_unclassified": 0,
    }
    assert fourth["by_polarity"] == {"supporting": 0, "contrasting": 1}
    assert (fifth["role_unclassified"], fifth["polarity_unclassified"]) == (1, 1)
    assert body["year_only"] == [
        {
            "year": 2023,
            "total": 1,
            "by_role": {"background": 1, "method": 0},
            "role_unclassified": 0,
            "by_polarity": {"supporting": 1, "contrasting": 0},
            "polarity_unclassified": 0,
        }
    ]
    assert body["undated"]["total"] == 2
    assert body["undated"]["by_role"] == {"background": 1, "method": 1}
    assert "2 have no known date" in body["description"]


def test_the_api_matches_the_page(anon, client, hub):
    html = client.get(hub.get_absolute_url()).content.decode()
    table = re.search(r'<table class="timeline__table">.*?</table>', html, re.S).group(0)
    page = {}
    for row in re.findall(r"<tr\b.*?</tr>", table, re.S):
        cells = [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd]\b.*?</t[hd]>", row, re.S)
        ]
        if len(cells) == 8:
            page[cells[0]] = [int(cell) for cell in cells[1:]]

    body = anon.get(url(hub.slug)).json()

    def numbers(counts):
        return [
            counts["total"],
            *counts["by_role"].values(),
            counts["role_unclassified"],
            *counts["by_polarity"].values(),
            counts["polarity_unclassified"],
        ]

    api = {f"{q['year']} Q{q['number']}": numbers(q) for q in body["quarters"]}
    api |= {f"{y['year']} (year only)": numbers(y) for y in body["year_only"]}
    api["Date unknown"] = numbers(body["undated"])
    page.pop("All")
    assert page == api
    assert (
        body["total"]
        == anon.get(f"/api/v1/papers/{hub.slug}/citations/").json()["summary"]["total"]
    )


def test_a_draft_hub_is_a_404_for_the_public_and_shown_to_editors(anon, reader_api, editor_api):
    draft = PaperFactory(draft=True)
    CitationFactory(cited_paper=draft)
    assert anon.get(url(draft.slug)).status_code == 404
    assert reader_api.get(url(draft.slug)).status_code == 404
    assert anon.get(url("no-such-paper")).status_code == 404
    response = editor_api.get(url(draft.slug))
    assert response.status_code == 200
    assert response.json()["total"] == 0  # an edge into a draft is not public


def test_publishing_a_draft_edge_moves_the_timeline(anon, hub):
    assert anon.get(url(hub.slug)).json()["total"] == 7
    hub.citations_received.filter(status="draft").publish()
    body = anon.get(url(hub.slug)).json()
    assert body["total"] == 8
    assert [q["total"] for q in body["quarters"]] == [2, 1, 0, 1, 1]


def test_unknown_parameters_are_refused_and_fields_narrow_the_answer(anon, hub):
    response = anon.get(url(hub.slug), {"utm_source": "x"})
    assert response.status_code == 400
    assert "utm_source" in response.json()["errors"]
    body = anon.get(url(hub.slug), {"fields": "total,undated_total"}).json()
    assert body == {"total": 7, "undated_total": 2}
    assert anon.get(url(hub.slug), {"fields": "nope"}).status_code == 400


def test_an_old_slug_answers_301(anon, hub):
    old = hub.slug
    hub.slug = "a-renamed-hub"
    hub.save()
    response = anon.get(url(old))
    assert response.status_code == 301
    assert response["Location"].endswith(url("a-renamed-hub"))


def test_writes_are_refused(anon, editor_api, hub):
    assert anon.post(url(hub.slug), {}, format="json").status_code in {401, 405}
    assert editor_api.post(url(hub.slug), {}, format="json").status_code == 405


def test_conditional_get(anon, hub):
    etag = anon.get(url(hub.slug))["ETag"]
    assert anon.get(url(hub.slug), HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_two_queries_at_most_whatever_the_hub(anon, demo, django_assert_max_num_queries):
    cache.clear()
    with django_assert_max_num_queries(2):  # the paper, the timeline's GROUP BY
        assert anon.get(url(ART_OF_SCALING)).json()["total"] == 30
    with django_assert_max_num_queries(2):  # another variant: a miss, the same two queries
        anon.get(url(ART_OF_SCALING), {"fields": "quarters"})


def test_the_schema_documents_the_timeline(anon):
    schema = anon.get("/api/v1/schema/").json()
    get = schema["paths"]["/api/v1/papers/{slug}/timeline/"]["get"]
    reference = get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    timeline = schema["components"]["schemas"][reference.rsplit("/", 1)[1]]
    assert {"quarters", "year_only", "undated", "roles", "polarities", "total"} <= set(
        timeline["properties"]
    )
    assert {"fields", "omit"} <= {parameter["name"] for parameter in get["parameters"]}
