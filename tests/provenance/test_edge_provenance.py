"""Provenance on every edge: who classified it and how, when, by which user, with the source's
confidence and "influential" flag; recorded by every door (model save, admin, inline, API,
importers), shown on the hub as a quiet marker, filterable in the explorer and the API."""

import datetime
import decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from citations.models import Citation, CitationSource, Paper
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import ART_OF_SCALING, admin_form_data, run_import, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def terms(db):
    return CitationRoleFactory(slug="method", name="Method"), CitationPolarityFactory(
        slug="supporting", name="Supporting"
    )


def test_an_edge_classified_in_code_records_an_editor_and_the_time(terms):
    role, polarity = terms
    edge = CitationFactory()
    assert (edge.source, edge.classified_at) == (CitationSource.NONE, None)
    edge.role = role
    edge.save()
    edge.refresh_from_db()
    assert edge.source == CitationSource.EDITOR
    assert timezone.now() - edge.classified_at < datetime.timedelta(minutes=1)
    assert edge.classified_by is None


def test_saving_without_touching_the_classification_keeps_its_provenance(terms):
    role, _ = terms
    edge = CitationFactory(role=role, source=CitationSource.SEMANTIC_SCHOLAR)
    stamped = edge.classified_at
    edge = Citation.objects.get(pk=edge.pk)
    edge.context = "A citing sentence."
    edge.save()
    edge.refresh_from_db()
    assert (edge.source, edge.classified_at) == (CitationSource.SEMANTIC_SCHOLAR, stamped)


def test_an_editor_reclassifying_an_imported_edge_makes_it_an_editors(terms, editor):
    role, polarity = terms
    edge = CitationFactory(
        role=role, source=CitationSource.SEMANTIC_SCHOLAR, confidence=decimal.Decimal("0.7")
    )
    edge = Citation.objects.get(pk=edge.pk)
    edge.polarity = polarity
    edge._history_user = editor
    edge.save()
    edge.refresh_from_db()
    assert edge.source == CitationSource.EDITOR
    assert edge.classified_by == editor
    assert edge.confidence is None  # the index's score was for its own reading


def test_classify_names_another_provenance(terms, editor):
    role, polarity = terms
    edge = CitationFactory(role=role)
    edge.classify(role, polarity, source=CitationSource.AUTHOR, user=editor)
    edge.save()
    edge.refresh_from_db()
    assert (edge.source, edge.classified_by, edge.polarity) == ("author", editor, polarity)
    assert edge.provenance_label.startswith("classified by the citing paper’s authors on ")


def test_confidence_is_between_0_and_1(terms):
    edge = CitationFactory()
    edge.confidence = decimal.Decimal("1.5")
    with pytest.raises(ValidationError) as error:
        edge.full_clean()
    assert "confidence" in error.value.message_dict
    with pytest.raises(IntegrityError), transaction.atomic():
        Citation.objects.filter(pk=edge.pk).update(confidence=decimal.Decimal("-0.2"))


def test_provenance_labels(terms):
    role, _ = terms
    when = timezone.make_aware(datetime.datetime(2026, 9, 3, 12))
    edge = Citation(role=role, source=CitationSource.EDITOR, classified_at=when)
    assert edge.provenance_label == "classified by an editor on 3 Sep 2026"
    edge.source = CitationSource.READER_SUGGESTION
    assert (
        edge.provenance_label == "classified by an editor, on a reader’s suggestion on 3 Sep 2026"
    )
    edge.source = CitationSource.SEMANTIC_SCHOLAR
    assert edge.provenance_label == "imported from Semantic Scholar"
    edge.source = CitationSource.OPENALEX
    assert edge.provenance_label == "imported from OpenAlex"
    # An unclassified edge an editor added says nothing about classification.
    assert Citation(source=CitationSource.EDITOR).provenance_label == ""


# ---- The admin: the change form and a paper's inline rows


def test_the_admin_change_form_records_the_editor(terms, editor_client, editor):
    role, polarity = terms
    edge = CitationFactory(source=CitationSource.SEMANTIC_SCHOLAR)
    url = reverse("admin:citations_citation_change", args=[edge.pk])
    data = admin_form_data(editor_client.get(url), Citation)
    data["role"], data["polarity"] = [str(role.pk)], [str(polarity.pk)]
    response = editor_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    edge.refresh_from_db()
    assert (edge.source, edge.classified_by) == (CitationSource.EDITOR, editor)
    assert edge.classified_at is not None


def test_the_admin_change_form_may_name_the_authors(terms, editor_client, editor):
    role, _ = terms
    edge = CitationFactory()
    url = reverse("admin:citations_citation_change", args=[edge.pk])
    data = admin_form_data(editor_client.get(url), Citation)
    data["role"], data["source"] = [str(role.pk)], ["author"]
    assert editor_client.post(url, data).status_code == 302
    edge.refresh_from_db()
    assert (edge.source, edge.classified_by) == (CitationSource.AUTHOR, editor)


def test_a_papers_inline_rows_record_the_editor(terms, editor_client, editor):
    role, _ = terms
    edge = CitationFactory(source=CitationSource.OPENALEX)
    paper = edge.cited_paper
    url = reverse("admin:citations_paper_change", args=[paper.pk])
    data = admin_form_data(editor_client.get(url), Paper)
    assert data["citations_received-0-id"] == [str(edge.pk)]
    data["citations_received-0-role"] = [str(role.pk)]
    response = editor_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    edge.refresh_from_db()
    assert (edge.role, edge.source, edge.classified_by) == (role, "editor", editor)


# ---- The API


def test_the_api_shows_provenance_and_records_the_editor(terms, editor_api, editor):
    role, _ = terms
    edge = CitationFactory(source=CitationSource.SEMANTIC_SCHOLAR, is_influential=True)
    url = f"/api/v1/citations/{edge.pk}/"
    body = editor_api.get(url).json()
    assert body["provenance"] == "semantic_scholar"
    assert body["provenance_label"] == "imported from Semantic Scholar"
    assert body["is_influential"] is True
    assert body["confidence"] is None
    response = editor_api.patch(url, {"role": role.slug}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["provenance"] == "editor"
    assert response.json()["classified_at"]
    edge.refresh_from_db()
    assert edge.classified_by == editor  # a token user, as scripts are


def test_the_api_does_not_let_a_client_claim_a_provenance(terms, editor_api):
    role, _ = terms
    edge = CitationFactory()
    url = f"/api/v1/citations/{edge.pk}/"
    patch = {"role": role.slug, "provenance": "semantic_scholar"}
    assert editor_api.patch(url, patch, format="json").status_code == 200
    edge.refresh_from_db()
    assert edge.source == CitationSource.EDITOR


def test_the_api_filters_by_provenance(terms, anon):
    role, _ = terms
    hub = PaperFactory()
    CitationFactory(cited_paper=hub, role=role)
    CitationFactory(cited_paper=hub, role=role, source=CitationSource.SEMANTIC_SCHOLAR)
    CitationFactory(cited_paper=hub, source=CitationSource.OPENALEX)
    for url in ("/api/v1/citations/", f"/api/v1/papers/{hub.slug}/citations/"):
        body = anon.get(url, {"provenance": "semantic_scholar"}).json()
        assert [row["provenance"] for row in body["results"]] == ["semantic_scholar"], url
        body = anon.get(url, {"provenance": "imported"}).json()
        assert len(body["results"]) == 1, url  # the OpenAlex edge has no role: nobody's
        assert len(anon.get(url, {"provenance": "editor"}).json()["results"]) == 1
        assert anon.get(url, {"provenance": "robot"}).status_code == 400


# ---- Importers


@pytest.fixture
def roles(db):
    for slug in ("background", "method", "comparison", "extension"):
        CitationRoleFactory(slug=slug, name=slug.title())


def test_semantic_scholar_edges_are_imported_never_editors(roles):
    run_import("s2_paper.json")
    art = Paper.objects.get(arxiv_id="2510.13786")
    edges = list(art.citations_received.all())
    assert {edge.source for edge in edges} == {CitationSource.SEMANTIC_SCHOLAR}
    classified = [edge for edge in edges if edge.role_id]
    assert classified and all(edge.classified_at for edge in classified)
    assert all(edge.classified_by is None for edge in edges)
    assert all(edge.provenance_label == "imported from Semantic Scholar" for edge in edges)


def test_an_import_never_reclassifies_an_editors_edge(roles, terms):
    run_import("s2_paper.json")
    art = Paper.objects.get(arxiv_id="2510.13786")
    edge = art.citations_received.filter(role__isnull=True).first()
    edge.classify(None, terms[1], source=CitationSource.READER_SUGGESTION)
    edge.save()
    run_import("s2_paper.json")
    edge.refresh_from_db()
    assert (edge.source, edge.role, edge.polarity) == ("reader_suggestion", None, terms[1])


# ---- The hub page


def test_the_hub_shows_a_quiet_provenance_marker_per_citing_row(client, demo):
    edge = Citation.objects.filter(cited_paper__slug=ART_OF_SCALING, role__isnull=False).first()
    when = timezone.make_aware(datetime.datetime(2026, 9, 3, 12))
    Citation.objects.filter(pk=edge.pk).update(classified_at=when, source=CitationSource.EDITOR)
    imported = Citation.objects.filter(cited_paper__slug=ART_OF_SCALING).exclude(pk=edge.pk).first()
    Citation.objects.filter(pk=imported.pk).update(source=CitationSource.SEMANTIC_SCHOLAR)
    response = client.get(reverse("citations:paper-detail", args=[ART_OF_SCALING]))
    html = response.content.decode()
    assert "Classified by an editor on 3 Sep 2026" in text_of(response)
    assert "Imported from Semantic Scholar" in text_of(response)
    assert 'class="edge-provenance' in html


def test_demo_edges_were_classified_by_pith_at_no_known_time(demo):
    classified = Citation.objects.filter(role__isnull=False)
    assert classified.exists()
    assert set(classified.values_list("source", flat=True)) == {CitationSource.PITH}
    assert not classified.filter(classified_at__isnull=False).exists()


def test_the_explorer_filters_by_provenance(client, demo):
    url = reverse("citations:paper-detail", args=[ART_OF_SCALING])
    edges = Citation.objects.filter(cited_paper__slug=ART_OF_SCALING).public()
    classified = edges.filter(role__isnull=False)
    picked = classified.first()
    Citation.objects.filter(pk=picked.pk).update(source=CitationSource.SEMANTIC_SCHOLAR)
    Citation.objects.filter(pk__in=classified.exclude(pk=picked.pk)).update(
        source=CitationSource.EDITOR
    )
    response = client.get(url, {"provenance": "imported"})
    assert response.status_code == 200
    listed = [edge.pk for edge in response.context["explorer_page"].object_list]
    assert listed == [picked.pk]
    assert response.context["explorer_page"].paginator.count == 1
    response = client.get(url, {"provenance": "editor"})
    # Only the classified edges: an unclassified edge was classified by nobody.
    assert response.context["explorer_page"].paginator.count == classified.count() - 1
    assert client.get(url, {"provenance": "nobody"}).status_code == 400
    assert 'name="provenance"' in response.content.decode()
