"""Runs (result series) as evidence in the diagnosis: matched by layer and setting under each
test, the editors' own links first, counted in the setting's tie-break, exported with links,
drafts never shown, and read in a constant number of queries."""

import json

import pytest
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from evidence.diagnosis import RUNS_LISTED, RUNS_PER_TEST, Diagnosis, runs_on_layers
from evidence.models import SignalLayer, TestOutcome
from publishing.models import Status
from results.models import Series
from tests.factories import (
    ClaimFactory,
    DiscriminatingTestFactory,
    FailureSignalFactory,
    LayerFactory,
    PaperFactory,
)
from tests.helpers import text_of
from tests.pages.test_diagnose import STEP_QUERY_CEILING
from tests.results.factories import ResultFactory, SeriesFactory

pytestmark = pytest.mark.django_db

STEPS = [
    reverse("evidence:diagnose-layers"),
    reverse("evidence:diagnose-tests"),
    reverse("evidence:diagnose-plan"),
    reverse("evidence:diagnose-plan-markdown"),
    reverse("evidence:diagnose-plan-json"),
]
MATH = {"task_family": "math", "model_size": "small", "reward_type": "verifiable"}


@pytest.fixture
def tied():
    """Two layers tied on one signal (primary for both), and a cheap test pointing to both."""
    rewards, data = LayerFactory(name="Rewards"), LayerFactory(name="Data")
    signal = FailureSignalFactory(text="Train reward rises, held-out eval flat")
    for layer in (rewards, data):
        SignalLayer.objects.create(signal=signal, layer=layer)
    test = DiscriminatingTestFactory(title="Judge held-in and held-out", cost=1)
    test.layers.add(rewards, data)
    for order, layer in enumerate((rewards, data)):
        TestOutcome.objects.create(
            test=test, layer=layer, order=order, observation=f"{layer.name} seen", action="Fix."
        )
    return rewards, data, signal, test


def run_on(layer, *, via_claim=False, points=1, **fields):
    """A public run bearing on `layer`: through its paper's layers, or through a published
    claim its points carry."""
    run = SeriesFactory(**fields)
    results = [ResultFactory(series=run) for _ in range(points)]
    if via_claim:
        claim = ClaimFactory()
        claim.layers.add(layer)
        claim.results.add(results[0])
    else:
        run.paper.layers.add(layer)
    return run


def query(signal, **setting):
    return {"signal": signal.slug, **setting}


def test_runs_are_matched_by_layer_and_setting_with_editors_links_first(tied, client):
    rewards, data, signal, test = tied
    in_setting = run_on(rewards, name="Math run on rewards", **MATH)
    closer = run_on(data, via_claim=True, name="Math run carried by a claim", **MATH)
    other = run_on(data, name="Code run on data", task_family="code", model_size="", reward_type="")
    off_layer = SeriesFactory(name="Run on no layer of the test")
    chosen = SeriesFactory(name="Run the editors chose", task_family="code")
    test.series.add(chosen)
    hidden = [
        run_on(rewards, name="Draft run", draft=True, **MATH),
        run_on(rewards, name="Run of a draft paper", paper=PaperFactory(draft=True), **MATH),
        run_on(data, via_claim=True, name="Run of a draft claim", **MATH),
    ]
    hidden[2].points.first().claims.update(status=Status.DRAFT)
    draft_link = SeriesFactory(name="Draft run the editors chose", draft=True)
    test.series.add(draft_link)

    diagnosis = Diagnosis([signal], {"task_family": "math"})
    runs = diagnosis.first_test().runs
    assert [run.name for run in runs] == [chosen.name, closer.name, in_setting.name, other.name]
    assert [run.linked_by_editors for run in runs] == [True, False, False, False]
    assert [run.in_setting for run in runs] == [False, True, True, False]
    assert [run.name for run in diagnosis.runs()] == [closer.name, in_setting.name, other.name]

    page = text_of(client.get(STEPS[1], query(signal, task_family="math")))
    for run in (chosen, closer, in_setting, other):
        assert run.name in page
    assert "chosen by the editors" in page
    for run in (*hidden, draft_link, off_layer):
        assert run.name not in page
    plan = text_of(client.get(STEPS[2], query(signal, task_family="math")))
    assert in_setting.name in plan and hidden[0].name not in plan

    markdown = client.get(STEPS[3], query(signal, task_family="math")).content.decode()
    assert f"[{in_setting.name}](http://testserver{in_setting.get_absolute_url()})" in markdown
    assert f"[{chosen.name}](" in markdown and "(chosen by the editors)" in markdown
    assert all(run.name not in markdown for run in (*hidden, draft_link))

    data_json = json.loads(client.get(STEPS[4], query(signal, task_family="math")).content)
    exported = {run["name"]: run for run in data_json["runs"]}
    assert list(exported) == [chosen.name, closer.name, in_setting.name, other.name]
    assert exported[in_setting.name]["url"] == f"http://testserver{in_setting.get_absolute_url()}"
    assert exported[in_setting.name]["paper"]["url"] == (
        f"http://testserver{in_setting.paper.get_absolute_url()}"
    )
    assert exported[chosen.name]["linked_by_editors"] is True
    assert exported[other.name]["in_setting"] is False


def test_runs_checked_against_their_paper_and_with_more_points_come_first(tied):
    rewards, _, signal, _ = tied
    few = run_on(rewards, name="Few points", points=1)
    many = run_on(rewards, name="Many points", points=3)
    checked = run_on(rewards, name="Checked", points=1)
    type(checked).objects.filter(pk=checked.pk).update(checked_at=timezone.now())
    runs = Diagnosis([signal]).first_test().runs
    assert [run.name for run in runs] == [checked.name, many.name, few.name]
    assert [run.points_count for run in runs] == [1, 3, 1]


def test_the_setting_tie_break_counts_runs_and_the_page_says_so(tied, client):
    rewards, data, signal, _ = tied
    run_on(data, **MATH)
    run_on(rewards, task_family="code", model_size="", reward_type="")  # contradicts the setting
    run_on(rewards, draft=True, **MATH)  # a draft never counts
    plain = Diagnosis([signal])
    assert plain.top_tier().tied and plain.setting_effect() == []
    placed = Diagnosis([signal], {"task_family": "math"})
    assert [layer.name for layer in placed.top_tier().layers] == ["Data"]
    assert [(e.setting_claims, e.setting_runs) for e in placed.ranked_layers()] == [(0, 1), (0, 0)]
    (sentence,) = placed.setting_effect()
    assert "ranks them by the published claims and runs in it" in sentence
    assert "Data 0 claims and 1 run" in sentence and "Rewards 0 claims and 0 runs" in sentence
    assert sentence in text_of(client.get(STEPS[0], query(signal, task_family="math")))
    ranking = json.loads(client.get(STEPS[4], query(signal, task_family="math")).content)
    assert [(e["name"], e["setting_runs"]) for e in ranking["ranking"]] == [
        ("Data", 1),
        ("Rewards", 0),
    ]


def test_step_queries_do_not_grow_with_the_number_of_runs(tied, client, settings):
    """2 runs and 40 runs, through papers and claims, in and out of the setting: every step
    reads them in the same number of queries, under the ceiling."""
    settings.PAGE_CACHE_SECONDS = 0
    rewards, data, signal, test = tied

    def add_runs(count):
        for number in range(count):
            run = run_on(
                (rewards, data)[number % 2],
                via_claim=bool(number % 3),
                task_family=("math", "code")[number % 2],
            )
            if number % 5 == 0:
                test.series.add(run)

    def counts():
        found = []
        for url in STEPS:
            with CaptureQueriesContext(connection) as context:
                assert client.get(url, query(signal, **MATH)).status_code == 200
            found.append(len(context))
        return found

    add_runs(2)
    few = counts()
    add_runs(38)
    assert len(Diagnosis([signal], MATH).first_test().runs) > 5
    assert counts() == few
    # The setting adds the ranking's two reads: the claims and the runs in it.
    assert max(few) <= STEP_QUERY_CEILING + 2


def every_run_in_order(diagnosis, layer_ids):
    """The brute force the bounded reading must agree with: every public run on `layer_ids`,
    sorted by the diagnosis's own key."""
    on_layers = runs_on_layers(layer_ids)
    runs = Series.objects.filter(pk__in=on_layers).annotate(points_count=Count("points"))
    return [run.pk for run in sorted(map(diagnosis._place, runs), key=diagnosis._run_key)]


def test_step_three_lists_a_page_of_runs_and_links_to_all_of_them(tied, client):
    """A layer with more runs than a page holds: the step lists the first RUNS_LISTED in the
    evidence order and links to the results page, where every run on the layer is."""
    rewards, _, signal, _ = tied
    for number in range(RUNS_LISTED + 5):
        run_on(rewards, name=f"Run {number:02}", points=1 + number % 4)
    diagnosis = Diagnosis([signal])
    listed = [run.pk for run in diagnosis.runs()]
    assert listed == every_run_in_order(diagnosis, {rewards.pk})[:RUNS_LISTED]
    response = client.get(STEPS[1], query(signal))
    page = text_of(response)
    assert sum(f"Run {number:02}" in page for number in range(RUNS_LISTED + 5)) == RUNS_LISTED
    html = response.content.decode()
    assert f'href="{reverse("results:list")}?layer={rewards.slug}"' in html


@pytest.mark.parametrize("setting", [{}, MATH, {"task_family": "code", "reward_type": "learned"}])
def test_the_runs_chosen_agree_with_sorting_every_run(tied, setting):
    """Runs that differ in every part of the order (setting, checked, points, names that sort
    differently by collation), spread over both layers and carried by claims: each test's runs
    and the listed runs are the first of all of them, sorted in Python."""
    rewards, data, signal, test = tied
    names = ["alpha", "Beta", "beta", "Émile", "zeta", "Zeta", "_under", "10 runs", "9 runs"]
    for number in range(36):
        run = run_on(
            (rewards, data)[number % 2],
            via_claim=number % 7 == 0,
            points=1 + number % 3,
            name=names[number % len(names)],
            task_family=("math", "code", "")[number % 3],
            model_size=("small", "")[number % 2],
            reward_type=("verifiable", "learned", "")[number % 3],
        )
        if number % 4 == 0:
            Series.objects.filter(pk=run.pk).update(checked_at=timezone.now())
    diagnosis = Diagnosis([signal], setting)
    both = {rewards.pk, data.pk}
    found = [run.pk for run in diagnosis.first_test().runs]
    assert found == every_run_in_order(diagnosis, both)[: len(found)]
    assert len(found) == RUNS_PER_TEST
    listed = [run.pk for run in diagnosis.runs()]
    assert listed == every_run_in_order(diagnosis, both)[:RUNS_LISTED]
