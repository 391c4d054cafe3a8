"""Two editors on one hub's "Cites / Cited by" rows: only a row both changed, in a field both
changed, is refused (and said so, with both values); every other row is saved."""

import pytest
from django.test import Client
from django.urls import reverse

from citations.models import Citation, Paper
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import admin_form_data

pytestmark = pytest.mark.django_db


def change_url(paper):
    return reverse("admin:citations_paper_change", args=[paper.pk])


@pytest.fixture
def second_client(second_editor):
    second = Client()
    second.force_login(second_editor)
    return second


@pytest.fixture
def hub():
    """A hub cited by two unclassified edges, each held back until it is classified."""
    hub = PaperFactory(title="The hub")
    for title in ("First citing paper", "Second citing paper"):
        CitationFactory(
            citing_paper=PaperFactory(title=title),
            cited_paper=hub,
            role=None,
            polarity=None,
            status="draft",
        )
    return hub


def open_copy(client, paper):
    response = client.get(change_url(paper))
    assert response.status_code == 200
    form = admin_form_data(response, Paper)
    count = int(form["citations_received-TOTAL_FORMS"][0])
    rows = {
        Citation.objects.get(pk=form[f"citations_received-{i}-id"][0]).citing_paper.title: i
        for i in range(count)
    }
    return form, rows


def edit_row(form, number, **values):
    for name, value in values.items():
        key = f"citations_received-{number}-{name}"
        if value is True:
            form[key] = ["on"]
        elif value is False:
            form.pop(key, None)
        else:
            form[key] = [str(value)]
    return form


def edge(title):
    return Citation.objects.get(citing_paper__title=title)


def messages_of(response):
    return [str(message) for message in response.context["messages"]]


def test_two_editors_classify_different_edges_of_one_hub(editor_client, second_client, hub):
    role, polarity = CitationRoleFactory(name="Extends"), CitationPolarityFactory(name="Supports")
    first_copy, rows = open_copy(editor_client, hub)
    second_copy, _ = open_copy(second_client, hub)

    edit_row(first_copy, rows["First citing paper"], role=role.pk, polarity=polarity.pk)
    assert editor_client.post(change_url(hub), first_copy).status_code == 302

    edit_row(second_copy, rows["Second citing paper"], role=role.pk, polarity=polarity.pk)
    response = second_client.post(change_url(hub), second_copy)

    assert response.status_code == 302
    for title in ("First citing paper", "Second citing paper"):
        assert (edge(title).role, edge(title).polarity) == (role, polarity)


def test_both_editors_on_one_field_of_one_edge_refuses_that_row_alone(
    editor_client, second_client, hub
):
    extends, uses = CitationRoleFactory(name="Extends"), CitationRoleFactory(name="Uses")
    first_copy, rows = open_copy(editor_client, hub)
    second_copy, _ = open_copy(second_client, hub)
    edit_row(first_copy, rows["First citing paper"], role=extends.pk)
    assert editor_client.post(change_url(hub), first_copy).status_code == 302

    edit_row(second_copy, rows["First citing paper"], role=uses.pk, context="Her sentence.")
    edit_row(second_copy, rows["Second citing paper"], role=uses.pk)
    response = second_client.post(change_url(hub), second_copy, follow=True)

    assert response.status_code == 200
    first, second = edge("First citing paper"), edge("Second citing paper")
    assert (first.role, first.context) == (extends, "")  # refused whole: nothing of hers
    assert second.role == uses  # the rest is saved
    [refusal] = [m for m in messages_of(response) if "Not saved" in m]
    assert "First citing paper → The hub" in refusal
    assert "Second citing paper" not in refusal
    assert "Role: yours" in refusal and "“Uses”" in refusal and "“Extends”" in refusal


def test_different_fields_of_one_edge_are_both_kept(editor_client, second_client, hub):
    role = CitationRoleFactory(name="Extends")
    first_copy, rows = open_copy(editor_client, hub)
    second_copy, _ = open_copy(second_client, hub)
    edit_row(first_copy, rows["First citing paper"], role=role.pk)
    assert editor_client.post(change_url(hub), first_copy).status_code == 302

    edit_row(second_copy, rows["First citing paper"], context="The citing sentence.")
    response = second_client.post(change_url(hub), second_copy, follow=True)

    assert response.status_code == 200
    first = edge("First citing paper")
    assert (first.role, first.context) == (role, "The citing sentence.")
    assert not [m for m in messages_of(response) if "Not saved" in m]


def test_the_same_value_from_both_editors_is_no_conflict(editor_client, second_client, hub):
    role = CitationRoleFactory(name="Extends")
    first_copy, rows = open_copy(editor_client, hub)
    second_copy, _ = open_copy(second_client, hub)
    edit_row(first_copy, rows["First citing paper"], role=role.pk)
    assert editor_client.post(change_url(hub), first_copy).status_code == 302
    edit_row(second_copy, rows["First citing paper"], role=role.pk, context="Also this.")
    response = second_client.post(change_url(hub), second_copy, follow=True)
    assert not [m for m in messages_of(response) if "Not saved" in m]
    assert edge("First citing paper").context == "Also this."


def test_deleting_an_edge_someone_changed_meanwhile_is_refused(editor_client, second_client, hub):
    role = CitationRoleFactory(name="Extends")
    first_copy, rows = open_copy(editor_client, hub)
    second_copy, _ = open_copy(second_client, hub)
    edit_row(first_copy, rows["First citing paper"], role=role.pk)
    assert editor_client.post(change_url(hub), first_copy).status_code == 302

    edit_row(second_copy, rows["First citing paper"], DELETE=True)
    edit_row(second_copy, rows["Second citing paper"], DELETE=True)
    response = second_client.post(change_url(hub), second_copy, follow=True)

    assert edge("First citing paper").role == role
    assert not Citation.objects.filter(citing_paper__title="Second citing paper").exists()
    [refusal] = [m for m in messages_of(response) if "Not deleted" in m]
    assert "First citing paper → The hub" in refusal and "“Extends”" in refusal


def test_the_paper_own_fields_beside_an_edge_saved_meanwhile(editor_client, second_client, hub):
    """An inline-only save leaves the paper's version alone, so a title changed from an
    older copy is saved; two copies changing the paper's own fields still collide."""
    role = CitationRoleFactory(name="Extends")
    first_copy, rows = open_copy(editor_client, hub)
    second_copy, _ = open_copy(second_client, hub)
    third_copy, _ = open_copy(second_client, hub)
    version = Paper.objects.get(pk=hub.pk).version
    edit_row(first_copy, rows["First citing paper"], role=role.pk)
    assert editor_client.post(change_url(hub), first_copy).status_code == 302
    assert Paper.objects.get(pk=hub.pk).version == version

    second_copy["title"] = ["The hub, renamed"]
    assert second_client.post(change_url(hub), second_copy).status_code == 302
    assert Paper.objects.get(pk=hub.pk).title == "The hub, renamed"

    third_copy["title"] = ["A stale rename"]
    response = second_client.post(change_url(hub), third_copy)
    assert response.status_code == 200
    assert "Someone else saved this paper" in response.content.decode()
    assert Paper.objects.get(pk=hub.pk).title == "The hub, renamed"
