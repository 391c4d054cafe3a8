"""The diagnosis at /diagnose/: ranking, the stable URL, drafts, no JavaScript, bad input and
query counts."""

import re
from urllib.parse import parse_qsl, urlencode

import pytest
from django.http import QueryDict
from django.urls import reverse

from bottlenecks.models import Layer
from evidence.diagnosis import Diagnosis, DiagnosisForm
from evidence.models import Claim, FailureSignal, SignalLayer
from tests.factories import (
    ClaimFactory,
    DiscriminatingTestFactory,
    FailureSignalFactory,
    LayerFactory,
    PaperFactory,
)
from tests.helpers import inline_scripts, text_of

pytestmark = pytest.mark.django_db

STEP1, STEP2 = reverse("evidence:diagnose"), reverse("evidence:diagnose-layers")
STEP3, STEP4 = reverse("evidence:diagnose-tests"), reverse("evidence:diagnose-plan")
MARKDOWN = reverse("evidence:diagnose-plan-markdown")
# A step with claims reads them, their papers, contesting citations and results: one query each.
# A step with tests reads their runs too: the editors' links, which runs are on which layers,
# and the runs' rows, one query each however many runs there are (13 before runs).
STEP_QUERY_CEILING = 16

# Documented expected orders for the demo's signals (docs/diagnosis.md): the score is the sum
# of the links' weights (2 primary, 1 supporting), then more primary matches rank first; layers
# equal on both are tied (one rank), listed in the framework's order (compute, data,
# environments, rollouts, rewards, evaluation), which is not a ranking.
RANKINGS = [
    (["compute-saturated"], [("compute", 2), ("rollouts", 1)]),
    (
        ["compute-saturated", "flat-reward-curve"],
        [("compute", 3), ("rollouts", 2), ("rewards", 1), ("evaluation", 1)],
    ),
    (
        ["reward-diverges-from-judgment", "benchmarks-up-regressions-elsewhere"],
        [("evaluation", 3), ("rewards", 2), ("data", 1), ("environments", 1)],
    ),
    (
        ["rollouts-low-value", "pass-at-1-up-coverage-down"],
        [("rollouts", 4), ("data", 1), ("evaluation", 1)],
    ),
    (
        ["environment-shortcuts", "reward-diverges-from-judgment"],
        # Both score 3; environments has one primary match, rewards one too: framework order.
        [("environments", 3), ("rewards", 3), ("evaluation", 1)],
    ),
    (
        ["throughput-without-speedup", "compute-saturated", "flat-reward-curve"],
        [("compute", 5), ("rollouts", 3), ("rewards", 1), ("evaluation", 1)],
    ),
]


def diagnosis_for(slugs, **setting):
    form = DiagnosisForm(
        QueryDict(urlencode([("signal", s) for s in slugs] + list(setting.items())))
    )
    assert form.is_valid(), form.errors
    return Diagnosis.from_form(form)


@pytest.mark.parametrize(("signals", "expected"), RANKINGS)
def test_ranking_for_documented_signal_combinations(demo, client, signals, expected):
    ranked = diagnosis_for(signals).ranked_layers()
    assert [(entry.layer.slug, entry.score) for entry in ranked] == expected
    # The page shows the same order, each layer with its first diagnostic question and why.
    text = text_of(client.get(STEP2, {"signal": signals}, follow=True))
    names = [Layer.objects.get(slug=slug).name for slug, _ in expected]
    positions = [text.index(f"{name} score") for name in names]
    assert positions == sorted(positions)
    assert "Why it ranks here" in text
    top = Layer.objects.get(slug=expected[0][0])
    assert top.diagnostic_question in text


def test_ties_go_to_primary_matches_then_layer_order(db):
    early, late = LayerFactory(order=1), LayerFactory(order=2)
    one, two, three = FailureSignalFactory.create_batch(3)
    # `early` gets two supporting links (2 points), `late` one primary link (2 points).
    SignalLayer.objects.create(signal=one, layer=early, strength=1)
    SignalLayer.objects.create(signal=two, layer=early, strength=1)
    SignalLayer.objects.create(signal=three, layer=late, strength=2)
    ranked = diagnosis_for([one.slug, two.slug, three.slug]).ranked_layers()
    assert [(entry.layer, entry.score) for entry in ranked] == [(late, 2), (early, 2)]
    assert ranked[0].primary == [three] and ranked[1].supporting == [one, two]


def test_the_setting_orders_claims_and_breaks_only_ties_never_a_score_lead(demo):
    """Data leads on the signal (score 2, Evaluation 1). However much evidence in the setting
    bears on Evaluation, the setting cannot overturn that lead: it only breaks ties between
    layers equal on score and primary matches (test_diagnosis_plan.py shows it doing so)."""
    evaluation = Layer.objects.get(slug="evaluation")
    for _ in range(5):
        ClaimFactory(task_family="math", model_size="small").layers.add(evaluation)
    plain = diagnosis_for(["data-fails-to-transfer"])
    math = diagnosis_for(["data-fails-to-transfer"], task_family="math", model_size="small")
    assert [e.layer.slug for e in math.ranked_layers()] == ["data", "evaluation"]
    assert [e.layer for e in plain.ranked_layers()] == [e.layer for e in math.ranked_layers()]
    by_slug = {entry.layer.slug: entry for entry in math.ranked_layers()}
    assert by_slug["evaluation"].setting_claims > by_slug["data"].setting_claims
    assert math.setting_effect() == []  # no tie on the signals: nothing for the setting to split
    claims = math.claims()
    flags = [claim.in_setting for claim in claims]
    assert flags == sorted(flags, reverse=True)  # one status here: matching setups first
    by_slug = {claim.slug: claim for claim in claims}
    assert by_slug["learning-from-less-5x-sample-efficiency"].in_setting  # small, math
    assert {c.slug for c in claims if not c.in_setting} >= {"self-play-swe-rl-plus-10-4-verified"}


def test_claims_are_ordered_by_evidence_status(demo, client):
    layer = Layer.objects.get(slug="compute")
    for status, extra in [
        ("superseded", {"superseded_by": Claim.objects.first()}),
        ("contested", {}),
        ("reproduced", {"reproduced_by": "Lab R"}),
    ]:
        ClaimFactory(statement=f"A {status} claim.", evidence_status=status, **extra).layers.add(
            layer
        )
    claims = diagnosis_for(["compute-saturated"]).claims()
    statuses = [claim.evidence_status for claim in claims]
    order = ["reproduced", "reported", "contested", "superseded"]
    assert statuses == sorted(statuses, key=order.index)
    text = text_of(client.get(STEP3, {"signal": "compute-saturated"}))
    text = text[text.index("The evidence, strongest first") :]
    assert text.index("A reproduced claim.") < text.index("2.29× higher generation throughput")
    assert text.index("2.29× higher") < text.index("A contested claim.")


def test_tests_for_the_top_layers_tell_most_of_them_apart_first(demo, client):
    tests = diagnosis_for(["compute-saturated", "flat-reward-curve"]).tests()
    slugs = [test.slug for test in tests]
    # Top layers: compute, rollouts, rewards. The test covering compute and rollouts first.
    assert slugs[0] == "useful-experience-per-hour"
    assert "retune-before-scaling-batch" in slugs  # a single-layer test for compute
    text = text_of(client.get(STEP3, {"signal": ["compute-saturated", "flat-reward-curve"]}))
    assert "Measure useful experience per hour, not samples per hour" in text
    assert "Can point to: Rollouts · Compute · Cheap" in text
    assert "Tells apart Compute and Rollouts. The plan's test." in text


@pytest.mark.parametrize(
    "query",
    [
        "signal=compute-saturated",
        "signal=compute-saturated&signal=flat-reward-curve&task_family=math",
        "signal=data-fails-to-transfer&signal=rollouts-low-value&model_size=small&reward_type=human",
    ],
)
def test_the_stable_url_round_trips(demo, client, query):
    diagnosis = diagnosis_for(
        [value for key, value in parse_qsl(query) if key == "signal"],
        **{key: value for key, value in parse_qsl(query) if key != "signal"},
    )
    assert diagnosis.query_string() == query
    # Every step links to every other step with exactly this selection.
    html = client.get(f"{STEP4}?{query}").content.decode().replace("&amp;", "&")
    for url in [STEP1, STEP2, STEP3, STEP4, MARKDOWN]:
        assert f'href="{url}?{query}"' in html
    # The plan page's URL renders the same plan again.
    assert client.get(f"{STEP4}?{query}").status_code == 200


def test_step_one_form_submits_the_canonical_query(demo, client):
    """The GET form lists signals in the canonical order, so a browser's submission is the
    stable URL itself (checked boxes are sent in document order)."""
    html = client.get(STEP1).content.decode()
    listed = re.findall(r'name="signal" value="([\w-]+)"', html)
    assert listed == list(FailureSignal.objects.published().values_list("slug", flat=True))
    chosen = [listed[5], listed[0]]
    submitted = urlencode([("signal", slug) for slug in listed if slug in chosen])
    assert diagnosis_for(chosen).query_string() == submitted


def test_drafts_never_show(demo, client):
    draft_signal = FailureSignalFactory(draft=True, text="A draft signal")
    SignalLayer.objects.create(signal=draft_signal, layer=Layer.objects.get(slug="data"))
    draft_layer = LayerFactory(draft=True, name="Draft layer")
    SignalLayer.objects.create(
        signal=FailureSignal.objects.get(slug="compute-saturated"), layer=draft_layer
    )
    compute = Layer.objects.get(slug="compute")
    ClaimFactory(draft=True, statement="A draft claim.").layers.add(compute)
    DiscriminatingTestFactory(draft=True, title="A draft test").layers.add(compute)
    test = DiscriminatingTestFactory(title="A public test")
    test.layers.add(compute)
    test.papers.add(PaperFactory(draft=True, title="A draft paper"))

    assert "A draft signal" not in text_of(client.get(STEP1))
    assert client.get(STEP2, {"signal": draft_signal.slug}).status_code == 400
    query = {"signal": "compute-saturated"}
    for url in [STEP2, STEP3, STEP4, MARKDOWN]:
        content = client.get(url, query).content.decode()
        for hidden in ["Draft layer", "A draft claim.", "A draft test", "A draft paper"]:
            assert hidden not in content, (url, hidden)
    assert "A public test" in text_of(client.get(STEP3, query))


def test_every_step_works_without_javascript(demo, client):
    """A reader walks the four steps by submitting the GET form and following plain links."""
    step1 = client.get(STEP1).content.decode()
    assert inline_scripts(step1) == []
    assert re.search(rf'<form class="diagnose-form" method="get" action="{STEP2}"', step1)
    response = client.get(STEP2, {"signal": ["compute-saturated", "flat-reward-curve"]})
    for url in [STEP3, STEP4]:
        assert response.status_code == 200
        html = response.content.decode()
        assert inline_scripts(html) == []
        href = re.search(rf'href="({re.escape(url)}\?[^"]+)"', html).group(1)
        response = client.get(href.replace("&amp;", "&"))
    plan = text_of(response)
    assert "Your plan" in plan
    assert "Relieve only the layer the outcome points to" in plan
    assert "Download as Markdown" in plan


def test_the_plan_exports_as_markdown(demo, client):
    response = client.get(MARKDOWN, {"signal": "compute-saturated", "task_family": "math"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="rl-scaling-diagnosis.md"'
    markdown = response.content.decode()
    assert markdown.startswith("# RL scaling diagnosis")
    assert "signal=compute-saturated&task_family=math" in markdown  # the plan's stable URL
    for heading in ["## 1. The plateau", "## 2. Competing bottlenecks", "## 3. Discriminating"]:
        assert heading in markdown
    assert "1. **[Compute](http://testserver/bottlenecks/compute/)** (score 2)" in markdown
    assert "Setting: Math and logical reasoning" in markdown
    assert "&amp;" not in markdown and "&#x27;" not in markdown  # not HTML-escaped


@pytest.mark.parametrize(
    ("url", "query", "message"),
    [
        (STEP2, {"task_family": "math"}, "Pick at least one signal you observe."),
        (STEP3, {"signal": "no-such-signal"}, "is not one of the signals"),
        (STEP4, {"signal": "compute-saturated", "task_family": "poetry"}, "Select a valid choice"),
        (STEP1, {"layer": "no-such-layer"}, "There is no such layer."),
        (MARKDOWN, {"signal": "x"}, "is not one of the signals"),
    ],
)
def test_bad_selections_answer_400_and_say_why(demo, client, url, query, message):
    response = client.get(url, query)
    assert response.status_code == 400
    assert message in response.content.decode().replace("&quot;", '"')


@pytest.mark.parametrize("url", [STEP2, STEP3, STEP4, MARKDOWN])
@pytest.mark.parametrize(
    "query",
    [
        # Another order, the empty fields a browser submits, unknown parameters.
        "signal=flat-reward-curve&signal=compute-saturated&task_family=math",
        "signal=compute-saturated&signal=flat-reward-curve&task_family=math&model_size=&reward_type=",
        "utm_source=newsletter&signal=compute-saturated&task_family=math&signal=flat-reward-curve",
    ],
)
def test_other_spellings_redirect_to_the_stable_url(demo, client, url, query):
    response = client.get(f"{url}?{query}")
    assert response.status_code == 302
    canonical = "signal=compute-saturated&signal=flat-reward-curve&task_family=math"
    assert response["Location"] == f"{url}?{canonical}"
    assert client.get(response["Location"]).status_code == 200


def test_home_table_links_each_layer_to_its_diagnosis(demo, client):
    html = client.get("/").content.decode()
    for layer in Layer.objects.published():
        assert f'href="{STEP1}?layer={layer.slug}"' in html
    step1 = client.get(STEP1, {"layer": "rewards"}).content.decode()
    checked = re.findall(r'value="([\w-]+)"[^>]*checked', step1)
    assert checked == [
        "reward-diverges-from-judgment",
        "train-reward-up-held-out-flat",
        "response-length-runaway",
    ]


def test_step_one_from_a_layer_shows_the_signals_it_read(
    demo, client, settings, django_assert_max_num_queries
):
    """Opened from a layer, step 1 reads the signals to tick the layer's own, validates what it
    ticked, and shows the list it read, not a third reading of it (one more query)."""
    from django.db import connection

    settings.PAGE_CACHE_SECONDS = 0
    # Two readings of the signals, each with its layers; on PostgreSQL one more statement sets
    # the anonymous request's limits (rlscaling/session_limits.py).
    with django_assert_max_num_queries(6 + (connection.vendor == "postgresql")):
        assert client.get(STEP1, {"layer": "rewards"}).status_code == 200


def test_step_query_counts_do_not_grow(demo, client, django_assert_max_num_queries):
    every_signal = list(FailureSignal.objects.values_list("slug", flat=True))
    urls = [STEP1, STEP2, STEP3, STEP4, MARKDOWN]
    for url in urls:
        with django_assert_max_num_queries(STEP_QUERY_CEILING):
            assert client.get(url, {"signal": every_signal}).status_code == 200
    layers = list(Layer.objects.all())
    for number in range(15):
        signal = FailureSignalFactory()
        SignalLayer.objects.create(signal=signal, layer=layers[number % 6])
        claim = ClaimFactory()
        claim.layers.add(*layers)
        claim.papers.add(PaperFactory())
        test = DiscriminatingTestFactory()
        test.layers.add(*layers[:2])
        test.claims.add(claim)
        test.papers.add(PaperFactory())
    every_signal = list(FailureSignal.objects.values_list("slug", flat=True))
    for url in urls:
        with django_assert_max_num_queries(STEP_QUERY_CEILING):
            assert client.get(url, {"signal": every_signal}).status_code == 200


@pytest.mark.parametrize("url", [STEP2, STEP3, STEP4, MARKDOWN])
def test_a_later_step_without_a_selection_starts_at_step_one(demo, client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == STEP1


def test_the_bottleneck_map_links_to_the_diagnosis(demo, client):
    html = client.get(reverse("bottlenecks:index")).content.decode()
    assert f'href="{STEP1}"' in html
