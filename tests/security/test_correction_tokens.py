"""The corrections form's token is one per form shown, for that edge, single use and
short-lived; and the editors' queue has a global rate. With one token, 10 addresses sent 50
suggestions in 3.5 s: it was reusable for 24 hours, for any edge and any client."""

import re
import time

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from citations.corrections.models import CorrectionSuggestion
from tests.factories import CitationFactory, CitationPolarityFactory, CitationRoleFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_minimum_time(settings):
    settings.CORRECTION_FORM_MIN_SECONDS = 0
    cache.clear()


@pytest.fixture
def edges(db):
    background = CitationRoleFactory(slug="background", name="Background")
    CitationRoleFactory(slug="method", name="Method")
    neutral = CitationPolarityFactory(slug="neutral", name="Neutral")
    return [CitationFactory(role=background, polarity=neutral) for _ in range(2)]


def url_of(edge):
    return reverse("citations:suggest-correction", args=[edge.pk])


def token_for(edge, address="10.0.0.1"):
    page = Client(REMOTE_ADDR=address).get(url_of(edge))
    return re.search(r'name="token" value="([^"]+)"', page.content.decode()).group(1)


def send(edge, token, address="10.0.0.1"):
    from citations.models import CitationRole

    method = CitationRole.objects.get(slug="method")
    return Client(REMOTE_ADDR=address).post(
        url_of(edge), {"token": token, "reason": "It is a method.", "suggested_role": method.pk}
    )


def test_a_token_is_single_use_whatever_the_address(edges):
    token = token_for(edges[0])
    assert send(edges[0], token).status_code == 302
    for n in range(2, 6):
        response = send(edges[0], token, address=f"10.0.0.{n}")
        assert response.status_code == 400
        assert "already" in response.content.decode()
    assert CorrectionSuggestion.objects.count() == 1


def test_a_token_is_for_the_edge_it_was_shown_for(edges):
    token = token_for(edges[0])
    response = send(edges[1], token)
    assert response.status_code == 400
    assert not CorrectionSuggestion.objects.exists()


def test_a_token_is_short_lived(edges, settings, monkeypatch):
    token = token_for(edges[0])
    later = time.time() + settings.CORRECTION_FORM_MAX_SECONDS + 5
    monkeypatch.setattr(time, "time", lambda: later)
    response = send(edges[0], token)
    assert response.status_code == 400
    assert not CorrectionSuggestion.objects.exists()
    assert settings.CORRECTION_FORM_MAX_SECONDS <= 3600


def test_the_editors_queue_has_a_global_rate(edges, settings):
    settings.CORRECTION_SUGGESTIONS_PER_HOUR_TOTAL = 3
    statuses = [send(edges[0], token_for(edges[0], a), a).status_code for a in
                [f"10.1.0.{n}" for n in range(1, 6)]]  # fmt: skip
    assert statuses == [302, 302, 302, 429, 429]
    assert CorrectionSuggestion.objects.count() == 3
