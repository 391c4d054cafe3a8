"""Contributors (no publish permission) change nothing readers see, by any door: every admin
model (its forms, deletes and actions), every API write, imports (published, confirmed,
updating or merging live papers), the classification queue, readers' corrections, merges,
identifiers and slug aliases. One check decides: publishing.permissions.may_change_live."""

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import NoReverseMatch, reverse

from citations.corrections.models import CorrectionSuggestion
from citations.identity import PaperIdentifier, PaperSlugAlias
from citations.importers.runs import ImportRun
from citations.models import Author, Citation, Paper
from publishing.editors import live_models
from publishing.models import Publishable, Status
from publishing.permissions import may_change_live
from rlscaling.api_urls import router
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
    UserFactory,
)
from tests.helpers import admin_form_data, fixture_text, token_client

pytestmark = pytest.mark.django_db

BIBTEX = """@article{k1, title={A contributor's paper}, author={Doe, Jane}, year={2025},
 doi={10.5555/contrib.1}}"""


# A save that changes no field (an empty PATCH) only counts the row's edits.
BOOKKEEPING = {"version", "updated_at"}


def state(row):
    """Everything readers could see of a row (None once deleted)."""
    fresh = type(row)._base_manager.filter(pk=row.pk).values().first()
    return fresh and {name: value for name, value in fresh.items() if name not in BOOKKEEPING}


def live_row(model):
    rows = model._base_manager.order_by("pk")
    if issubclass(model, Publishable):
        rows = rows.filter(status=Status.PUBLISHED)
    return rows.first()


def draft_row(model):
    if not issubclass(model, Publishable):
        return None
    return model._base_manager.exclude(status__in=[Status.PUBLISHED, Status.SCHEDULED]).first()


def admin_url(model, view, *args):
    try:
        return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)
    except NoReverseMatch:
        return None


def edited(data, model):
    """The change form's data with every text input changed."""
    text_fields = {
        field.name
        for field in model._meta.concrete_fields
        if field.get_internal_type() in ("CharField", "TextField") and not field.choices
    }
    return {
        name: [f"{values[0]} changed"] if name in text_fields and values else values
        for name, values in data.items()
    }


@pytest.fixture
def every_kind(demo):
    """One row at least of each model readers see besides the demo's (identifiers, aliases,
    a published and a draft edge), and a pending reader suggestion."""
    paper = Paper.objects.published().first()
    PaperIdentifier.objects.get_or_create(paper=paper, scheme="openalex", value="W0000000001")
    PaperSlugAlias.objects.get_or_create(paper=paper, slug="an-old-public-slug")
    edge = Citation.objects.published().first()
    CorrectionSuggestion.objects.create(
        citation=edge, suggested_role=CitationRoleFactory(), reason="Reads as a baseline."
    )
    return paper


def test_every_model_readers_see_has_the_publish_check(contributor, every_kind):
    editor = UserFactory(editor=True)
    for model in live_models():
        assert may_change_live(editor, model), model
        assert not may_change_live(contributor, model), model


def test_a_contributor_changes_nothing_public_in_any_admin(
    contributor, contributor_client, every_kind
):
    request = RequestFactory().get("/")
    request.user = contributor
    for model, model_admin in admin.site._registry.items():
        live = live_row(model)
        if model in live_models() and not issubclass(model, Publishable):
            may_add = model_admin.has_add_permission(request)
            assert not may_add or model is Author, f"{model.__name__}: a contributor adds live rows"
        if live is None:
            continue
        before = state(live)
        change = admin_url(model, "change", live.pk)
        response = contributor_client.get(change)
        if response.status_code == 200 and f'id="{model._meta.model_name}_form"' in (
            response.content.decode()
        ):
            contributor_client.post(change, edited(admin_form_data(response, model), model))
        delete = admin_url(model, "delete", live.pk)
        if delete:
            contributor_client.post(delete, {"post": "yes"})
        draft = draft_row(model)
        changelist = admin_url(model, "changelist")
        # Every action the admin declares, offered to the contributor or not.
        for _, action, _ in model_admin._get_base_actions():
            rows = [str(live.pk)] + ([str(draft.pk)] if draft else [])
            contributor_client.post(
                changelist, {"action": action, "_selected_action": rows, "post": "yes"}
            )
        assert state(live) == before, f"{model.__name__}: a contributor changed a live row"
        if draft is not None:
            draft.refresh_from_db()
            assert draft.status not in (Status.PUBLISHED, Status.SCHEDULED), model.__name__


def test_a_contributor_changes_nothing_public_through_the_api(contributor, every_kind):
    client = token_client(contributor)
    for prefix, viewset, basename in router.registry:
        model = viewset.queryset.model if viewset.queryset is not None else None
        if model is None:
            continue
        live = live_row(model)
        slug = f"contributor-{basename}"
        body = {"title": "Mine", "name": "Mine", "slug": slug, "status": "published"}
        response = client.post(f"/api/v1/{prefix}/", body, format="json")
        assert response.status_code in (400, 403, 405), (prefix, response.status_code)
        has_slug = any(field.name == "slug" for field in model._meta.concrete_fields)
        assert not (has_slug and model._base_manager.filter(slug=slug).exists()), prefix
        if live is None:
            continue
        before = state(live)
        key = getattr(live, viewset.lookup_field if viewset.lookup_field != "pk" else "pk")
        detail = f"/api/v1/{prefix}/{key}/"
        response = client.patch(detail, {"status": "draft"}, format="json")
        if issubclass(model, Publishable):
            assert response.status_code in (400, 403, 405), (prefix, response.status_code)
        # Fields the resource does not have are ignored (a write that changes nothing is a
        # 200 on every resource); the stored row is what counts.
        changed = {"title": "Changed", "name": "Changed", "context": "x", "note": "Changed"}
        client.patch(detail, changed, format="json")
        assert client.delete(detail).status_code in (403, 405), prefix
        assert state(live) == before, prefix


def test_a_contributor_cannot_import_published_papers(contributor, contributor_client):
    client = token_client(contributor)
    body = {"format": "bibtex", "text": BIBTEX, "apply": True, "publish": True}
    response = client.post("/api/v1/imports/", body, format="json")
    assert response.status_code == 403
    assert "publish permission" in response.json()["detail"]
    assert not Paper.objects.filter(doi="10.5555/contrib.1").exists()
    response = contributor_client.post(
        reverse("admin:citations_importrun_add"), {"text": BIBTEX, "publish": "on"}
    )
    assert response.status_code == 200
    assert "publish permission" in response.content.decode()
    assert not ImportRun.objects.exists()
    # As drafts, they may.
    response = client.post("/api/v1/imports/", {**body, "publish": False}, format="json")
    assert response.status_code == 201
    assert Paper.objects.get(doi="10.5555/contrib.1").status == Status.DRAFT


def test_a_contributor_cannot_confirm_an_editors_published_import(
    contributor, contributor_client, editor
):
    run, _ = ImportRun.preview(BIBTEX, "bibtex", publish=True, user=editor)
    contributor_client.post(reverse("admin:citations_importrun_confirm", args=[run.pk]))
    assert token_client(contributor).post(f"/api/v1/imports/{run.pk}/").status_code == 403
    run.refresh_from_db()
    assert run.state == ImportRun.State.PREVIEWED
    assert not Paper.objects.filter(doi="10.5555/contrib.1").exists()


def test_a_contributor_cannot_import_over_or_merge_live_papers(contributor, editor, roles):
    by_arxiv = PaperFactory(title="ScaleRL (arXiv)", slug="scalerl-arxiv", arxiv_id="2510.13786")
    by_openalex = PaperFactory(title="ScaleRL (OpenAlex)", slug="scalerl-openalex", arxiv_id="")
    PaperIdentifier.objects.create(paper=by_openalex, scheme="openalex", value="W4403100001")
    before = state(by_arxiv)
    body = {"text": fixture_text("openalex_works.jsonl"), "apply": True}
    response = token_client(contributor).post("/api/v1/imports/", body, format="json")
    assert response.status_code == 403
    assert "scalerl-arxiv" in response.json()["detail"]
    assert Paper.objects.filter(pk=by_openalex.pk).exists() and state(by_arxiv) == before
    run, _ = ImportRun.preview(fixture_text("openalex_works.jsonl"), user=editor)
    response = token_client(contributor).post(f"/api/v1/imports/{run.pk}/")
    assert response.status_code == 403
    assert Paper.objects.filter(pk=by_openalex.pk).exists() and state(by_arxiv) == before


@pytest.fixture
def roles(db):
    CitationRoleFactory(slug="baseline")
    CitationPolarityFactory()


def test_a_contributor_cannot_merge_papers_or_accept_a_correction(contributor, contributor_client):
    keep, other = PaperFactory(), PaperFactory()
    response = contributor_client.post(
        reverse("admin:citations_paper_duplicates"), {"keep": keep.pk, "other": other.pk}
    )
    assert response.status_code == 403 and Paper.objects.filter(pk=other.pk).exists()
    edge = CitationFactory(role=None)
    role = CitationRoleFactory()
    suggestion = CorrectionSuggestion.objects.create(
        citation=edge, suggested_role=role, reason="It is a baseline."
    )
    contributor_client.post(
        reverse("admin:citations_correctionsuggestion_changelist"),
        {"action": "accept_selected", "_selected_action": [suggestion.pk]},
    )
    edge.refresh_from_db()
    assert edge.role is None
    suggestion.refresh_from_db()
    assert suggestion.status == CorrectionSuggestion.Status.PENDING


def test_the_classification_queue_leaves_live_edges_to_editors(contributor, contributor_client):
    edge = CitationFactory(role=None, polarity=None)
    response = contributor_client.post(
        reverse("admin:citations_citation_classify", args=[edge.cited_paper_id]),
        {
            "edge": edge.pk,
            "version": edge.version,
            "role": CitationRoleFactory().pk,
            "polarity": CitationPolarityFactory().pk,
        },
        follow=True,
    )
    assert "publish permission" in response.content.decode()
    edge.refresh_from_db()
    assert edge.role is None
