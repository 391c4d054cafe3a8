"""A draft revision carries every related collection its change form edits (a paper's authors,
tags, layers, citation rows), set against what changed live since it was saved: a row or a
relation the draft did not touch keeps its live state, one changed on both sides is named and
the editor chooses, and a row deleted live since is never silently brought back or lost."""

import html
import re

import pytest
from django.urls import reverse

from bottlenecks.models import Analysis, AnalysisStep
from citations.models import Author, Authorship, Citation, Paper
from publishing.revisions import DraftRevision
from tests.factories import CitationFactory, PaperFactory
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db


def change_url(paper):
    return reverse("admin:citations_paper_change", args=[paper.pk])


def authors_of(paper):
    return list(
        Authorship.objects.filter(paper=paper)
        .order_by("position")
        .values_list("author__name", flat=True)
    )


def row_prefix(data, pk, prefix):
    key = next(
        key
        for key, value in data.items()
        if key.startswith(f"{prefix}-") and key.endswith("-id") and value == [str(pk)]
    )
    return key.removesuffix("-id")


def save_draft(client, paper, **changes):
    data = admin_form_data(client.get(change_url(paper)), Paper)
    for name, value in changes.items():
        data[name] = [value]
    data["_save_draft_revision"] = ["Save as draft revision"]
    response = client.post(change_url(paper), data)
    assert response.status_code == 302, text_of(response)[:2000]
    return data


def publish(client, paper, **choices):
    data = admin_form_data(client.get(change_url(paper)), Paper)
    data["_publish_draft_revision"] = ["Publish draft revision"]
    data.update({f"_conflict_{name}": [choice] for name, choice in choices.items()})
    return client.post(change_url(paper), data)


def conflict_names(response):
    """The names of the choices the form asks for (radio buttons `_conflict_<name>`)."""
    return sorted(set(re.findall(r'name="_conflict_([^"]+)"', response.content.decode())))


@pytest.fixture
def paper():
    paper = PaperFactory(title="Live paper")
    for position, name in enumerate(["Ada Lovelace", "Alan Turing"]):
        Authorship.objects.create(
            paper=paper, author=Author.objects.create(name=name), position=position
        )
    paper.tags.add("scaling")
    return paper


def authorship(paper, name):
    return Authorship.objects.get(paper=paper, author__name=name)


def renamed_live(paper, old, new):
    row = authorship(paper, old)
    row.author = Author.objects.create(name=new)
    row.save()


# -- authors ------------------------------------------------------------------------------------


def test_an_author_changed_live_is_kept_when_a_draft_of_other_fields_is_published(
    editor_client, paper
):
    save_draft(editor_client, paper, title="The draft's title")
    renamed_live(paper, "Alan Turing", "Grace Hopper")

    response = publish(editor_client, paper)

    assert response.status_code == 302, text_of(response)[:2000]
    paper.refresh_from_db()
    assert paper.title == "The draft's title"
    assert authors_of(paper) == ["Ada Lovelace", "Grace Hopper"]
    assert not DraftRevision.objects.for_object(paper).exists()


def test_an_author_deleted_live_stays_deleted_when_the_draft_did_not_touch_it(editor_client, paper):
    save_draft(editor_client, paper, title="The draft's title")
    authorship(paper, "Alan Turing").delete()

    response = publish(editor_client, paper)

    assert response.status_code == 302, text_of(response)[:2000]
    paper.refresh_from_db()
    assert paper.title == "The draft's title"
    assert authors_of(paper) == ["Ada Lovelace"]


def test_an_author_added_live_is_kept(editor_client, paper):
    save_draft(editor_client, paper, title="The draft's title")
    Authorship.objects.create(
        paper=paper, author=Author.objects.create(name="Grace Hopper"), position=5
    )

    response = publish(editor_client, paper)

    assert response.status_code == 302, text_of(response)[:2000]
    assert authors_of(paper) == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]


def test_an_author_changed_on_both_sides_is_named_and_chosen(editor_client, paper):
    data = admin_form_data(editor_client.get(change_url(paper)), Paper)
    prefix = row_prefix(data, authorship(paper, "Alan Turing").pk, "authorships")
    save_draft(editor_client, paper, **{f"{prefix}-name": "Alan M. Turing"})
    renamed_live(paper, "Alan Turing", "Grace Hopper")

    asked = publish(editor_client, paper)

    assert asked.status_code == 200
    page = html.unescape(text_of(asked))
    assert "Changed since this draft revision was saved" in page
    assert "Grace Hopper" in page and "Alan M. Turing" in page
    assert authors_of(paper) == ["Ada Lovelace", "Grace Hopper"]  # nothing published

    (name,) = conflict_names(asked)
    assert name.endswith("-name")
    response = publish(editor_client, paper, **{name: "draft"})
    assert response.status_code == 302, text_of(response)[:2000]
    assert authors_of(paper) == ["Ada Lovelace", "Alan M. Turing"]


def test_an_author_the_draft_changed_and_deleted_live_is_asked_about(editor_client, paper):
    data = admin_form_data(editor_client.get(change_url(paper)), Paper)
    prefix = row_prefix(data, authorship(paper, "Alan Turing").pk, "authorships")
    save_draft(
        editor_client, paper, title="The draft's title", **{f"{prefix}-name": "Alan M. Turing"}
    )
    authorship(paper, "Alan Turing").delete()

    asked = publish(editor_client, paper)

    assert asked.status_code == 200
    page = html.unescape(text_of(asked))
    assert "Alan Turing" in page and "deleted" in page
    assert Paper.objects.get(pk=paper.pk).title == "Live paper"

    (name,) = conflict_names(asked)
    response = publish(editor_client, paper, **{name: "draft"})  # re-create it
    assert response.status_code == 302, text_of(response)[:2000]
    assert Paper.objects.get(pk=paper.pk).title == "The draft's title"
    assert authors_of(paper) == ["Ada Lovelace", "Alan M. Turing"]


def test_a_tag_added_live_without_a_new_version_is_kept(editor_client, paper):
    save_draft(editor_client, paper, title="The draft's title")
    Paper.objects.get(pk=paper.pk).tags.add("added-live")  # a shell: no version bump

    response = publish(editor_client, paper)

    assert response.status_code == 302, text_of(response)[:2000]
    assert sorted(paper.tags.names()) == ["added-live", "scaling"]


# -- a citation row whose edge was deleted ------------------------------------------------------


@pytest.fixture
def edge(paper):
    return CitationFactory(
        citing_paper=paper, context="The published sentence.", publish_unclassified=True
    )


def edge_prefix(client, paper, edge):
    data = admin_form_data(client.get(change_url(paper)), Paper)
    return row_prefix(data, edge.pk, "citations_made")


def test_a_deleted_edge_the_draft_edited_is_named_and_dropped_on_request(
    editor_client, paper, edge
):
    prefix = edge_prefix(editor_client, paper, edge)
    save_draft(
        editor_client,
        paper,
        title="The draft's title",
        **{f"{prefix}-context": "The draft's sentence."},
    )
    Citation.objects.get(pk=edge.pk).delete()

    asked = publish(editor_client, paper)

    assert asked.status_code == 200
    page = html.unescape(text_of(asked))
    assert "deleted" in page and str(edge.cited_paper) in page
    assert Paper.objects.get(pk=paper.pk).title == "Live paper"

    (name,) = conflict_names(asked)
    response = publish(editor_client, paper, **{name: "live"})  # drop the row
    assert response.status_code == 302, text_of(response)[:2000]
    assert Paper.objects.get(pk=paper.pk).title == "The draft's title"
    assert not Citation.objects.filter(citing_paper=paper).exists()


def test_a_deleted_edge_the_draft_edited_can_be_recreated(editor_client, paper, edge):
    prefix = edge_prefix(editor_client, paper, edge)
    save_draft(editor_client, paper, **{f"{prefix}-context": "The draft's sentence."})
    Citation.objects.get(pk=edge.pk).delete()
    asked = publish(editor_client, paper)
    (name,) = conflict_names(asked)

    response = publish(editor_client, paper, **{name: "draft"})

    assert response.status_code == 302, text_of(response)[:2000]
    (recreated,) = Citation.objects.filter(citing_paper=paper)
    assert recreated.pk != edge.pk and recreated.cited_paper_id == edge.cited_paper_id
    assert recreated.context == "The draft's sentence."


def test_a_deleted_edge_the_draft_did_not_touch_stays_deleted(editor_client, paper, edge):
    save_draft(editor_client, paper, title="The draft's title")
    Citation.objects.get(pk=edge.pk).delete()

    response = publish(editor_client, paper)

    assert response.status_code == 302, text_of(response)[:2000]
    assert Paper.objects.get(pk=paper.pk).title == "The draft's title"
    assert not Citation.objects.filter(citing_paper=paper).exists()


# -- the same for every model with draft revisions ---------------------------------------------


def test_an_analysis_step_changed_live_is_kept_and_one_changed_on_both_sides_asked(
    editor_client,
):
    analysis = Analysis.objects.create(
        title="Live analysis", slug="live-analysis", dek="The standfirst.", status="published"
    )
    first = AnalysisStep.objects.create(analysis=analysis, order=1, title="Measure", body="A.")
    second = AnalysisStep.objects.create(analysis=analysis, order=2, title="Fix", body="B.")
    url = reverse("admin:bottlenecks_analysis_change", args=[analysis.pk])
    data = admin_form_data(editor_client.get(url), Analysis)
    data["title"] = ["The draft's analysis"]
    data[f"{row_prefix(data, second.pk, 'steps')}-body"] = ["The draft's step."]
    data["_save_draft_revision"] = ["Save"]
    assert editor_client.post(url, data).status_code == 302
    AnalysisStep.objects.filter(pk=first.pk).update(body="Changed live.")
    AnalysisStep.objects.filter(pk=second.pk).update(body="Also changed live.")

    page = editor_client.get(url)
    (name,) = conflict_names(page)
    assert "Also changed live." in html.unescape(text_of(page))
    data = admin_form_data(page, Analysis)
    data["_publish_draft_revision"] = ["Publish draft revision"]
    data[f"_conflict_{name}"] = ["draft"]
    response = editor_client.post(url, data)

    assert response.status_code == 302, text_of(response)[:2000]
    assert Analysis.objects.get(pk=analysis.pk).title == "The draft's analysis"
    assert AnalysisStep.objects.get(pk=first.pk).body == "Changed live."
    assert AnalysisStep.objects.get(pk=second.pk).body == "The draft's step."


def test_an_author_the_draft_adds_and_live_added_meanwhile_is_refused_by_name(editor_client, paper):
    save_draft(
        editor_client,
        paper,
        **{"authorships-2-name": "Grace Hopper", "authorships-2-position": "2"},
    )
    Authorship.objects.create(
        paper=paper, author=Author.objects.create(name="Grace Hopper"), position=5
    )

    response = publish(editor_client, paper)

    assert response.status_code == 200
    assert "This author is already listed on this paper." in html.unescape(text_of(response))
    assert authors_of(paper) == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
