"""Readers suggest a correction to an edge's role or polarity (a small form per edge, without
JavaScript): CSRF-protected, rate-limited per client address, spam-resistant, never published by
itself. Editors accept (the edge is reclassified "editor, on reader suggestion" and its history
says why) or dismiss, inline on the edge's admin page or from the suggestions' changelist."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from citations.corrections.models import CorrectionSuggestion
from citations.models import Citation, CitationSource
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    UserFactory,
)
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db

REASON = "Section 4 builds directly on its sigmoidal fit: this is a method citation."


@pytest.fixture(autouse=True)
def no_minimum_time(settings):
    settings.CORRECTION_FORM_MIN_SECONDS = 0


@pytest.fixture
def terms(db):
    return {
        "background": CitationRoleFactory(slug="background", name="Background"),
        "method": CitationRoleFactory(slug="method", name="Method"),
        "neutral": CitationPolarityFactory(slug="neutral", name="Neutral"),
        "supporting": CitationPolarityFactory(slug="supporting", name="Supporting"),
    }


@pytest.fixture
def edge(terms):
    return CitationFactory(
        role=terms["background"], polarity=terms["neutral"], context="As shown by the sigmoid fit."
    )


def url_of(edge):
    return reverse("citations:suggest-correction", args=[edge.pk])


def form_fields(response):
    html = response.content.decode()
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    return {"token": token, "csrfmiddlewaretoken": csrf}


def suggest(client, edge, **data):
    page = client.get(url_of(edge))
    assert page.status_code == 200
    return client.post(url_of(edge), {**form_fields(page), "reason": REASON, **data})


@pytest.fixture
def reader_client():
    return Client(enforce_csrf_checks=True)


def test_each_citing_row_links_to_the_form(client, edge):
    hub = client.get(edge.cited_paper.get_absolute_url())
    assert url_of(edge) in hub.content.decode()
    assert "Suggest a correction" in text_of(hub)


def test_the_form_shows_the_edge_and_works_without_javascript(reader_client, edge):
    page = reader_client.get(url_of(edge))
    text = text_of(page)
    assert edge.citing_paper.title in text and edge.cited_paper.title in text
    assert "As shown by the sigmoid fit." in text
    assert "<script" not in page.content.decode().split("<main", 1)[-1]
    assert 'method="post"' in page.content.decode()
    assert page["Cache-Control"].startswith("max-age=0") or "no-cache" in page["Cache-Control"]


def test_a_reader_suggests_and_nothing_is_published(reader_client, client, edge, terms):
    before = text_of(client.get(edge.cited_paper.get_absolute_url()))
    response = suggest(
        reader_client, edge, suggested_role=terms["method"].pk, email="reader@example.org"
    )
    assert response.status_code == 302
    assert reader_client.get(response["Location"]).status_code == 200
    assert "Thank you" in text_of(reader_client.get(response["Location"]))
    suggestion = CorrectionSuggestion.objects.get()
    assert (suggestion.status, suggestion.suggested_role) == ("pending", terms["method"])
    assert suggestion.email == "reader@example.org"
    edge.refresh_from_db()
    assert edge.role == terms["background"]  # unchanged until an editor accepts
    hub = client.get(edge.cited_paper.get_absolute_url())
    assert REASON not in hub.content.decode() and "reader@example.org" not in hub.content.decode()
    assert text_of(hub) == before


def test_the_form_refuses_a_post_without_the_csrf_token(reader_client, edge, terms):
    page = reader_client.get(url_of(edge))
    data = {**form_fields(page), "reason": REASON, "suggested_role": terms["method"].pk}
    del data["csrfmiddlewaretoken"]
    assert reader_client.post(url_of(edge), data).status_code == 403
    assert not CorrectionSuggestion.objects.exists()


@pytest.mark.parametrize(
    "data",
    [
        {},  # neither a role nor a polarity
        {"suggested_role": "background-id"},  # what it is already
        {"suggested_role": "999999"},
        {"suggested_role": "x'; drop table"},
        {"suggested_polarity": "method-id"},  # a role is no polarity
        {"suggested_role": "method-id", "reason": ""},
        {"suggested_role": "method-id", "reason": "x" * 2001},
        {"suggested_role": "method-id", "email": "not an address"},
        {"suggested_role": "method-id", "token": "forged"},
    ],
)
def test_bad_input_is_a_400_never_a_500(reader_client, edge, terms, data):
    for name, value in data.items():
        if value.endswith("-id"):
            term = terms[value.removesuffix("-id")]
            data[name] = term.pk if name != "suggested_polarity" else 10**6 + term.pk
    response = suggest(reader_client, edge, **data)
    assert response.status_code == 400
    assert not CorrectionSuggestion.objects.exists()


def test_a_form_sent_at_once_is_refused(reader_client, edge, terms, settings):
    settings.CORRECTION_FORM_MIN_SECONDS = 3
    response = suggest(reader_client, edge, suggested_role=terms["method"].pk)
    assert response.status_code == 400
    assert "very quick" in text_of(response)
    assert not CorrectionSuggestion.objects.exists()


def test_the_honeypot_keeps_nothing_and_tells_nothing(reader_client, edge, terms):
    response = suggest(
        reader_client, edge, suggested_role=terms["method"].pk, website="http://spam.example"
    )
    assert response.status_code == 302  # as if it had worked
    assert not CorrectionSuggestion.objects.exists()


def test_suggestions_are_rate_limited_per_client_address(edge, terms, settings):
    settings.CORRECTION_SUGGESTIONS_PER_HOUR = 2
    settings.TRUSTED_PROXY_COUNT = 1
    first = Client(enforce_csrf_checks=True, headers={"x-forwarded-for": "203.0.113.7"})
    codes = [suggest(first, edge, suggested_role=terms["method"].pk).status_code for _ in range(3)]
    assert codes == [302, 302, 429]
    assert CorrectionSuggestion.objects.count() == 2
    # Another client (another address the proxy saw) has its own allowance.
    other = Client(
        enforce_csrf_checks=True, headers={"x-forwarded-for": "203.0.113.7, 198.51.100.2"}
    )
    assert suggest(other, edge, suggested_role=terms["method"].pk).status_code == 302


def test_no_form_for_a_draft_edge_or_an_edge_of_a_draft_paper(client, terms):
    draft = CitationFactory(draft=True)
    assert client.get(url_of(draft)).status_code == 404
    hidden = CitationFactory(citing_paper__status="draft")
    assert client.get(url_of(hidden)).status_code == 404
    assert client.get("/citations/999999/suggest/").status_code == 404


# ---- Editors decide


def make_suggestion(edge, **terms):
    return CorrectionSuggestion.objects.create(citation=edge, reason=REASON, **terms)


def test_accepting_reclassifies_with_provenance_and_history(edge, terms, editor):
    suggestion = make_suggestion(edge, suggested_role=terms["method"])
    suggestion.accept(editor)
    edge.refresh_from_db()
    assert (edge.role, edge.polarity) == (terms["method"], terms["neutral"])
    assert (edge.source, edge.classified_by) == (CitationSource.READER_SUGGESTION, editor)
    record = edge.history.first()
    assert record.history_user == editor
    assert record.history_change_reason.startswith(f"Reader suggestion #{suggestion.pk} accepted")
    assert len(record.history_change_reason) <= 100
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.decided_by) == ("accepted", editor)
    with pytest.raises(ValidationError):
        suggestion.accept(editor)


def test_dismissing_leaves_the_edge_alone(edge, terms, editor):
    suggestion = make_suggestion(edge, suggested_role=terms["method"])
    suggestion.dismiss(editor)
    edge.refresh_from_db()
    assert edge.role == terms["background"] and edge.source == CitationSource.EDITOR
    assert suggestion.status == "dismissed"


def test_editors_see_suggestions_next_to_the_edge_and_accept_there(
    edge, terms, editor, editor_client, client
):
    suggestion = make_suggestion(edge, suggested_polarity=terms["supporting"])
    url = reverse("admin:citations_citation_change", args=[edge.pk])
    page = editor_client.get(url)
    assert REASON in page.content.decode()
    data = admin_form_data(page, Citation)
    prefix = next(name for name in data if name.endswith("-0-decision")).removesuffix("decision")
    data[f"{prefix}decision"] = ["accept"]
    response = editor_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    edge.refresh_from_db()
    assert edge.polarity == terms["supporting"] and edge.source == "reader_suggestion"
    suggestion.refresh_from_db()
    assert suggestion.status == "accepted"
    hub = client.get(edge.cited_paper.get_absolute_url())
    assert "Classified by an editor, on a reader’s suggestion on" in text_of(hub)


def test_the_changelist_accepts_and_dismisses(edge, terms, editor_client):
    other = CitationFactory(role=terms["background"])
    accepted = make_suggestion(edge, suggested_role=terms["method"])
    dismissed = make_suggestion(other, suggested_role=terms["method"])
    url = reverse("admin:citations_correctionsuggestion_changelist")
    page = editor_client.get(url)
    assert page.status_code == 200 and "Background" in text_of(page)
    for action, suggestion in (("accept_selected", accepted), ("dismiss_selected", dismissed)):
        response = editor_client.post(
            url, {"action": action, "_selected_action": [suggestion.pk], "index": 0}
        )
        assert response.status_code == 302
    accepted.refresh_from_db(), dismissed.refresh_from_db()
    assert (accepted.status, dismissed.status) == ("accepted", "dismissed")
    assert Citation.objects.get(pk=other.pk).role == terms["background"]
    assert editor_client.get(url, {"status__exact": "pending"}).status_code == 200


def test_readers_and_anonymous_users_cannot_decide(edge, terms, client):
    suggestion = make_suggestion(edge, suggested_role=terms["method"])
    url = reverse("admin:citations_correctionsuggestion_changelist")
    assert client.get(url).status_code == 302  # to the login page
    reader = UserFactory(is_staff=True)  # staff, but without the editors' permissions
    client.force_login(reader)
    assert client.get(url).status_code == 403
    suggestion.refresh_from_db()
    assert suggestion.status == "pending"


def test_a_readers_suggestion_leaves_the_page_cache_alone(reader_client, client, edge, terms):
    """Suggestions are shown to editors only: one sent by a reader used to make every cached
    page stale (any anonymous visitor could empty the cache, a few times an hour each)."""
    from pagecache import caching

    hub = edge.cited_paper.get_absolute_url()
    client.get(hub)
    assert client.get(hub)["X-Page-Cache"] == "hit"
    generation = caching.current_generation()
    assert suggest(reader_client, edge, suggested_role=terms["method"].pk).status_code == 302
    assert caching.current_generation() == generation
    assert client.get(hub)["X-Page-Cache"] == "hit"
