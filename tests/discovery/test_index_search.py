"""The research index's ?q= is the site search's: `?q=rollout` lists what `?layer=rollouts`
lists (it listed none before), and a draft layer's words find none of its papers."""

import re

import pytest

from bottlenecks.models import Layer
from publishing.models import Status
from tests.factories import LayerFactory, PaperFactory

pytestmark = pytest.mark.django_db


def listed(client, query):
    response = client.get(f"/research/?{query}")
    assert response.status_code == 200
    return set(re.findall(r'<h3><a href="/papers/([^/]+)/">', response.content.decode()))


def test_a_layer_word_finds_the_layer_s_papers(client, demo):
    by_layer = listed(client, "layer=rollouts")
    assert by_layer
    assert by_layer <= listed(client, "q=rollout")
    assert by_layer <= listed(client, "q=Rollouts")


def test_a_draft_layer_finds_nothing(client, settings):
    settings.PAGE_CACHE_SECONDS = 0  # the publication below is an update() nothing announces
    layer = LayerFactory(name="Zyxwv bottleneck", slug="zyxwv", draft=True)
    paper = PaperFactory(slug="in-a-draft-layer", title="Quiet paper")
    paper.layers.add(layer)
    assert listed(client, "q=zyxwv") == set()
    Layer.objects.filter(pk=layer.pk).update(status=Status.PUBLISHED)
    assert listed(client, "q=zyxwv") == {"in-a-draft-layer"}


def test_the_engine_s_paper_match_still_applies(client):
    PaperFactory(slug="grpo-paper", title="Group relative policy optimisation")
    PaperFactory(slug="other-paper", title="Something else")
    PaperFactory(slug="grpo-draft", title="Group relative draft", draft=True)
    assert listed(client, "q=group+relative") == {"grpo-paper"}
    assert listed(client, "q=a") == set()
