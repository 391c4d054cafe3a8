"""What each endpoint returns for the demo content, read anonymously."""

import pytest
from rest_framework.test import APIClient

from citations.models import Paper
from tests.helpers import ART_OF_SCALING, slugs, walk

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo")]


def test_api_root_lists_every_resource(anon):
    body = anon.get("/api/v1/").json()
    assert set(body) == {
        "papers",
        "citations",
        "citation-roles",
        "citation-polarities",
        "tags",
        "notes",
        "community-posts",
        "questions",
        "dimensions",
        "loop-stages",
        "layers",
        "analyses",
        "claims",
        "benchmarks",
        "series",
        "results",
    }


def test_paper_detail_has_authors_identifiers_tags_layers_and_citing_counts(anon):
    paper = anon.get(f"/api/v1/papers/{ART_OF_SCALING}/").json()
    assert paper["title"] == "The Art of Scaling Reinforcement Learning Compute for LLMs"
    assert paper["authors"][:2] == ["Devvrit Khatri", "Lovish Madaan"]
    assert paper["authors"][-1] == "Rishabh Agarwal"
    assert paper["arxiv_id"] == "2510.13786"
    assert paper["arxiv_url"] == "https://arxiv.org/abs/2510.13786"
    assert paper["doi"] == ""
    assert paper["is_canonical_reference"] is True
    assert paper["citing_counts"] == {
        "total": 30,
        "by_role": {"background": 6, "method": 0, "comparison": 0, "extension": 0},
        "by_polarity": {"supporting": 0, "contrasting": 0, "neutral": 6},
    }
    assert paper["tags"] == sorted(paper["tags"]) and paper["tags"]
    assert paper["status"] == "published"
    assert paper["version"] == 1
    assert paper["api_url"] == f"http://testserver/api/v1/papers/{ART_OF_SCALING}/"


def test_paper_list_is_newest_first_with_undated_papers_last(anon):
    results, _ = walk(anon, "/api/v1/papers/?page_size=100")
    assert len(results) == 56
    dates = [row["publication_date"] for row in results]
    dated = [d for d in dates if d]
    assert dated == sorted(dated, reverse=True)
    # Papers with no date at all come last; a date marked unknown (shown as null) still keeps
    # the editor's order among the dated ones.
    undated = [
        i
        for i, row in enumerate(results)
        if row["publication_date"] is None and row["date_precision"] != "unknown"
    ]
    assert undated and undated == list(range(len(results) - len(undated), len(results)))
    assert results[0]["tags"] and "citing_counts" in results[0]


def test_hub_call_returns_summary_and_citing_papers(anon):
    body = anon.get(f"/api/v1/papers/{ART_OF_SCALING}/citations/?page_size=50").json()
    assert body["paper"]["slug"] == ART_OF_SCALING
    assert body["summary"]["total"] == 30
    assert body["summary"]["classified"] == 6
    assert body["summary"]["roles"] == [
        {"slug": "background", "name": "Background", "count": 6, "percent": 100, "percent_of": 6}
    ]
    assert body["summary"]["polarities"] == [
        {"slug": "neutral", "name": "Neutral", "count": 6, "percent": 100, "percent_of": 6}
    ]
    assert len(body["results"]) == 30
    first = body["results"][0]
    assert set(first) == {
        "id",
        "citing_paper",
        "role",
        "polarity",
        "context",
        "is_representative",
        "representative_reason",
        *("provenance", "provenance_label", "classified_at", "confidence", "is_influential"),
    }
    assert first["citing_paper"]["slug"] == (
        "zone-of-proximal-policy-optimization-teacher-in-prompts-not-gradients"
    )
    assert first["role"] == "background" and first["polarity"] == "neutral"
    assert sum(row["role"] == "background" for row in body["results"]) == 6


def test_paper_lookup_by_arxiv_id(anon):
    response = anon.get("/api/v1/papers/by-arxiv/2510.13786/")
    assert response.status_code == 200
    assert response.json()["slug"] == ART_OF_SCALING
    # A version suffix names the same paper.
    assert anon.get("/api/v1/papers/by-arxiv/2510.13786v3/").json()["slug"] == ART_OF_SCALING


def test_lookups_take_a_format_suffix_like_every_other_route(anon):
    # The router adds `.json` / `.api` to every route, these included.
    response = anon.get("/api/v1/papers/by-arxiv/2510.13786.json")
    assert response.status_code == 200 and response.json()["slug"] == ART_OF_SCALING
    assert anon.get("/api/v1/papers/by-arxiv/0.json").status_code in (400, 404)
    assert anon.get("/api/v1/papers/by-doi/10.0000/none.json").status_code == 404


def test_unknown_arxiv_id_is_404_and_malformed_is_400(anon):
    assert anon.get("/api/v1/papers/by-arxiv/2101.00001/").status_code == 404
    response = anon.get("/api/v1/papers/by-arxiv/not-an-id/")
    assert response.status_code == 400
    assert "arxiv_id" in response.json()["errors"]


def test_paper_lookup_by_doi(anon):
    Paper.objects.filter(slug=ART_OF_SCALING).update(doi="10.48550/arXiv.2510.13786")
    response = anon.get("/api/v1/papers/by-doi/10.48550/ARXIV.2510.13786/")
    assert response.status_code == 200
    assert response.json()["slug"] == ART_OF_SCALING
    assert anon.get("/api/v1/papers/by-doi/10.1000/nothing-here/").status_code == 404
    bad = anon.get("/api/v1/papers/by-doi/nonsense/")
    assert bad.status_code == 400 and "doi" in bad.json()["errors"]


def test_citation_list_and_detail(anon):
    results, _ = walk(anon, "/api/v1/citations/?page_size=100")
    assert len(results) == 30
    assert {row["cited_paper"] for row in results} == {ART_OF_SCALING}
    edge = anon.get(results[0]["api_url"]).json()
    assert set(edge) >= {
        "citing_paper",
        "citing_title",
        "cited_paper",
        "cited_title",
        "role",
        "polarity",
        "context",
        "is_representative",
        "version",
    }


def test_vocabularies(anon):
    roles = anon.get("/api/v1/citation-roles/").json()["results"]
    assert slugs(roles) == ["background", "method", "comparison", "extension"]
    assert roles[2]["name"] == "Comparison / result"
    polarities = anon.get("/api/v1/citation-polarities/").json()["results"]
    assert slugs(polarities) == ["supporting", "contrasting", "neutral"]
    assert anon.get("/api/v1/citation-roles/background/").json()["name"] == "Background"


def test_tags_with_counts(anon):
    results, _ = walk(anon, "/api/v1/tags/?page_size=100")
    by_slug = {row["slug"]: row for row in results}
    assert by_slug["grpo"]["paper_count"] == 14
    assert by_slug["agents"] == {
        "api_url": "http://testserver/api/v1/tags/agents/",
        "slug": "agents",
        "name": "agents",
        "display_name": "Agents",
        "description": (
            "Reinforcement learning for agents that act over many steps: tools, browsers, "
            "terminals and software environments."
        ),
        "paper_count": 18,
        "note_count": 1,
    }
    assert anon.get("/api/v1/tags/grpo/").json()["paper_count"] == 14


def test_research_notes(anon):
    body = anon.get("/api/v1/notes/").json()
    assert body["count"] == 3
    note = anon.get(
        "/api/v1/notes/when-do-larger-batches-help-scale-llm-reinforcement-learning/"
    ).json()
    assert "2.29×" in note["summary"]
    # A note's figures are the figures of its published claims, in the note's order.
    assert note["figures"] == [
        {
            "value": "2.29×",
            "label": "higher generation throughput",
            "order": 1,
            "claim": "batch-2-29x-generation-throughput",
        },
        {
            "value": "29%",
            "label": "lower GRPO time-to-target",
            "order": 2,
            "claim": "batch-29-percent-time-to-target",
        },
    ]
    assert note["papers"] == ["when-do-larger-batches-help-scale-llm-reinforcement-learning"]


def test_community_posts_and_questions(anon):
    posts = anon.get("/api/v1/community-posts/").json()
    assert posts["count"] == 4
    assert posts["results"][0]["source"] == "LessWrong"
    questions = anon.get("/api/v1/questions/?page_size=50").json()
    assert questions["count"] == 9
    assert {row["kind"] for row in questions["results"]} == {"faq", "team"}
    first = questions["results"][0]
    assert anon.get(first["api_url"]).json()["question"] == first["question"]


def test_framework_resources(anon):
    assert anon.get("/api/v1/dimensions/").json()["count"] == 6
    stages = anon.get("/api/v1/loop-stages/").json()["results"]
    assert [stage["name"] for stage in stages][:2] == ["Environment", "Rollouts"]
    layers = anon.get("/api/v1/layers/").json()["results"]
    assert slugs(layers) == ["compute", "data", "environments", "rollouts", "rewards", "evaluation"]
    assert layers[0]["failure_signal"] and layers[0]["diagnostic_question"]
    assert anon.get("/api/v1/layers/rewards/").json()["slug"] == "rewards"


def test_bottleneck_map_analysis_with_steps(anon):
    analysis = anon.get("/api/v1/analyses/bottleneck-map/").json()
    assert analysis["title"] == "The RL Scaling Bottleneck Map"
    assert [step["title"] for step in analysis["steps"]][0] == "State the plateau"
    assert len(analysis["steps"]) == 4
    orders = [step["order"] for step in analysis["steps"]]
    assert orders == sorted(orders)


def test_unknown_paths_get_the_json_404(anon):
    response = anon.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "detail": "No API endpoint at this address.",
        "errors": {},
    }
    missing = anon.get("/api/v1/papers/no-such-paper/")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/",
        "/api/v1/papers/",
        f"/api/v1/papers/{ART_OF_SCALING}/",
        f"/api/v1/papers/{ART_OF_SCALING}/citations/",
        "/api/v1/citations/",
        "/api/v1/notes/",
        "/api/v1/questions/",
        "/api/v1/layers/rewards/",
        "/api/v1/tags/",
    ],
)
def test_browsable_api_renders_for_the_public_and_for_editors(anon, editor, url):
    assert anon.get(url, HTTP_ACCEPT="text/html").status_code == 200
    session = APIClient()
    session.force_login(editor)
    response = session.get(url, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert b"<html" in response.content
