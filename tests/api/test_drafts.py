"""Drafts reach nobody but editors, on lists, details, lookups, hubs and nested lists."""

import pytest

from tests.factories import (
    CitationFactory,
    CitationRoleFactory,
    CommunityPostFactory,
    DimensionFactory,
    LayerFactory,
    LoopStageFactory,
    PaperFactory,
    QuestionFactory,
    ResearchNoteFactory,
)
from tests.helpers import slugs

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("factory", "path", "key"),
    [
        (PaperFactory, "papers", "slug"),
        (ResearchNoteFactory, "notes", "slug"),
        (CommunityPostFactory, "community-posts", "slug"),
        (QuestionFactory, "questions", "pk"),
        (DimensionFactory, "dimensions", "slug"),
        (LoopStageFactory, "loop-stages", "slug"),
        (LayerFactory, "layers", "slug"),
    ],
)
def test_drafts_hidden_from_public_and_readers_shown_to_editors(
    anon, reader_api, editor_api, factory, path, key
):
    published = factory()
    draft = factory(draft=True)
    draft_url = f"/api/v1/{path}/{getattr(draft, key)}/"

    for client in (anon, reader_api):
        listed = client.get(f"/api/v1/{path}/").json()["results"]
        assert [row["api_url"] for row in listed] == [
            f"http://testserver/api/v1/{path}/{getattr(published, key)}/"
        ]
        assert client.get(draft_url).status_code == 404
        assert client.get(f"/api/v1/{path}/?status=draft").json()["results"] == []

    listed = editor_api.get(f"/api/v1/{path}/").json()["results"]
    assert len(listed) == 2
    assert editor_api.get(draft_url).json()["status"] == "draft"
    assert len(editor_api.get(f"/api/v1/{path}/?status=draft").json()["results"]) == 1


def test_future_publication_is_a_draft_until_then(anon):
    from django.utils import timezone

    PaperFactory(published_at=timezone.now() + timezone.timedelta(days=2))
    assert anon.get("/api/v1/papers/").json()["results"] == []


def test_draft_paper_hidden_from_identifier_lookup_and_hub(anon, editor_api):
    paper = PaperFactory(draft=True, arxiv_id="2401.00001")
    assert anon.get("/api/v1/papers/by-arxiv/2401.00001/").status_code == 404
    assert anon.get(f"/api/v1/papers/{paper.slug}/citations/").status_code == 404
    assert anon.get("/api/v1/papers/?arxiv_id=2401.00001").json()["results"] == []
    assert editor_api.get("/api/v1/papers/by-arxiv/2401.00001/").json()["slug"] == paper.slug


def test_edges_touching_a_draft_paper_are_hidden_and_not_counted(anon, editor_api):
    role = CitationRoleFactory(slug="background", name="Background")
    hub = PaperFactory()
    CitationFactory(cited_paper=hub, role=role)
    draft_citing = PaperFactory(draft=True)
    hidden_edge = CitationFactory(cited_paper=hub, citing_paper=draft_citing, role=role)
    CitationFactory(cited_paper=hub, role=role, draft=True)

    assert len(anon.get("/api/v1/citations/").json()["results"]) == 1
    assert anon.get(f"/api/v1/citations/{hidden_edge.pk}/").status_code == 404
    body = anon.get(f"/api/v1/papers/{hub.slug}/citations/").json()
    assert body["summary"]["total"] == 1
    assert len(body["results"]) == 1
    assert draft_citing.slug not in str(body)
    counts = anon.get(f"/api/v1/papers/{hub.slug}/").json()["citing_counts"]
    assert counts["total"] == 1 and counts["by_role"]["background"] == 1
    assert anon.get(f"/api/v1/papers/?cites={hub.slug}").json()["results"] != []
    assert draft_citing.slug not in slugs(
        anon.get(f"/api/v1/papers/?cites={hub.slug}").json()["results"]
    )

    assert len(editor_api.get("/api/v1/citations/").json()["results"]) == 3


def test_draft_layers_and_papers_are_left_out_of_nested_lists(anon):
    paper = PaperFactory()
    public_layer, draft_layer = LayerFactory(), LayerFactory(draft=True)
    paper.layers.add(public_layer, draft_layer)
    note = ResearchNoteFactory()
    draft_paper = PaperFactory(draft=True)
    note.papers.add(paper, draft_paper)
    note.layers.add(draft_layer)

    assert anon.get(f"/api/v1/papers/{paper.slug}/").json()["layers"] == [public_layer.slug]
    body = anon.get(f"/api/v1/notes/{note.slug}/").json()
    assert body["papers"] == [paper.slug]
    assert body["layers"] == []
    # Filtering by a draft layer is a 400 for the public, as for a layer that does not exist.
    assert anon.get(f"/api/v1/papers/?layer={draft_layer.slug}").status_code == 400


def test_tags_used_only_by_drafts_are_not_listed(anon, editor_api):
    PaperFactory().tags.add("public-tag")
    PaperFactory(draft=True).tags.add("secret-tag")
    assert slugs(anon.get("/api/v1/tags/").json()["results"]) == ["public-tag"]
    assert anon.get("/api/v1/tags/secret-tag/").status_code == 404
    assert slugs(editor_api.get("/api/v1/tags/").json()["results"]) == ["public-tag", "secret-tag"]


def test_draft_analysis_is_hidden(anon, editor_api):
    from bottlenecks.models import Analysis

    Analysis.objects.create(slug="draft-map", title="Draft map", dek="Not yet.")
    assert anon.get("/api/v1/analyses/draft-map/").status_code == 404
    assert editor_api.get("/api/v1/analyses/draft-map/").status_code == 200


def test_tags_with_non_ascii_letters_have_working_addresses(anon):
    PaperFactory().tags.add("Ökonomie")
    tag = anon.get("/api/v1/tags/").json()["results"][0]
    assert tag["name"] == "Ökonomie"
    assert anon.get(tag["api_url"]).json()["slug"] == tag["slug"]
