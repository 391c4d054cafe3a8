"""One identity per paper: merges (and undo), old slugs answering 301, possible duplicates."""

import datetime

import pytest
from django.urls import reverse

from citations.duplicates import possible_duplicates
from citations.identity import PaperIdentifier, PaperSlugAlias
from citations.merging import merge_papers, undo_merge
from citations.models import Author, Authorship, Citation
from tests.factories import (
    CitationFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair():
    keep = PaperFactory(title="Scaling RL Compute", slug="scaling-rl", arxiv_id="2510.13786")
    other = PaperFactory(
        title="Scaling RL compute.", slug="scaling-rl-copy", arxiv_id="", doi="10.5555/x.1"
    )
    return keep, other


def test_merge_moves_everything_and_keeps_the_others_identity(pair):
    keep, other = pair
    citing, cited, both = PaperFactory(), PaperFactory(), PaperFactory()
    CitationFactory(citing_paper=citing, cited_paper=other)
    CitationFactory(citing_paper=other, cited_paper=cited)
    CitationFactory(citing_paper=both, cited_paper=keep)
    CitationFactory(citing_paper=both, cited_paper=other)  # a duplicate once merged
    CitationFactory(citing_paper=keep, cited_paper=other)  # a self-citation once merged
    note = ResearchNoteFactory()
    note.papers.add(other)
    layer = LayerFactory()
    other.layers.add(layer)
    other.tags.add("grpo")
    Authorship.objects.create(paper=other, author=Author.objects.create(name="Zoë Ł"), position=0)
    PaperIdentifier.objects.create(paper=other, scheme="openalex", value="W1")

    merge = merge_papers(keep, other, reason="test")

    assert set(keep.citations_received.values_list("citing_paper", flat=True)) == {
        citing.pk,
        both.pk,
    }
    assert list(keep.citations_made.values_list("cited_paper", flat=True)) == [cited.pk]
    assert list(note.papers.all()) == [keep]
    assert list(keep.layers.all()) == [layer]
    assert list(keep.tags.names()) == ["grpo"]
    assert keep.author_names == ["Zoë Ł"]
    keep.refresh_from_db()
    assert keep.doi == "10.5555/x.1"
    assert set(keep.other_identifiers.values_list("scheme", "value")) == {("openalex", "W1")}
    assert PaperSlugAlias.objects.get(slug="scaling-rl-copy").paper == keep
    assert "Merged scaling-rl-copy" in keep.history.first().history_change_reason
    assert merge.merged_slug == "scaling-rl-copy"


def test_undo_puts_both_papers_back(pair):
    keep, other = pair
    citing = PaperFactory()
    CitationFactory(citing_paper=citing, cited_paper=other)
    CitationFactory(citing_paper=keep, cited_paper=other)
    other.tags.add("grpo")
    before = set(Citation.objects.values_list("citing_paper", "cited_paper"))
    other_pk = other.pk

    restored = undo_merge(merge_papers(keep, other))

    assert restored.pk == other_pk and restored.slug == "scaling-rl-copy"
    assert set(Citation.objects.values_list("citing_paper", "cited_paper")) == before
    keep.refresh_from_db()
    assert keep.doi == "" and not keep.tags.exists()
    assert list(restored.tags.names()) == ["grpo"]
    assert not PaperSlugAlias.objects.exists()


def test_undo_puts_back_the_stored_citing_counts(pair):
    keep, other = pair
    for citing in PaperFactory.create_batch(2):
        CitationFactory(citing_paper=citing, cited_paper=other)
    CitationFactory(citing_paper=other, cited_paper=keep)  # deleted as a self-citation
    CitationFactory(citing_paper=PaperFactory(), cited_paper=keep)

    restored = undo_merge(merge_papers(keep, other))

    keep.refresh_from_db()
    assert restored.citation_count.total == 2
    assert keep.citation_count.total == 2
    assert sum(row.count for row in restored.citing_timeline_counts.all()) == 2


@pytest.mark.parametrize(
    ("url_name", "suffix"),
    [("citations:paper-detail", ""), ("citations:paper-bibtex", "")],
)
def test_old_slugs_answer_301_after_a_rename(client, url_name, suffix):
    paper = PaperFactory(slug="old-name")
    paper.slug = "new-name"
    paper.save()
    response = client.get(reverse(url_name, kwargs={"slug": "old-name"}) + "?role=method")
    assert response.status_code == 301
    assert response["Location"] == reverse(url_name, kwargs={"slug": "new-name"}) + "?role=method"
    assert client.get(response["Location"]).status_code in (200, 400)


def test_old_slugs_answer_301_after_a_merge(client, pair):
    keep, other = pair
    merge_papers(keep, other)
    for name in ("citations:paper-detail", "citations:paper-bibtex"):
        response = client.get(reverse(name, kwargs={"slug": "scaling-rl-copy"}))
        assert response.status_code == 301
        assert response["Location"] == reverse(name, kwargs={"slug": "scaling-rl"})


def test_an_alias_of_a_draft_stays_404_for_the_public(client):
    paper = PaperFactory(slug="old-name", status="draft")
    paper.slug = "new-name"
    paper.save()
    assert client.get("/papers/old-name/").status_code == 404


def test_a_slug_taken_again_is_no_longer_an_alias(client):
    # Only by the paper it names: another paper cannot take it (tests/editing/test_slug_aliases).
    paper = PaperFactory(slug="old-name")
    paper.slug = "new-name"
    paper.save()
    paper.slug = "old-name"
    paper.save()
    assert client.get("/papers/old-name/").status_code == 200
    assert not PaperSlugAlias.objects.filter(slug="old-name").exists()


def test_possible_duplicates():
    day = datetime.date(2025, 10, 15)
    a = PaperFactory(title="The Art of Scaling RL Compute for LLMs", publication_date=day)
    b = PaperFactory(title="The art of scaling RL compute for LLMs.", publication_date=day)
    c = PaperFactory(
        title="The Art of Scaling RL Compute for LLMs",
        arxiv_id="2510.13786",
        publication_date=day.replace(year=2019),
    )  # another year: not the same
    d = PaperFactory(title="Something else", arxiv_id="2402.03300")
    e = PaperFactory(title="Something else entirely", doi="10.48550/arXiv.2402.03300")
    pairs = {(p.first.pk, p.second.pk): p.reason for p in possible_duplicates()}
    assert pairs == {
        (a.pk, b.pk): "same title",
        (d.pk, e.pk): "arXiv id 2402.03300 and its DOI 10.48550/arxiv.2402.03300",
    }
    assert c.pk not in {pk for pair in pairs for pk in pair}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/api/v1/papers/old-name/", "/api/v1/papers/new-name/"),
        ("/api/v1/papers/old-name/citations/", "/api/v1/papers/new-name/citations/"),
    ],
)
def test_the_api_answers_301_from_an_old_slug(client, old, new):
    paper = PaperFactory(slug="old-name")
    paper.slug = "new-name"
    paper.save()
    response = client.get(old + "?format=json")
    assert response.status_code == 301
    assert response["Location"] == new + "?format=json"
    assert client.get(response["Location"]).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "by-doi/10.48550/arXiv.2510.13786/",
        "by-doi/https://doi.org/10.48550/ARXIV.2510.13786/",
        "by-arxiv/2510.13786v3/",
        "by-arxiv/arXiv:2510.13786/",
        "by-doi/10.5555/merged.1/",
        "by-arxiv/2402.03300/",
    ],
)
def test_the_api_finds_a_paper_by_any_identifier_it_answers_to(client, path):
    paper = PaperFactory(slug="scalerl", arxiv_id="2510.13786", doi="")
    PaperIdentifier.objects.create(paper=paper, scheme="doi", value="10.5555/merged.1")
    PaperIdentifier.objects.create(paper=paper, scheme="arxiv", value="2402.03300")
    response = client.get(f"/api/v1/papers/{path}")
    assert response.status_code == 200, response.content
    assert response.json()["slug"] == "scalerl"


def test_a_draft_found_by_identifier_stays_404_for_the_public(client):
    PaperFactory(slug="draft", arxiv_id="2510.13786", status="draft")
    assert client.get("/api/v1/papers/by-doi/10.48550/arXiv.2510.13786/").status_code == 404
    assert client.get("/api/v1/papers/by-arxiv/2510.13786/").status_code == 404
