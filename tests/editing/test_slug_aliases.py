"""Only slugs readers could reach become 301 aliases (a draft's working slugs stay private),
and an alias slug cannot be taken by another paper (a live redirect never turns into a 404)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from citations.identity import PaperSlugAlias
from citations.merging import merge_papers
from citations.models import Paper
from publishing.models import Status
from tests.factories import PaperFactory
from tests.helpers import admin_form_data, token_client

pytestmark = pytest.mark.django_db


def rename(paper, slug):
    paper.slug = slug
    paper.save()


def test_a_drafts_working_slugs_never_become_aliases(client):
    paper = PaperFactory(slug="working-title", status=Status.DRAFT, published_at=None)
    rename(paper, "second-working-title")
    rename(paper, "final-title")
    paper.status = Status.PUBLISHED
    paper.save()
    assert not PaperSlugAlias.objects.exists()
    assert client.get("/papers/working-title/").status_code == 404


def test_a_slug_that_was_public_stays_an_alias(client):
    paper = PaperFactory(slug="public-title")
    paper.status = Status.DRAFT
    paper.save()
    rename(paper, "renamed-while-down")  # it was public under its old slug once
    assert PaperSlugAlias.objects.filter(slug="public-title", paper=paper).exists()


def test_merging_a_draft_keeps_no_alias_of_its_slug():
    keep = PaperFactory(slug="kept-paper")
    other = PaperFactory(slug="draft-copy", status=Status.DRAFT, published_at=None)
    merge_papers(keep, other)
    assert not PaperSlugAlias.objects.filter(slug="draft-copy").exists()


def test_an_alias_slug_cannot_be_taken_by_another_paper(client, editor_client, editor):
    paper = PaperFactory(slug="old-name")
    rename(paper, "new-name")
    with pytest.raises(ValidationError):
        PaperFactory(slug="old-name", title="Another paper", status=Status.DRAFT)
    assert client.get("/papers/old-name/").status_code == 301
    other = PaperFactory(slug="another-paper", url="https://example.org/x")
    url = reverse("admin:citations_paper_change", args=[other.pk])
    data = admin_form_data(editor_client.get(url), Paper)
    data["slug"] = ["old-name"]
    response = editor_client.post(url, data)
    assert response.status_code == 200
    assert "old address" in response.content.decode()
    body = {"slug": "old-name", "version": other.version}
    response = token_client(editor).patch("/api/v1/papers/another-paper/", body, format="json")
    assert response.status_code == 400
    assert client.get("/papers/old-name/").status_code == 301


def test_a_paper_may_take_back_its_own_old_slug(client):
    paper = PaperFactory(slug="old-name")
    rename(paper, "new-name")
    rename(paper, "old-name")
    assert client.get("/papers/old-name/").status_code == 200
    assert PaperSlugAlias.objects.filter(slug="new-name", paper=paper).exists()
    assert not PaperSlugAlias.objects.filter(slug="old-name").exists()
