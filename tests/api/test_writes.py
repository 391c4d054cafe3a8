"""Editors' writes: serializers, validation with field-level 400s, constraint errors, and
optimistic concurrency (412 on a stale If-Match, 409 on a stale version)."""

import pytest
from django.contrib.auth.models import Permission

from citations.models import Authorship, Citation, Paper
from notes.models import Question
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    LayerFactory,
    PaperFactory,
    QuestionFactory,
    UserFactory,
)
from tests.helpers import token_client

pytestmark = pytest.mark.django_db


def errors(response, status=400):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status
    return body["errors"]


# ---- Papers


def test_create_paper_with_authors_tags_and_layers(editor_api):
    rollouts, rewards = LayerFactory(slug="rollouts"), LayerFactory(slug="rewards")
    response = editor_api.post(
        "/api/v1/papers/",
        {
            "title": "Scaling Rollouts, Carefully",
            "authors": ["Ada Lovelace", "Alan Turing", "Grace Hopper"],
            "tags": ["grpo", "systems"],
            "layers": ["rollouts", "rewards"],
            "arxiv_id": "2601.01234v2",
            "doi": "https://doi.org/10.48550/arXiv.2601.01234",
            "publication_date": "2026-01-05",
            "summary": "What it found.",
            "status": "published",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["slug"] == "scaling-rollouts-carefully"
    assert response["Location"] == body["api_url"]
    assert body["authors"] == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert body["tags"] == ["grpo", "systems"]
    assert sorted(body["layers"]) == ["rewards", "rollouts"]
    assert body["arxiv_id"] == "2601.01234"  # stored without the version suffix
    assert body["doi"] == "10.48550/arxiv.2601.01234"  # DOIs are case-insensitive: lower case
    assert body["version"] == 1 and body["published_at"]
    assert body["citing_counts"]["total"] == 0
    paper = Paper.objects.get(slug="scaling-rollouts-carefully")
    assert paper.author_names == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert set(paper.layers.all()) == {rollouts, rewards}


def test_update_replaces_authors_in_the_new_order(editor_api):
    paper = PaperFactory()
    url = f"/api/v1/papers/{paper.slug}/"
    editor_api.patch(url, {"authors": ["B", "A"]}, format="json")
    response = editor_api.patch(url, {"authors": ["C", "B"]}, format="json")
    assert response.json()["authors"] == ["C", "B"]
    assert list(Authorship.objects.filter(paper=paper).values_list("author__name", "position")) == [
        ("C", 0),
        ("B", 1),
    ]


def test_version_is_read_only_and_bumped_on_every_save(editor_api):
    paper = PaperFactory()
    url = f"/api/v1/papers/{paper.slug}/"
    first = editor_api.patch(url, {"title": "One"}, format="json").json()
    second = editor_api.patch(url, {"title": "Two", "version": first["version"]}, format="json")
    assert second.status_code == 200
    assert second.json()["version"] == first["version"] + 1
    created = editor_api.post("/api/v1/papers/", {"title": "Fresh", "version": 40}, format="json")
    assert created.json()["version"] == 1


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "title"),
        ({"title": ""}, "title"),
        ({"title": "x" * 501}, "title"),
        ({"title": "T", "arxiv_id": "arXiv:abc"}, "arxiv_id"),
        ({"title": "T", "doi": "11.1/x"}, "doi"),
        ({"title": "T", "publication_date": "last tuesday"}, "publication_date"),
        ({"title": "T", "is_canonical_reference": "perhaps"}, "is_canonical_reference"),
        ({"title": "T", "authors": "Ada Lovelace"}, "authors"),
        ({"title": "T", "authors": ["Ada", "ada"]}, "authors"),
        ({"title": "T", "tags": [17, {"a": 1}]}, "tags"),
        ({"title": "T", "tags": ["!!!"]}, "tags"),
        ({"title": "T", "layers": ["no-such-layer"]}, "layers"),
        ({"title": "T", "status": "archived"}, "status"),
        ({"title": "T", "url": "not a url"}, "url"),
        ({"title": "T", "code_url": "javascript:alert(1)"}, "code_url"),
        ({"title": "T", "slug": "Not A Slug!"}, "slug"),
        ({"title": "!!!"}, "slug"),
        ({"title": "T\x00"}, "title"),
    ],
)
def test_invalid_paper_input_is_400_naming_the_field(editor_api, payload, field):
    LayerFactory(slug="rollouts")
    assert field in errors(editor_api.post("/api/v1/papers/", payload, format="json"))
    assert not Paper.objects.exists()


def test_the_code_repository_is_read_and_written(editor_api):
    paper = PaperFactory(code_url="https://github.com/example/old")
    url = f"/api/v1/papers/{paper.slug}/"
    assert editor_api.get(url).json()["code_url"] == "https://github.com/example/old"
    response = editor_api.patch(url, {"code_url": "https://github.com/example/new"}, format="json")
    assert response.status_code == 200, response.content
    paper.refresh_from_db()
    assert paper.code_url == "https://github.com/example/new"


def test_identifiers_and_slugs_must_be_unique(editor_api):
    PaperFactory(title="The first paper", slug="taken", arxiv_id="2501.12599", doi="10.1000/abc")
    for payload, field in [
        ({"title": "Taken"}, "slug"),
        ({"title": "T", "slug": "taken"}, "slug"),
        ({"title": "T", "arxiv_id": "2501.12599v1"}, "arxiv_id"),
        ({"title": "T", "doi": "10.1000/ABC"}, "doi"),
    ]:
        message = errors(editor_api.post("/api/v1/papers/", payload, format="json"))[field]
        assert "“The first paper” already has this" in message[0]  # by title, not slug


def test_malformed_json_is_a_400_not_a_500(editor_api):
    response = editor_api.generic(
        "POST", "/api/v1/papers/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


# ---- Citations


@pytest.fixture
def two_papers():
    CitationRoleFactory(slug="background", name="Background")
    CitationPolarityFactory(slug="neutral", name="Neutral")
    return PaperFactory(slug="citing"), PaperFactory(slug="cited")


def test_create_citation_by_slugs(editor_api, two_papers):
    response = editor_api.post(
        "/api/v1/citations/",
        {
            "citing_paper": "citing",
            "cited_paper": "cited",
            "role": "background",
            "polarity": "neutral",
            "context": "As shown by [3], ...",
            "status": "published",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["citing_paper"], body["cited_paper"], body["role"]) == (
        "citing",
        "cited",
        "background",
    )
    assert response["Location"] == body["api_url"]
    assert type(response.headers["Location"]) is str  # wsgiref refuses str subclasses
    hub = editor_api.get("/api/v1/papers/cited/").json()
    assert hub["citing_counts"]["by_role"]["background"] == 1


def test_self_citation_is_a_field_error(editor_api, two_papers):
    response = editor_api.post(
        "/api/v1/citations/", {"citing_paper": "cited", "cited_paper": "cited"}, format="json"
    )
    assert errors(response) == {"cited_paper": ["A paper cannot cite itself."]}


def test_duplicate_edge_is_a_field_error(editor_api, two_papers):
    citing, cited = two_papers
    CitationFactory(citing_paper=citing, cited_paper=cited)
    response = editor_api.post(
        "/api/v1/citations/", {"citing_paper": "citing", "cited_paper": "cited"}, format="json"
    )
    message = f"“{citing.title}” already cites “{cited.title}”."
    assert errors(response) == {"cited_paper": [message]}
    assert Citation.objects.count() == 1


def test_a_seventh_representative_is_a_field_error(editor_api, two_papers):
    citing, cited = two_papers
    for _ in range(6):
        CitationFactory(cited_paper=cited, is_representative=True, representative_reason="Why")
    body = {"citing_paper": "citing", "cited_paper": "cited", "is_representative": True}
    refused = errors(editor_api.post("/api/v1/citations/", body, format="json"))
    assert "representative_reason" in refused
    body["representative_reason"] = "The clearest use of the recipe."
    refused = errors(editor_api.post("/api/v1/citations/", body, format="json"))
    assert "a hub has at most 6" in refused["is_representative"][0]
    edge = CitationFactory(citing_paper=citing, cited_paper=cited)
    patch = {"is_representative": True, "representative_reason": "Better"}
    assert "is_representative" in errors(
        editor_api.patch(f"/api/v1/citations/{edge.pk}/", patch, format="json")
    )
    assert cited.citations_received.filter(is_representative=True).count() == 6


def test_changing_an_edge_into_a_self_citation_or_duplicate_is_refused(editor_api, two_papers):
    citing, cited = two_papers
    other = PaperFactory(slug="other")
    CitationFactory(citing_paper=other, cited_paper=cited)
    edge = CitationFactory(citing_paper=citing, cited_paper=cited)
    url = f"/api/v1/citations/{edge.pk}/"
    assert "cited_paper" in errors(editor_api.patch(url, {"citing_paper": "cited"}, format="json"))
    assert "cited_paper" in errors(editor_api.patch(url, {"citing_paper": "other"}, format="json"))
    assert editor_api.patch(url, {"context": "ok"}, format="json").status_code == 200


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"role": "no-such-role"}, "role"),
        ({"polarity": "sideways"}, "polarity"),
        ({"citing_paper": "missing"}, "citing_paper"),
        ({"cited_paper": 42}, "cited_paper"),
        ({"is_representative": "often"}, "is_representative"),
    ],
)
def test_unknown_references_are_field_errors(editor_api, two_papers, payload, field):
    body = {"citing_paper": "citing", "cited_paper": "cited", **payload}
    assert field in errors(editor_api.post("/api/v1/citations/", body, format="json"))


@pytest.mark.parametrize("field", ["citing_paper", "cited_paper", "role", "polarity"])
def test_references_with_nul_bytes_are_field_errors_not_database_errors(
    editor_api, two_papers, field
):
    # PostgreSQL refuses NUL in text; the reference must be refused before the query.
    body = {"citing_paper": "citing", "cited_paper": "cited", field: "cit\x00ed"}
    assert field in errors(editor_api.post("/api/v1/citations/", body, format="json"))
    form = editor_api.post("/api/v1/citations/", body, format="multipart")
    assert field in errors(form)


def test_role_can_be_cleared(editor_api, two_papers):
    citing, cited = two_papers
    edge = CitationFactory(citing_paper=citing, cited_paper=cited, role=None)
    response = editor_api.patch(f"/api/v1/citations/{edge.pk}/", {"role": None}, format="json")
    assert response.json()["role"] is None


# ---- Other resources


def test_questions_are_unique_per_kind_with_a_field_error(editor_api):
    QuestionFactory(kind="faq", question="Why?")
    response = editor_api.post(
        "/api/v1/questions/", {"kind": "faq", "question": "Why?", "answer": "A."}, format="json"
    )
    assert "question" in errors(response)
    created = editor_api.post(
        "/api/v1/questions/", {"kind": "team", "question": "Why?", "answer": "A."}, format="json"
    )
    assert created.status_code == 201
    assert Question.objects.count() == 2


def test_notes_posts_and_framework_items_are_writable(editor_api):
    paper = PaperFactory()
    LayerFactory(slug="compute")
    note = editor_api.post(
        "/api/v1/notes/",
        {
            "slug": "a-note",
            "title": "A note",
            "summary": "What it found.",
            "body": "The note itself.",
            "papers": [paper.slug],
            "layers": ["compute"],
            "tags": ["grpo"],
            "status": "published",
        },
        format="json",
    )
    assert note.status_code == 201, note.content
    assert note.json()["papers"] == [paper.slug] and note.json()["tags"] == ["grpo"]
    post = editor_api.post(
        "/api/v1/community-posts/",
        {
            "slug": "a-post",
            "title": "A post",
            "author": "A. Writer",
            "url": "https://www.lesswrong.com/posts/x",
            "summary": "Argues a point.",
        },
        format="json",
    )
    assert post.status_code == 201, post.content
    dimension = editor_api.post(
        "/api/v1/dimensions/", {"slug": "speed", "name": "Speed"}, format="json"
    )
    assert dimension.status_code == 201
    layer = editor_api.post("/api/v1/layers/", {"slug": "x", "name": "X"}, format="json")
    assert set(errors(layer)) == {"failure_signal", "diagnostic_question"}


# ---- Optimistic concurrency


@pytest.fixture
def paper_url():
    return f"/api/v1/papers/{PaperFactory(title='Original').slug}/"


def test_stale_version_in_the_body_is_409_and_changes_nothing(editor_api, paper_url):
    version = editor_api.get(paper_url).json()["version"]
    editor_api.patch(paper_url, {"title": "Someone else's edit"}, format="json")
    response = editor_api.patch(paper_url, {"title": "My edit", "version": version}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "conflict"
    assert f"you sent version {version}" in body["detail"]
    assert f"now version {version + 1}" in body["detail"]
    paper = Paper.objects.get()
    assert (paper.title, paper.version) == ("Someone else's edit", version + 1)


def test_stale_version_on_put_is_409_too(editor_api, paper_url):
    editor_api.patch(paper_url, {"byline": "x"}, format="json")
    response = editor_api.put(paper_url, {"title": "Replaced", "version": 1}, format="json")
    assert response.status_code == 409
    assert Paper.objects.get().title == "Original"


def test_version_must_be_an_integer(editor_api, paper_url):
    response = editor_api.patch(paper_url, {"title": "x", "version": "latest"}, format="json")
    assert "version" in errors(response)


def test_stale_if_match_is_412_and_changes_nothing(editor_api, paper_url):
    etag = editor_api.get(paper_url)["ETag"]
    editor_api.patch(paper_url, {"title": "Someone else's edit"}, format="json")
    response = editor_api.patch(paper_url, {"title": "Mine"}, format="json", HTTP_IF_MATCH=etag)
    assert response.status_code == 412
    assert response.json()["code"] == "precondition_failed"
    assert Paper.objects.get().title == "Someone else's edit"
    deleted = editor_api.delete(paper_url, HTTP_IF_MATCH=etag)
    assert deleted.status_code == 412
    assert Paper.objects.exists()


def test_current_if_match_goes_through_and_returns_the_new_etag(editor_api, paper_url):
    etag = editor_api.get(paper_url)["ETag"]
    response = editor_api.patch(paper_url, {"title": "Mine"}, format="json", HTTP_IF_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] != etag
    assert response["ETag"] == editor_api.get(paper_url)["ETag"]
    assert editor_api.delete(paper_url, HTTP_IF_MATCH=response["ETag"]).status_code == 204


def test_if_match_star_and_weak_tags(editor_api, paper_url):
    etag = editor_api.get(paper_url)["ETag"]
    weak = editor_api.patch(paper_url, {"title": "x"}, format="json", HTTP_IF_MATCH=f"W/{etag}")
    assert weak.status_code == 412  # If-Match compares strongly
    star = editor_api.patch(paper_url, {"title": "y"}, format="json", HTTP_IF_MATCH="*")
    assert star.status_code == 200


def test_a_write_that_loses_the_race_is_refused(editor_api, paper_url, monkeypatch):
    """Between reading the row and saving it, another editor saves: the compare-and-swap
    on `version` refuses the second write (409) instead of overwriting the first. (Without
    `version` or If-Match the write asks for no check and is applied: test_schema_and_writes.)"""
    from apikit import concurrency as api

    original = api.VersionedWritesMixin.submitted_version

    def read_then_someone_saves(self, request, instance):
        expected = original(self, request, instance)
        Paper.objects.get(pk=instance.pk).save()  # the other editor's save
        return expected

    monkeypatch.setattr(api.VersionedWritesMixin, "submitted_version", read_then_someone_saves)
    version = Paper.objects.get().version
    response = editor_api.patch(paper_url, {"title": "Lost", "version": version}, format="json")
    assert response.status_code == 409
    assert Paper.objects.get().title == "Original"


def test_who_may_add_but_not_view_drafts_gets_back_the_draft_they_created():
    adder = UserFactory(username="adder")
    adder.user_permissions.add(Permission.objects.get(codename="add_paper"))
    response = token_client(adder).post("/api/v1/papers/", {"title": "Mine"}, format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "draft"
    # Reading it back is still for those who may view drafts.
    assert token_client(adder).get(response["Location"]).status_code == 404
