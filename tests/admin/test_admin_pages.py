import datetime

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.db import models
from django.urls import reverse

from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

EDITORIAL_MODELS = [
    model
    for model in admin.site._registry
    if model._meta.app_label in {"bottlenecks", "citations", "notes"}
]


def admin_urls(model, obj=None):
    info = (model._meta.app_label, model._meta.model_name)
    urls = [reverse("admin:{}_{}_changelist".format(*info))]
    if model.__name__ not in SENT_BY_READERS:
        urls.append(reverse("admin:{}_{}_add".format(*info)))
    if obj is not None:
        urls.append(reverse("admin:{}_{}_change".format(*info), args=[obj.pk]))
        urls.append(reverse("admin:{}_{}_history".format(*info), args=[obj.pk]))
    return urls


# Edited only inline on their parent's page.
INLINE_ONLY = {"Authorship", "SignalLayer", "TestOutcome"}
# Recounted from the edges (citations/stats/counts.py).
DERIVED = {"CitationCount", "CitingTimelineCount"}
# Found by a scan of the papers, shown on the possible duplicates page (citations/duplicates.py).
DERIVED |= {"DuplicateScan", "PossibleDuplicatePair"}
# A paper's place in the stored facet counts (citations/stats/facet_counts.py), recounted on change.
DERIVED |= {"PaperFacetCount"}
# The pieces of an import's uploaded text, shown through their run (citations/importers/runs.py).
DERIVED |= {"ImportChunk"}
# Sent by readers from the public site (citations/corrections/views.py); editors only decide.
SENT_BY_READERS = {"CorrectionSuggestion"}
TAG_ROWS = {"TaggedPaper", "TaggedNote"}  # written through the tags field of their item


def test_every_editorial_model_is_in_the_admin():
    for app_label in ["bottlenecks", "citations", "notes"]:
        for model in apps.get_app_config(app_label).get_models():
            if (
                model.__name__.startswith("Historical")
                or model.__name__ in INLINE_ONLY | DERIVED | SENT_BY_READERS | TAG_ROWS
            ):
                continue
            assert model in admin.site._registry, model


@pytest.mark.parametrize("model", EDITORIAL_MODELS, ids=lambda m: m.__name__)
def test_admin_pages_answer_200_for_an_editor(demo, editor_client, model):
    obj = model.objects.first()
    for url in admin_urls(model, obj):
        response = editor_client.get(url)
        assert response.status_code == 200, url


@pytest.mark.parametrize("model", EDITORIAL_MODELS, ids=lambda m: m.__name__)
def test_admin_pages_redirect_an_anonymous_user_to_login(client, model):
    for url in admin_urls(model):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(f"/{settings.ADMIN_URL}login/")


def test_editors_can_bulk_publish_from_the_changelist(demo, editor_client):
    drafts = list(Paper.objects.exclude(arxiv_id="")[:2])  # publishable: they have identifiers
    Paper.objects.filter(pk__in=[p.pk for p in drafts]).unpublish()
    response = editor_client.post(
        reverse("admin:citations_paper_changelist"),
        {"action": "publish_selected", "_selected_action": [p.pk for p in drafts]},
        follow=True,
    )
    assert response.status_code == 200
    assert Paper.objects.published().filter(pk__in=[p.pk for p in drafts]).count() == 2


def test_a_logged_in_non_editor_is_refused(client, reader):
    reader.is_staff = True
    reader.save()
    client.force_login(reader)
    assert client.get(reverse("admin:citations_paper_changelist")).status_code == 403


def test_search_and_filters_work_on_the_paper_changelist(demo, editor_client):
    url = reverse("admin:citations_paper_changelist")
    response = editor_client.get(url, {"q": "Art of Scaling", "status": "published"})
    assert response.status_code == 200
    assert "The Art of Scaling Reinforcement Learning Compute for LLMs" in response.content.decode()
    response = editor_client.get(url, {"q": "Art of Scaling", "status": "draft"})
    assert "The Art of Scaling Reinforcement" not in response.content.decode()


URL_MODELS = [
    model
    for model in admin.site._registry
    if any(isinstance(field, models.URLField) for field in model._meta.fields)
]


@pytest.mark.parametrize("model", URL_MODELS, ids=lambda model: model.__name__)
def test_a_url_typed_without_a_scheme_is_taken_as_https(rf, editor, model):
    request = rf.get("/")
    request.user = editor
    form_class = admin.site._registry[model].get_form(request)
    url_fields = [
        field.name
        for field in model._meta.fields
        if isinstance(field, models.URLField) and field.name in form_class.base_fields
    ]
    assert url_fields
    for name in url_fields:
        cleaned = form_class.base_fields[name].clean("arxiv.org/abs/2510.13786")
        assert cleaned == "https://arxiv.org/abs/2510.13786"


def test_possible_duplicates_show_the_strongest_with_the_total(editor_client, monkeypatch):
    """At 100k papers the page listed tens of thousands of pairs and never answered."""
    from citations.admin import identity as admin_identity
    from citations.duplicates import store_possible_duplicates

    monkeypatch.setattr(admin_identity, "DUPLICATES_SHOWN", 2)
    for title in ("Scaling laws for rewards", "Scaling laws for critics", "Scaling laws for RL"):
        PaperFactory(title=title, publication_date=datetime.date(2025, 1, 1))
        PaperFactory(title=title, publication_date=datetime.date(2025, 1, 1))
    store_possible_duplicates()
    response = editor_client.get(reverse("admin:citations_papermerge_add"))
    assert response.status_code == 200
    assert len(response.context["pairs"]) == 2
    assert "Possible duplicates, strongest first: 1–2 of 3." in text_of(response)


def test_citation_search_matches_either_paper_title_or_the_citing_sentence(editor_client):
    from tests.factories import CitationFactory

    hub = PaperFactory(title="Zyxwv laws for rewards")
    by_title = CitationFactory(cited_paper=hub)
    by_context = CitationFactory(context="as the zyxwv curve shows")
    CitationFactory()  # neither
    changelist = reverse("admin:citations_citation_changelist")
    response = editor_client.get(changelist, {"q": "ZYXWV"})
    found = {edge.pk for edge in response.context["cl"].result_list}
    assert found == {by_title.pk, by_context.pk}
    response = editor_client.get(changelist, {"q": '"zyxwv laws" rewards'})
    assert [edge.pk for edge in response.context["cl"].result_list] == [by_title.pk]


def test_a_later_changelist_page_lists_the_right_rows(editor_client, monkeypatch):
    from citations.admin.papers import CitationAdmin
    from tests.factories import CitationFactory

    monkeypatch.setattr(CitationAdmin, "list_per_page", 2)
    edges = CitationFactory.create_batch(5)
    changelist = reverse("admin:citations_citation_changelist")
    response = editor_client.get(changelist, {"p": "2"})
    newest_first = sorted(edge.pk for edge in edges)[::-1]
    assert [edge.pk for edge in response.context["cl"].result_list] == newest_first[2:4]
    assert response.context["cl"].result_count == 5
