"""The Bottleneck Map (/bottlenecks/) and layer pages (/bottlenecks/<slug>/)."""

import pytest
from django.test import Client
from django.urls import reverse

from bottlenecks.models import Analysis, Layer
from evidence.layer_views import with_public_counts
from publishing.models import Status
from tests.factories import LayerFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

INDEX = reverse("bottlenecks:index")
PAGE_QUERY_CEILING = 14  # the layer page: + claims (3) and the evidence strip (2)


def layer_url(slug):
    return reverse("bottlenecks:layer-detail", kwargs={"slug": slug})


def test_bottleneck_map_shows_the_analysis_with_its_steps(client, demo):
    response = client.get(INDEX)
    assert response.status_code == 200
    text = text_of(response)
    html = response.content.decode()
    assert "The RL Scaling Bottleneck Map" in text
    assert "Analysis 001" in text and "A working framework" in text
    assert "<p>A flat reward curve tells you that something stopped converting" in html
    steps = [
        "State the plateau",
        "List competing bottlenecks",
        "Choose a discriminating test",
        "Change one pressure at a time",
    ]
    assert [text.index(step) for step in steps] == sorted(text.index(s) for s in steps)
    assert "A test that every hypothesis predicts equally tells you nothing." in text


def test_bottleneck_map_lists_the_layers(client, demo):
    response = client.get(INDEX)
    html = response.content.decode()
    for layer in Layer.objects.all():
        assert f'href="{layer.get_absolute_url()}"' in html
    # Not the home page's table again: each card says what its layer page holds.
    text = text_of(response)
    assert "Reward rises while human judgment" not in text
    rollouts = with_public_counts(Layer.objects.all()).get(slug="rollouts")
    assert f"{rollouts.paper_count} papers · {rollouts.claim_count} claims" in text


def test_draft_analysis_is_hidden(client, demo):
    Analysis.objects.update(status=Status.DRAFT)
    response = client.get(INDEX)
    assert response.status_code == 200
    assert "State the plateau" not in text_of(response)


def test_layer_page_shows_signal_question_notes_and_papers(client, demo):
    response = client.get(layer_url("rollouts"))
    assert response.status_code == 200
    text = text_of(response)
    assert "Samples are repetitive, too short, stale" in text
    assert "Are we generating enough diverse and current trajectories" in text
    assert "Locked at the Entrance, Open Inside" in text  # a note on rollouts
    assert "DAPO: An Open-Source LLM Reinforcement Learning System at Scale" in text  # a paper
    assert "Proximal Policy Optimization Algorithms" in text


def test_layer_page_hides_drafts(client, db):
    layer = LayerFactory(slug="rewards-test")
    ResearchNoteFactory(title="Draft note on layer", draft=True).layers.add(layer)
    PaperFactory(title="Draft paper on layer", draft=True).layers.add(layer)
    text = text_of(client.get(layer_url("rewards-test")))
    assert "Draft note on layer" not in text and "Draft paper on layer" not in text
    assert "No research notes on this layer yet." in text


def test_draft_layer_is_404_for_the_public_and_previewable_by_editors(editor_client, db):
    LayerFactory(slug="hidden", draft=True)
    assert Client().get(layer_url("hidden")).status_code == 404
    response = editor_client.get(layer_url("hidden"))
    assert response.status_code == 200
    assert "Draft preview." in text_of(response)


def test_layer_papers_are_paginated(client, db):
    layer = LayerFactory(slug="busy")
    for _ in range(25):
        PaperFactory().layers.add(layer)
    assert "Page 1 of 2" in text_of(client.get(layer_url("busy")))
    assert client.get(layer_url("busy"), {"page": 2}).status_code == 200
    assert client.get(layer_url("busy"), {"page": 3}).status_code == 404


def test_query_counts_do_not_grow(client, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(PAGE_QUERY_CEILING):
        client.get(INDEX)
    with django_assert_max_num_queries(PAGE_QUERY_CEILING):
        client.get(layer_url("rollouts"))
    layer = Layer.objects.get(slug="rollouts")
    for number in range(20):
        paper = PaperFactory()
        paper.layers.add(layer, LayerFactory())
        paper.tags.add(f"t{number}")
        ResearchNoteFactory().layers.add(layer)
    with django_assert_max_num_queries(PAGE_QUERY_CEILING):
        client.get(INDEX)
    with django_assert_max_num_queries(PAGE_QUERY_CEILING):
        client.get(layer_url("rollouts"))
