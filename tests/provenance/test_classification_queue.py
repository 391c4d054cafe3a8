"""The classification queue: an admin page walking a hub's unclassified edges one by one, with
the citing sentence and the citing paper's abstract, keyboard choices, and provenance recorded."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from citations.models import Citation, CitationSource
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
    UserFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def hub(db):
    paper = PaperFactory(title="The Hub")
    for n in range(3):
        CitationFactory(
            cited_paper=paper,
            context=f"Citing sentence {n}.",
            citing_paper__abstract=f"Abstract of citing paper {n}.",
        )
    CitationFactory(cited_paper=paper, role=CitationRoleFactory(slug="background"))  # half done
    return paper


@pytest.fixture
def terms(db):
    return (
        CitationRoleFactory(slug="background", name="Background"),
        CitationRoleFactory(slug="method", name="Method"),
        CitationPolarityFactory(slug="supporting", name="Supporting"),
        CitationPolarityFactory(slug="neutral", name="Neutral"),
    )


def queue_url(paper):
    return reverse("admin:citations_citation_classify", args=[paper.pk])


def hidden(response, name):
    return re.search(rf'name="{name}" value="(\d+)"', response.content.decode()).group(1)


def test_the_queue_shows_one_edge_with_its_sentence_and_abstract(hub, terms, editor_client):
    response = editor_client.get(queue_url(hub))
    assert response.status_code == 200
    text = text_of(response)
    assert "4 unclassified edges left" in text
    assert "Citing sentence 0." in text and "Abstract of citing paper 0." in text
    assert "Citing sentence 1." not in text
    html = response.content.decode()
    assert 'accesskey="1"' in html and 'data-key="s"' in html and 'data-key="n"' in html
    assert "js/classify.js" in html
    assert "<script>" not in html and " style=" not in html  # strict CSP: no inline code


def test_saving_records_provenance_and_moves_to_the_next(hub, terms, editor, editor_client):
    background, method, supporting, _ = terms
    page = editor_client.get(queue_url(hub))
    edge_pk = int(hidden(page, "edge"))
    response = editor_client.post(
        queue_url(hub),
        {
            "edge": edge_pk,
            "version": hidden(page, "version"),
            "role": method.pk,
            "polarity": supporting.pk,
        },
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"?after={edge_pk}")
    edge = Citation.objects.get(pk=edge_pk)
    assert (edge.role, edge.polarity) == (method, supporting)
    assert (edge.source, edge.classified_by) == (CitationSource.EDITOR, editor)
    assert edge.history.first().history_change_reason == "Classified in the classification queue"
    following = editor_client.get(response["Location"])
    assert "Citing sentence 1." in text_of(following)
    assert "3 unclassified edges left" in text_of(following)


def test_skipping_and_the_end_of_the_queue(hub, terms, editor_client):
    edges = list(Citation.objects.filter(cited_paper=hub).order_by("pk"))
    skipped = editor_client.get(queue_url(hub), {"after": edges[0].pk})
    assert "Citing sentence 1." in text_of(skipped)
    end = editor_client.get(queue_url(hub), {"after": edges[-1].pk})
    assert "Start again from the first" in text_of(end)
    Citation.objects.filter(cited_paper=hub).update(role=terms[0], polarity=terms[2])
    assert "Every citing edge of this paper has a role and a polarity" in text_of(
        editor_client.get(queue_url(hub))
    )


def test_a_stale_edge_is_not_overwritten(hub, terms, editor_client):
    page = editor_client.get(queue_url(hub))
    edge = Citation.objects.get(pk=hidden(page, "edge"))
    edge.context = "Changed by someone else meanwhile."
    edge.save()
    data = {"edge": edge.pk, "version": hidden(page, "version"), "role": terms[1].pk}
    response = editor_client.post(queue_url(hub), data)
    assert response.status_code == 302
    edge.refresh_from_db()
    assert edge.role is None


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"edge": "x", "version": "1", "role": "1"},
        {"edge": "EDGE", "version": "1"},  # neither role nor polarity
        {"edge": "EDGE", "version": "1", "role": "999999"},
        {"edge": "EDGE", "version": "0", "role": "ROLE"},
    ],
)
def test_bad_input_is_a_4xx(hub, terms, editor_client, data):
    edge = Citation.objects.filter(cited_paper=hub).order_by("pk").first()
    data = {
        k: str(edge.pk if v == "EDGE" else terms[0].pk if v == "ROLE" else v)
        for k, v in data.items()
    }
    assert editor_client.post(queue_url(hub), data).status_code == 400
    assert editor_client.get(queue_url(hub), {"after": "nonsense"}).status_code == 400


def test_an_edge_of_another_paper_is_a_404(hub, terms, editor_client):
    other = CitationFactory()
    data = {"edge": other.pk, "version": other.version, "role": terms[0].pk}
    assert editor_client.post(queue_url(hub), data).status_code == 404


def test_only_editors_who_may_change_citations(hub, client):
    assert client.get(queue_url(hub)).status_code == 302  # to the login page
    client.force_login(UserFactory(is_staff=True))
    assert client.get(queue_url(hub)).status_code == 403
    assert client.get(reverse("admin:citations_paper_change", args=[hub.pk])).status_code == 403


def test_linked_from_the_papers_admin_form_and_for_editors_from_the_hub(hub, editor_client):
    change = editor_client.get(reverse("admin:citations_paper_change", args=[hub.pk]))
    assert queue_url(hub) in change.content.decode()
    assert queue_url(hub) in editor_client.get(hub.get_absolute_url()).content.decode()
    anonymous = Client().get(hub.get_absolute_url())
    assert queue_url(hub) not in anonymous.content.decode()
