"""Issue 17: `group_by=` facets with counts and shares (and their basis) on papers and
citations; the hub's summary is one such call."""

import pytest
from django.core.cache import cache

from citations.models import Paper
from tests.factories import CitationFactory, LayerFactory, PaperFactory
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db


def groups(response):
    assert response.status_code == 200, response.content
    return {group["value"]: group for group in response.json()["groups"]}


def test_the_hub_summary_is_one_group_by_call(demo, anon):
    hub = anon.get(f"/api/v1/papers/{ART_OF_SCALING}/citations/").json()["summary"]
    for facet, bar in (("role", "roles"), ("polarity", "polarities")):
        response = anon.get("/api/v1/citations/", {"cited": ART_OF_SCALING, "group_by": facet})
        body = response.json()
        assert body["group_by"] == facet
        assert body["total"] == hub["total"]
        found = groups(response)
        for row in hub[bar]:
            assert found[row["slug"]]["count"] == row["count"]
            assert found[row["slug"]]["label"] == row["name"]
        classified = sum(group["count"] for value, group in found.items() if value is not None)
        unclassified = found.get(None, {"count": 0})["count"]
        assert classified + unclassified == body["total"]
        assert f"of the {body['total']} citations matching the filters" in body["basis"]
        assert "null counts the citations not yet classified" in body["basis"]


def test_shares_are_counts_over_the_stated_total(demo, anon):
    body = anon.get("/api/v1/citations/", {"cited": ART_OF_SCALING, "group_by": "role"}).json()
    for group in body["groups"]:
        assert group["share"] == round(group["count"] / body["total"], 4)
    assert sum(group["count"] for group in body["groups"]) == body["total"]
    counts = [group["count"] for group in body["groups"]]
    assert counts == sorted(counts, reverse=True)


def test_filters_apply_before_grouping(demo, anon):
    everything = groups(anon.get("/api/v1/papers/", {"group_by": "year"}))
    narrowed = groups(anon.get("/api/v1/papers/", {"group_by": "year", "year": 2025}))
    assert set(narrowed) == {2025}
    assert narrowed[2025]["count"] == everything[2025]["count"]
    assert narrowed[2025]["share"] == 1.0


def test_papers_by_tag_count_each_tag_and_say_so(demo, anon):
    body = anon.get("/api/v1/papers/", {"group_by": "tag"}).json()
    assert body["total"] == Paper.objects.published().count()
    assert "can add up to more than 1" in body["basis"]
    grpo = {g["value"]: g for g in body["groups"]}["grpo"]
    assert grpo["count"] == Paper.objects.published().filter(tags__slug="grpo").count()
    untagged = Paper.objects.published().filter(tags__isnull=True).count()
    assert {g["value"]: g for g in body["groups"]}.get(None, {"count": 0})["count"] == untagged


@pytest.mark.parametrize("facet", ["tag", "layer"])
@pytest.mark.parametrize(
    "filters", [{}, {"tag": "grpo"}, {"tag": "grpo", "search": "scaling"}, {"search": "rl"}]
)
def test_many_valued_groups_count_each_paper_once_per_value(demo, anon, facet, filters):
    """Tags and layers are counted without COUNT(DISTINCT): whatever the filters join, each
    group counts each paper once, as counting the papers in Python does."""
    body = anon.get("/api/v1/papers/", {"group_by": facet, **filters}).json()
    listed = anon.get("/api/v1/papers/", {**filters, "page_size": 100, "fields": "slug"}).json()
    slugs = [paper["slug"] for paper in listed["results"]]
    assert listed["next"] is None and body["total"] == len(slugs) > 0
    relation = "tags" if facet == "tag" else "layers"
    expected = {}
    for paper in Paper.objects.filter(slug__in=slugs).prefetch_related(relation):
        values = [item.slug for item in getattr(paper, relation).all()]
        if facet == "layer":
            values = [slug for slug in values if slug in public_layers()]
        for value in values or [None]:
            expected[value] = expected.get(value, 0) + 1
    assert {g["value"]: g["count"] for g in body["groups"]} == expected


def public_layers():
    from bottlenecks.models import Layer

    return set(Layer.objects.published().values_list("slug", flat=True))


def test_drafts_never_show_in_facets(demo, anon, editor_api):
    draft_layer = LayerFactory(draft=True, slug="secret-layer")
    draft_paper = PaperFactory(draft=True, publication_date="1901-01-01")
    draft_paper.layers.add(draft_layer)
    public_paper = PaperFactory(publication_date="1902-01-01")
    public_paper.layers.add(draft_layer)
    CitationFactory(cited_paper=public_paper, citing_paper=draft_paper)
    public_layers = groups(anon.get("/api/v1/papers/", {"group_by": "layer"}))
    assert "secret-layer" not in public_layers
    public_years = groups(anon.get("/api/v1/papers/", {"group_by": "year"}))
    assert 1901 not in public_years and public_years[1902]["count"] == 1
    cited = groups(
        anon.get("/api/v1/citations/", {"cited": public_paper.slug, "group_by": "citing"})
    )
    assert draft_paper.slug not in cited
    editor_layers = groups(editor_api.get("/api/v1/papers/", {"group_by": "layer"}))
    assert editor_layers["secret-layer"]["count"] == 2


def test_a_bad_group_by_is_a_400_naming_the_choices(demo, anon):
    response = anon.get("/api/v1/papers/", {"group_by": "colour"})
    assert response.status_code == 400
    message = response.json()["errors"]["group_by"][0]
    assert "“colour”" in message and "year" in message and "tag" in message
    # Only lists group: a detail does not read the parameter at all.
    detail = anon.get(f"/api/v1/papers/{ART_OF_SCALING}/", {"group_by": "year"})
    assert detail.status_code == 400
    assert anon.get("/api/v1/layers/", {"group_by": "name"}).status_code == 400


def test_group_by_costs_a_few_queries(demo, anon, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        assert anon.get("/api/v1/papers/", {"group_by": "layer"}).status_code == 200
    # One more for the paper the grouping is within.
    with django_assert_max_num_queries(4):
        query = {"cited": ART_OF_SCALING, "group_by": "role"}
        assert anon.get("/api/v1/citations/", query).status_code == 200


def test_the_schema_documents_group_by_and_its_answer(anon):
    schema = anon.get("/api/v1/schema/").json()
    for path in ("/api/v1/papers/", "/api/v1/citations/"):
        operation = schema["paths"][path]["get"]
        parameter = {p["name"]: p for p in operation["parameters"]}["group_by"]
        assert "role" in parameter["schema"]["enum"] or "year" in parameter["schema"]["enum"]
        answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert {"$ref": "#/components/schemas/Facets"} in answer["oneOf"]
    assert "group_by" not in {
        p["name"] for p in schema["paths"]["/api/v1/layers/"]["get"]["parameters"]
    }


@pytest.mark.parametrize(("facet", "needs"), [("cited", "citing"), ("citing", "cited")])
def test_a_group_per_paper_needs_the_other_paper(demo, anon, facet, needs):
    """One group per paper of every edge is unbounded at 1M (it ran to the statement timeout
    for anonymous clients): it answers within one paper's edges, else a 400 saying so."""
    refused = anon.get("/api/v1/citations/", {"group_by": facet})
    assert refused.status_code == 400
    assert f"`{needs}=<slug>`" in refused.json()["errors"]["group_by"][0]
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    edge = hub.public_citations_received().select_related("citing_paper").first()
    paper = hub.slug if needs == "cited" else edge.citing_paper.slug
    answered = anon.get("/api/v1/citations/", {"group_by": facet, needs: paper})
    assert answered.status_code == 200
    assert answered.json()["total"] >= 1


def test_an_answer_lists_the_largest_groups_and_says_when_it_stops(demo, anon, monkeypatch):
    """A hub cited 36,682 times at 1M has as many citing papers: `group_by=citing` answered
    every one (6 MB, over a second). The answer holds at most GROUP_LIMIT groups, the largest
    first, and says when others were left out; the total and shares stay those of every row."""
    from apikit import facets

    whole = anon.get("/api/v1/citations/", {"group_by": "citing", "cited": ART_OF_SCALING})
    assert whole.json()["truncated"] is False
    everyone = whole.json()["groups"]
    assert len(everyone) > 3
    monkeypatch.setattr(facets, "GROUP_LIMIT", 3)
    cache.clear()  # the first answer is in the page cache
    cut = anon.get("/api/v1/citations/", {"group_by": "citing", "cited": ART_OF_SCALING}).json()
    assert cut["truncated"] is True
    assert len(cut["groups"]) == 3
    assert cut["total"] == whole.json()["total"]
    assert [g["count"] for g in cut["groups"]] == [g["count"] for g in everyone[:3]]
    assert "the 3 largest groups" in cut["basis"]
    small = anon.get("/api/v1/papers/", {"group_by": "in_research_index"}).json()
    assert small["truncated"] is False and len(small["groups"]) <= 3


@pytest.mark.parametrize("facet", ["role", "polarity", "is_representative"])
def test_no_grouping_reads_every_edge_of_the_corpus(demo, anon, facet):
    """Grouping every public edge joined to both its papers took 2.5 s at 1M citations, for
    anyone to ask: each grouping is within one paper's edges, cited or citing."""
    refused = anon.get("/api/v1/citations/", {"group_by": facet})
    assert refused.status_code == 400
    assert "`cited=<slug>` or `citing=<slug>`" in refused.json()["errors"]["group_by"][0]
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    edge = hub.public_citations_received().select_related("citing_paper").first()
    for side, slug in (("cited", hub.slug), ("citing", edge.citing_paper.slug)):
        answered = anon.get("/api/v1/citations/", {"group_by": facet, side: slug})
        assert answered.status_code == 200, answered.content
        assert answered.json()["total"] >= 1
