"""Recovering a deleted item brings back what its delete took with it: every row the delete page
listed (cascaded edges, points, link rows of many-to-many fields on either side, identifiers)
and every foreign key the delete emptied, or names in its message what it could not bring back.
Stored figures (a hub's counts, fits) are right afterwards."""

import json
from collections import Counter

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import NestedObjects
from django.contrib.messages import get_messages
from django.db import models
from django.urls import reverse
from simple_history.admin import SimpleHistoryAdmin

from citations.models import Citation, Paper
from citations.stats.counts import CitationCount, CitingTimelineCount
from discovery.neighbours import refresh
from evidence.models import Claim
from notes.models import ResearchNote
from results.models import Fit, Series
from results.tasks import refit
from tests.helpers import admin_form_data, linked_content, text_of

pytestmark = pytest.mark.django_db

# Columns that say when, not what: a recovery is a new save and a recount a new count.
UNCOMPARED = {"version", "search_document"}


def history_models():
    """Every model the admin shows with simple-history (and so a Recover list)."""
    return sorted(
        (
            model
            for model, model_admin in admin.site._registry.items()
            if isinstance(model_admin, SimpleHistoryAdmin)
        ),
        key=lambda model: model._meta.label,
    )


def hashable(value):
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, str):
        # A recovery saves through the admin's form, as a browser posts it: line endings and
        # the whitespace around a text are the form's, not a loss.
        return value.replace("\r\n", "\n").strip()
    return value


def signature(obj):
    """A row as its content: not its own key (a link row or a point comes back as a new row)
    nor its timestamps; a key that is a relation (a paper's count row) is content."""
    opts = obj._meta
    values = tuple(
        (field.attname, hashable(getattr(obj, field.attname)))
        for field in opts.concrete_fields
        if (not field.primary_key or field.is_relation)
        and not isinstance(field, models.DateTimeField)
        and field.name not in UNCOMPARED
    )
    return opts.label, values


def collect(obj):
    """What the delete page lists for `obj` (Django's own collector), as content, and the
    foreign keys the delete sets to NULL as {(label, pk, attname): value}."""
    collector = NestedObjects(using="default")
    collector.collect([obj])
    rows = Counter(signature(row) for rows in collector.data.values() for row in rows)
    emptied = {}
    for (field, _value), batches in collector.field_updates.items():
        for batch in batches:
            for row in batch:
                emptied[(row._meta.label, row.pk, field.attname)] = obj.pk
    return rows, emptied


def rows_now(expected):
    """The rows of the models in `expected` as they are now, as content."""
    found = Counter()
    for label in {label for label, _ in expected}:
        for row in apps.get_model(label)._base_manager.all():
            found[signature(row)] += 1
    return found


def delete_and_recover(client, obj):
    """Delete `obj` on its admin delete page and recover it from its last record (what its
    Recover list links to); returns the messages the recovery left."""
    opts = obj._meta
    reverse(f"admin:{opts.app_label}_{opts.model_name}_recover")  # it has a Recover list
    delete_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_delete", args=[obj.pk])
    response = client.post(delete_url, {"post": "yes"})
    assert response.status_code == 302, text_of(response)[:1500]
    assert not type(obj)._base_manager.filter(pk=obj.pk).exists()

    deletion = (
        type(obj)
        .history.filter(**{opts.pk.attname: obj.pk}, history_type="-")
        .latest("history_date", "history_id")
    )
    revert_url = reverse(
        f"admin:{opts.app_label}_{opts.model_name}_simple_history",
        args=[obj.pk, deletion.history_id],
    )
    form = client.get(revert_url)
    assert form.status_code == 200
    return post_recovery(client, revert_url, admin_form_data(form, type(obj)))


def post_recovery(client, url, data):
    """The messages a recovery leaves for the next page (not rendering that page)."""
    response = client.post(url, data)
    assert response.status_code == 302, text_of(response)[:1500]
    return " ".join(str(message) for message in get_messages(response.wsgi_request))


def refit_recovered_series(expected):
    """Fits are the task queue's (results/tasks.py): run what the recovery queued."""
    series = {
        pk
        for label, values in expected
        if label == "results.Fit"
        for name, pk in values
        if name == "series_id"
    }
    for row in Series.objects.filter(pk__in=series):
        refit(row)


def refresh_recovered_neighbours(expected):
    """Stored neighbours are the task queue's too (discovery/tasks.py, a debounced refresh
    that a recovered edge queues): run it for the papers whose lists the delete took."""
    papers = {
        pk
        for label, values in expected
        if label in ("discovery.Neighbour", "discovery.NeighboursComputed")
        for name, pk in values
        if name == "paper_id"
    }
    refresh(papers)


def assert_recovered(obj, expected, emptied, page):
    refit_recovered_series(expected)
    refresh_recovered_neighbours(expected)
    now = rows_now(expected)
    missing = expected - now
    labels = {label for label, _ in missing}
    assert not missing, (
        f"{obj._meta.label} {obj}: not recovered: {list(missing)[:5]}; "
        f"now: {[row for row in now if row[0] in labels][:5]}"
    )
    for (label, pk, attname), value in emptied.items():
        row = apps.get_model(label)._base_manager.get(pk=pk)
        assert getattr(row, attname) == value, f"{label} #{pk}.{attname} not set back"
    assert "Not recovered" not in page
    assert "changed successfully" not in page


@pytest.fixture
def graph(db):
    return linked_content()


def recoverable(model, candidates):
    """Of the first rows of `model` whose delete is not refused (protected), the one whose
    delete takes the most with it."""
    best, most = None, -1
    for row in model._base_manager.order_by("pk")[:candidates]:
        collector = NestedObjects(using="default")
        collector.collect([row])
        if collector.protected:
            continue
        taken = sum(len(rows) for rows in collector.data.values()) + len(collector.field_updates)
        if taken > most:
            best, most = row, taken
    return best


def walk_every_model(client, candidates):
    walked = []
    for model in history_models():
        obj = recoverable(model, candidates)
        if obj is None:
            continue
        expected, emptied = collect(obj)
        page = delete_and_recover(client, obj)
        assert_recovered(obj, expected, emptied, page)
        assert f"Recovered “{obj}”" in page
        walked.append(model)
    return walked


def test_every_recoverable_model_comes_back_with_what_its_delete_took(admin_client, graph):
    walked = walk_every_model(admin_client, candidates=12)
    assert set(walked) == set(history_models())  # the graph has a row of each


@pytest.mark.slow
def test_every_recoverable_model_of_the_demo_comes_back_whole(admin_client, demo):
    walk_every_model(admin_client, candidates=6)


def recover(client, model, pk):
    deletion = model.history.filter(id=pk, history_type="-").latest("history_date", "history_id")
    opts = model._meta
    url = reverse(
        f"admin:{opts.app_label}_{opts.model_name}_simple_history", args=[pk, deletion.pk]
    )
    return post_recovery(client, url, admin_form_data(client.get(url), model))


def test_a_recovered_paper_brings_its_edges_back_and_its_counts_are_right(editor_client, graph):
    hub = graph
    citing = Citation.objects.filter(cited_paper=hub)
    before = {
        "total": hub.citation_count.total,
        "timeline": sorted(CitingTimelineCount.objects.filter(paper=hub).values_list("count")),
        "edges": sorted(Citation.objects.values_list("pk", flat=True)),
    }
    assert before["total"] == 2
    editor_client.post(reverse("admin:citations_paper_delete", args=[hub.pk]), {"post": "yes"})
    assert not citing.exists() and not CitationCount.objects.filter(paper_id=hub.pk).exists()

    page = recover(editor_client, Paper, hub.pk)
    assert "Recovered “The hub paper” and 3 citations" in page
    assert "Not recovered" not in page
    hub = Paper.objects.get(pk=hub.pk)
    assert hub.citation_count.total == before["total"]
    assert sorted(Citation.objects.values_list("pk", flat=True)) == before["edges"]
    timeline = sorted(CitingTimelineCount.objects.filter(paper=hub).values_list("count"))
    assert timeline == before["timeline"]
    assert [author.name for author in hub.authors.all()] == ["Ada"]
    assert hub.other_identifiers.get().value == "10.1234/hub"
    assert hub.slug_aliases.get().slug == "the-old-hub"
    assert Series.objects.get(name="The hub's run").paper == hub  # its foreign key, set back
    assert list(ResearchNote.objects.get(title="A note on the hub").papers.all()) == [hub]
    assert list(Claim.objects.filter(papers=hub)) == list(Claim.objects.filter(notes__papers=hub))
    # The API's figure is the stored count's.
    listed = editor_client.get("/api/v1/papers/", {"ordering": "-cited_by_count"}).json()
    assert listed["results"][0]["slug"] == hub.slug


def test_an_edge_whose_other_paper_is_still_deleted_is_named_then_comes_back_with_it(
    editor_client, graph
):
    hub = graph
    other = Paper.objects.get(title="Citing paper 0")
    changelist = reverse("admin:citations_paper_changelist")
    response = editor_client.post(
        changelist,
        {"action": "delete_selected", "_selected_action": [hub.pk, other.pk], "post": "yes"},
    )
    assert response.status_code == 302

    page = recover(editor_client, Paper, hub.pk)
    assert "Recovered “The hub paper” and 1 citation" in page
    assert "Not recovered with “The hub paper”" in page
    for edge in ("Citing paper 0 → The hub paper", "The hub paper → Citing paper 0"):
        assert f"the citation “{edge}”: “Citing paper 0” is still deleted" in page
    assert Paper.objects.get(pk=hub.pk).citation_count.total == 1

    page = recover(editor_client, Paper, other.pk)
    assert "Recovered “Citing paper 0” and 2 citations" in page
    assert Paper.objects.get(pk=hub.pk).citation_count.total == 2
    assert Citation.objects.count() == 3


def test_a_recovered_note_keeps_its_claim_links(editor_client, graph):
    note = ResearchNote.objects.get(title="A note on the hub")
    claim = Claim.objects.get(notes=note)
    editor_client.post(reverse("admin:notes_researchnote_delete", args=[note.pk]), {"post": "yes"})
    assert not claim.notes.exists()

    page = recover(editor_client, ResearchNote, note.pk)
    assert "Recovered “A note on the hub” and links from 1 claim" in page
    assert list(claim.notes.all()) == [note]
    latest = claim.history.latest("history_date", "history_id")
    assert latest.related_snapshot["m2m"]["notes"] == [note.pk]


def test_a_recovered_series_brings_its_points_their_claim_links_and_fits(editor_client, graph):
    series = Series.objects.get(name="The hub's run")
    points = sorted(series.points.values_list("pk", "value"))
    claim = Claim.objects.filter(results__series=series.pk).distinct().get()
    linked = sorted(claim.results.values_list("pk", flat=True))
    editor_client.post(reverse("admin:results_series_delete", args=[series.pk]), {"post": "yes"})
    assert not claim.results.exists()

    page = recover(editor_client, Series, series.pk)
    assert "Not recovered" not in page
    assert sorted(series.points.values_list("pk", "value")) == points
    assert sorted(claim.results.values_list("pk", flat=True)) == linked
    refit(series)  # the task the recovery queued
    assert Fit.objects.filter(series=series).count() == 2
