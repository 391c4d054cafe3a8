"""Every provenance label against who really classified: the demo's classifications are
Pith's (the seed says so), undated; an edge nobody classified has no classifier, so
"Classified by: Editor" and the API's provenance filter count only classified edges."""

import importlib

import pytest
from django.apps import apps
from django.urls import reverse

from citations.models import Citation, CitationSource
from tests.factories import CitationFactory, CitationRoleFactory, PaperFactory
from tests.helpers import ART_OF_SCALING, run_import

pytestmark = pytest.mark.django_db


def test_demo_edges_carry_the_seeds_classifier_and_no_load_time(demo):
    edges = Citation.objects.filter(cited_paper__slug=ART_OF_SCALING)
    classified = edges.filter(role__isnull=False)
    assert classified.count() == 6
    assert set(classified.values_list("source", flat=True)) == {CitationSource.PITH}
    assert not classified.filter(classified_at__isnull=False).exists()
    assert {edge.provenance_label for edge in classified} == {"classified by Pith"}
    unclassified = edges.filter(role__isnull=True, polarity__isnull=True)
    assert unclassified.exists()
    assert set(unclassified.values_list("source", flat=True)) == {CitationSource.NONE}
    assert {edge.provenance_label for edge in unclassified} == {""}


def test_classified_by_editor_counts_only_edges_an_editor_classified(client, demo):
    url = reverse("citations:paper-detail", args=[ART_OF_SCALING])
    explorer = client.get(url, {"provenance": "editor"}).context["explorer_page"]
    assert explorer.paginator.count == 0
    explorer = client.get(url, {"provenance": "pith"}).context["explorer_page"]
    assert explorer.paginator.count == 6
    assert "Classified by Pith" in client.get(url).content.decode()


def test_the_api_provenance_facets_have_no_unclassified_group(client, demo):
    url = "/api/v1/citations/"
    for provenance in ("editor", "pith", "imported"):
        groups = client.get(
            url, {"cited": ART_OF_SCALING, "provenance": provenance, "group_by": "role"}
        ).json()["groups"]
        assert all(group["value"] is not None for group in groups), provenance
    pith = client.get(url, {"cited": ART_OF_SCALING, "provenance": "pith", "group_by": "role"})
    assert [(g["value"], g["count"]) for g in pith.json()["groups"]] == [("background", 6)]


def test_an_edge_unclassified_again_loses_its_classifier():
    role = CitationRoleFactory(slug="method")
    edge = CitationFactory()
    assert edge.source == CitationSource.NONE
    edge.role = role
    edge.save()
    assert (edge.source, edge.classified_at is not None) == (CitationSource.EDITOR, True)
    edge.role = None
    edge.save()
    edge.refresh_from_db()
    assert (edge.source, edge.classified_at, edge.classified_by) == ("", None, None)


def test_a_file_import_gives_its_unclassified_edges_no_classifier():
    run_import("s2_paper.json")  # an index: its edges keep the index's name
    assert not Citation.objects.filter(source=CitationSource.EDITOR, role__isnull=True).exists()
    assert (
        not Citation.objects.filter(role__isnull=True, polarity__isnull=True)
        .filter(source__in=CitationSource.by_editors())
        .exists()
    )


def test_the_migration_takes_the_classifier_off_unclassified_edges():
    role = CitationRoleFactory(slug="method")
    hub = PaperFactory()
    unclassified = CitationFactory(cited_paper=hub)
    classified = CitationFactory(cited_paper=hub, role=role)
    imported = CitationFactory(cited_paper=hub, source=CitationSource.OPENALEX)
    Citation.objects.filter(pk=unclassified.pk).update(source=CitationSource.EDITOR)
    migration = importlib.import_module("citations.migrations.0037_citation_source_none_and_pith")
    migration.unclassified_edges_have_no_classifier(apps, None)
    sources = dict(Citation.objects.values_list("pk", "source"))
    assert sources[unclassified.pk] == ""
    assert sources[classified.pk] == CitationSource.EDITOR
    assert sources[imported.pk] == CitationSource.OPENALEX
