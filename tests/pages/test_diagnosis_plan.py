"""The diagnosis decides: ties stated as ties, a plan that follows its own test, evidence
matched by layer and setting, and the plateaus the field reports, checked on every single
signal and every pair of signals of the demo, and on written scenarios from the seeds."""

import html
import itertools
import json
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.http import QueryDict
from django.urls import reverse

from bottlenecks.models import Layer
from citations.models import Paper
from evidence.diagnosis import Diagnosis, DiagnosisForm
from evidence.models import Claim, DiscriminatingTest, FailureSignal, SignalLayer, TestOutcome
from tests.factories import (
    ClaimFactory,
    DiscriminatingTestFactory,
    FailureSignalFactory,
    LayerFactory,
    PaperFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

STEP2, STEP4 = reverse("evidence:diagnose-layers"), reverse("evidence:diagnose-plan")
MARKDOWN, JSON = reverse("evidence:diagnose-plan-markdown"), reverse("evidence:diagnose-plan-json")
SETTINGS = [
    {},
    {"task_family": "math", "model_size": "medium", "reward_type": "verifiable"},
    {"task_family": "agentic", "reward_type": "learned"},
]


def diagnosis_for(slugs, **setting):
    form = DiagnosisForm(
        QueryDict(urlencode([("signal", s) for s in slugs] + list(setting.items())))
    )
    assert form.is_valid(), form.errors
    return Diagnosis.from_form(form)


def assert_plan_is_coherent(diagnosis):
    """The three promises, on the model: a tie at the top is one rank; the test separates two
    contenders or the plan says none does; only layers the test can point to are relieved."""
    ranked = diagnosis.ranked_layers()
    top = diagnosis.top_tier()
    if not ranked:
        return
    tied_at_top = [entry for entry in ranked if entry.key == ranked[0].key]
    assert len(top.entries) == len(tied_at_top)
    assert top.tied == (len(tied_at_top) > 1)
    assert all(entry.rank == 1 for entry in top.entries)
    contenders = diagnosis.top_layers()
    test = diagnosis.first_test()
    if test is None:
        assert diagnosis.no_test_reason()
        assert diagnosis.relieve() == []
        for candidate in diagnosis.tests():  # really none separates two contenders
            assert len({layer.pk for layer in candidate.points_to} & {c.pk for c in contenders}) < 2
    else:
        separated = {layer.pk for layer in test.points_to} & {layer.pk for layer in contenders}
        assert len(separated) >= 2
        assert set(diagnosis.relieve()) <= set(test.points_to)
        cheaper = [
            other
            for other in diagnosis.tests()
            if other.cost < test.cost and len(other.separates) >= 2
        ]
        assert cheaper == []  # the cheapest that discriminates


def published_signal_sets():
    signals = list(FailureSignal.objects.published())
    return [(signal,) for signal in signals] + list(itertools.combinations(signals, 2))


# slow (`make test-all`, CI's slow step): every signal and pair on every surface, a sweep of
# several hundred plans; the settings tests below keep a coherent-plan check in make test.
@pytest.mark.slow
def test_every_signal_and_every_pair_gives_a_coherent_plan_on_every_surface(demo, client):
    combos = published_signal_sets()
    assert len(combos) == 13 + 13 * 12 // 2
    tied = 0
    for combo in combos:
        slugs = [signal.slug for signal in combo]
        diagnosis = diagnosis_for(slugs)
        assert_plan_is_coherent(diagnosis)
        query = diagnosis.query_string()
        top = diagnosis.top_tier()
        data = json.loads(client.get(f"{JSON}?{query}").content)
        step2 = html.unescape(text_of(client.get(f"{STEP2}?{query}")))
        plan = html.unescape(text_of(client.get(f"{STEP4}?{query}")))
        assert data["top_tied"] == top.tied, slugs
        if top.tied:
            tied += 1
            names = ", ".join(layer.name for layer in top.layers)
            assert f"A tie at the top: {names} are tied at score {top.score}" in step2, slugs
            assert f"Tied at the top (score {top.score}): {names}" in plan, slugs
            assert all(entry["tied"] for entry in data["ranking"] if entry["rank"] == 1)
        else:
            assert "A tie at the top" not in step2 and "Tied at the top" not in plan, slugs
        test = diagnosis.first_test()
        if test is None:
            assert data["test"] is None and data["no_test_reason"] in plan, slugs
            assert data["relieve_only_one_of"] == []
        else:
            assert data["test"]["slug"] == test.slug
            contenders = set(data["contenders"])
            assert len(set(data["test"]["points_to"]) & contenders) >= 2, slugs
            assert set(data["relieve_only_one_of"]) <= set(data["test"]["points_to"]), slugs
            for outcome in data["test"]["outcomes"]:  # each outcome says what to do
                assert outcome["if"] in plan and outcome["then"] in plan
    assert tied  # the demo has ties at the top (the flat reward curve alone is one)


@pytest.mark.parametrize("setting", SETTINGS[1:])
def test_every_signal_in_a_setting_gives_a_coherent_plan(demo, setting):
    for signal in FailureSignal.objects.published():
        assert_plan_is_coherent(diagnosis_for([signal.slug], **setting))


# slow (`make test-all`, CI's slow step): every pair in each setting, 78 plans a setting; the
# test above keeps each single signal's plan in make test.
@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS[1:])
def test_every_pair_in_a_setting_gives_a_coherent_plan(demo, setting):
    for pair in itertools.combinations(FailureSignal.objects.published(), 2):
        assert_plan_is_coherent(diagnosis_for([signal.slug for signal in pair], **setting))


# Every triple of signals (about 5 s): the slow step; single signals and pairs run by default.
@pytest.mark.slow
def test_combinations_of_three_signals_give_a_coherent_plan(demo):
    signals = [signal.slug for signal in FailureSignal.objects.published()]
    for combo in itertools.combinations(signals, 3):
        assert_plan_is_coherent(diagnosis_for(combo))


def test_a_plan_never_relieves_a_layer_its_test_cannot_point_to(db):
    """The defect in the issue: the test named Environments · Rewards, the plan said "if the
    test points to Compute". Here the top layer is one no test outcome names."""
    compute, env, rewards = (LayerFactory(order=n) for n in range(3))
    signal = FailureSignalFactory()
    SignalLayer.objects.create(signal=signal, layer=compute, strength=2)
    SignalLayer.objects.create(signal=signal, layer=env, strength=1)
    SignalLayer.objects.create(signal=signal, layer=rewards, strength=1)
    test = DiscriminatingTestFactory(cost=1)
    test.layers.add(env, rewards)
    TestOutcome.objects.create(test=test, layer=env, observation="Gap.", action="Fix env.")
    TestOutcome.objects.create(test=test, layer=rewards, observation="No gap.", action="Fix r.")
    diagnosis = diagnosis_for([signal.slug])
    assert diagnosis.top_layers() == [compute, env, rewards]
    assert diagnosis.first_test() == test
    assert diagnosis.relieve() == [env, rewards]
    left, next_test = diagnosis.untested()
    assert left == [compute] and next_test is None
    assert_plan_is_coherent(diagnosis)


def test_no_written_test_separating_the_contenders_is_said(db, client):
    one, two = LayerFactory(order=1), LayerFactory(order=2)
    signal = FailureSignalFactory()
    SignalLayer.objects.create(signal=signal, layer=one, strength=2)
    SignalLayer.objects.create(signal=signal, layer=two, strength=2)
    lonely = DiscriminatingTestFactory(cost=1)
    TestOutcome.objects.create(test=lonely, layer=one, observation="Seen.", action="Act.")
    diagnosis = diagnosis_for([signal.slug])
    assert diagnosis.first_test() is None
    reason = f"No written test separates {one.name} and {two.name}"
    assert diagnosis.no_test_reason().startswith(reason)
    plan = text_of(client.get(STEP4, {"signal": signal.slug}))
    assert reason in plan and "No layer to relieve yet" in plan
    assert "Relieve only the layer the outcome points to" not in plan


def test_a_tie_is_never_ordered_by_the_framework(demo, client):
    """The flat reward curve alone: four layers at score 1, shown as one rank, and the plan's
    test is one that separates two of them, not a default to Compute."""
    diagnosis = diagnosis_for(["flat-reward-curve"])
    top = diagnosis.top_tier()
    assert top.tied and {layer.slug for layer in top.layers} == {
        "compute",
        "rollouts",
        "rewards",
        "evaluation",
    }
    assert {entry.rank for entry in diagnosis.ranked_layers()} == {1}
    page = client.get(STEP2, {"signal": "flat-reward-curve"}).content.decode()
    assert page.count('value="1"') >= 4  # every tied layer is numbered 1
    assert page.count("tied at rank 1") == 4
    markdown = client.get(MARKDOWN, {"signal": "flat-reward-curve"}).content.decode()
    assert "Tied at the top (score 1): Compute, Rollouts, Rewards, Evaluation" in markdown
    assert markdown.count("\n1. **[") == 4


def test_ties_go_to_primary_matches_and_are_then_ties(db):
    early, late, third = LayerFactory(order=1), LayerFactory(order=2), LayerFactory(order=3)
    one, two, three = FailureSignalFactory.create_batch(3)
    SignalLayer.objects.create(signal=one, layer=early, strength=1)
    SignalLayer.objects.create(signal=two, layer=early, strength=1)
    SignalLayer.objects.create(signal=three, layer=late, strength=2)
    SignalLayer.objects.create(signal=one, layer=third, strength=2)
    ranked = diagnosis_for([one.slug, two.slug, three.slug]).ranked_layers()
    assert [(entry.layer, entry.rank, entry.tied) for entry in ranked] == [
        (late, 1, True),
        (third, 1, True),
        (early, 2, False),
    ]


# -- written scenarios ----------------------------------------------------------------------
# Symptoms and setting → the layers a careful team tests first, each resting on sentences
# quoted from the seeds: data in tests/fixtures/diagnosis_scenarios.json, documented in
# docs/diagnosis.md.

SCENARIOS = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "diagnosis_scenarios.json").read_text()
)["scenarios"]
SEEDS = settings.BASE_DIR.parent / "shared" / "seeds"


def test_the_scenarios_cover_the_commonest_plateau_and_quote_their_sources():
    assert len(SCENARIOS) >= 10
    assert any(s["signals"] == ["train-reward-up-held-out-flat"] for s in SCENARIOS)
    for scenario in SCENARIOS:
        assert scenario["sources"], scenario["id"]
        assert all(source["quote"] and source["seed"] for source in scenario["sources"])


SOURCES = [(scenario["id"], source) for scenario in SCENARIOS for source in scenario["sources"]]
SENTENCE_END = (".", "?", "!", ";")


def test_every_scenario_quotes_whole_sentences_of_its_passage():
    """Always, from the repository alone: each quote is one or more whole sentences of the
    seed paragraph the fixture keeps for it (the quote itself when it is the paragraph)."""
    for scenario_id, source in SOURCES:
        quote = source["quote"]
        passage = source["passage"]
        assert source["seed"] in {"000", "001", "002", "003"}, scenario_id
        assert quote == " ".join(quote.split()) and passage == " ".join(passage.split())
        start = passage.find(quote)
        assert start >= 0, (scenario_id, quote)
        assert start == 0 or passage[:start].endswith(tuple(f"{end} " for end in SENTENCE_END))
        end = start + len(quote)
        assert quote.endswith(SENTENCE_END) or passage[end:].startswith(SENTENCE_END)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed texts are not on this machine")
def test_every_kept_passage_is_its_seeds_text_verbatim():
    """Where the seeds are on the machine: the paragraphs the fixture keeps are theirs."""
    seeds = {path.name[:3]: " ".join(path.read_text().split()) for path in SEEDS.glob("*.txt")}
    for scenario_id, source in SOURCES:
        passage = source["passage"]
        assert passage in seeds[source["seed"]], (scenario_id, passage)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_written_scenarios(demo, scenario):
    """The expected layers are the contenders (led by the first alone, unless the scenario
    allows a tie: then the top rank holds one or more of them), and the plan's test points to
    them."""
    for source in scenario["sources"]:
        if source.get("paper"):
            assert Paper.objects.published().filter(slug=source["paper"]).exists()
    diagnosis = diagnosis_for(scenario["signals"], **scenario["setting"])
    first = set(scenario["first"])
    top = diagnosis.top_tier()
    summary = [(e.layer.slug, e.rank, e.key) for e in diagnosis.ranked_layers()]
    assert {layer.slug for layer in diagnosis.top_layers()} == first, summary
    if scenario["tie_allowed"]:
        assert {layer.slug for layer in top.layers} <= first, summary
    else:
        assert [layer.slug for layer in top.layers] == scenario["first"][:1], summary
    chosen = diagnosis.first_test()
    assert chosen is not None and chosen.slug == scenario["test"], summary
    assert len({layer.slug for layer in chosen.points_to} & first) >= 2
    assert_plan_is_coherent(diagnosis)


def test_the_setting_can_change_the_ranking_and_the_page_says_how(demo, client):
    """Tied on the signals (compute, data, rewards at 2); in math with verifiable rewards at
    10-100B, a published math claim bears on Rewards and none on the others."""
    signals = ["compute-saturated", "train-reward-up-held-out-flat"]
    setting = {"task_family": "math", "model_size": "medium", "reward_type": "verifiable"}
    plain, placed = diagnosis_for(signals), diagnosis_for(signals, **setting)
    assert {layer.slug for layer in plain.top_tier().layers} == {"compute", "data", "rewards"}
    assert [layer.slug for layer in placed.top_tier().layers] == ["rewards"]
    assert plain.setting_effect() == []
    sentence, lower = placed.setting_effect()
    assert lower.startswith("On your signals alone, Environments, Rollouts and Evaluation")
    assert sentence.startswith("On your signals alone, Compute, Data and Rewards are tied")
    assert "Rewards 1 claim" in sentence and "Compute 0 claims" in sentence
    text = text_of(client.get(STEP2, {"signal": signals, **setting}, follow=True))
    assert sentence in text
    assert "On your signals alone" not in text_of(client.get(STEP2, {"signal": signals}))


def test_evidence_is_matched_by_layer_and_setting_with_editors_links_first(demo):
    diagnosis = diagnosis_for(["train-reward-up-held-out-flat"], task_family="math")
    test = diagnosis.first_test()
    assert test.slug == "held-in-held-out-judge"
    layers = {layer.pk for layer in test.points_to}
    for claim in test.evidence:
        assert not claim.linked_by_editors  # this test has no editors' claim links
        assert set(claim.layers.values_list("pk", flat=True)) & layers
    flags = [claim.in_setting for claim in test.evidence]
    assert flags == sorted(flags, reverse=True)  # claims in the setting first
    by_slug = {claim.slug: claim for claim in test.evidence}
    assert by_slug["trace-2-76-points-over-grpo"].in_setting  # math, on Rewards
    # Editors' links stay as overrides, first, whatever their layer.
    coverage = diagnosis_for(["pass-at-1-up-coverage-down"]).first_test()
    assert coverage.evidence[0].slug == "rlvr-67-percent-coverage-fall"
    assert coverage.evidence[0].linked_by_editors


def test_evidence_without_a_source_on_record_is_marked(demo, client):
    sourced = PaperFactory(arxiv_id="2501.00001")
    bare = PaperFactory(arxiv_id="", doi="", url="")
    layer = Layer.objects.get(slug="rollouts")
    with_source = ClaimFactory(statement="A claim with a source.")
    with_source.papers.add(sourced, bare)
    without = ClaimFactory(statement="A claim without a source.")
    without.papers.add(bare)
    for claim in (with_source, without):
        claim.layers.add(layer)
    assert set(Claim.objects.without_source().filter(pk__in=[with_source.pk, without.pk])) == {
        without
    }
    page = client.get(reverse("evidence:claims"), {"layer": "rollouts"}).content.decode()
    cards = {
        claim.pk: page[page.index(f'id="claim-{claim.slug}"') :].split("</li>")[0]
        for claim in (with_source, without)
    }
    assert "No source on record" in cards[without.pk]
    assert "No source on record" not in cards[with_source.pk]


def test_the_markdown_export_links_every_title(demo, client):
    query = {"signal": "pass-at-1-up-coverage-down"}
    markdown = client.get(MARKDOWN, query).content.decode()
    assert "**[Rollouts](http://testserver/bottlenecks/rollouts/)**" in markdown
    assert (
        "### [Compare pass@1 with pass@k and solution coverage across checkpoints]"
        "(http://testserver/diagnose/tests/?signal=pass-at-1-up-coverage-down#test-coverage-at-k)"
    ) in markdown
    assert "[Locked at the Entrance, Open Inside](http://testserver/papers/" in markdown
    assert "(http://testserver/claims/#claim-rlvr-67-percent-coverage-fall)" in markdown
    assert "- If: Pass@1 rises while pass@k and coverage fall. → **Rollouts**:" in markdown


def test_the_json_export_is_the_same_plan(demo, client):
    query = {"signal": "train-reward-up-held-out-flat", "task_family": "math"}
    response = client.get(JSON, query)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="rl-scaling-diagnosis.json"'
    data = json.loads(response.content)
    diagnosis = diagnosis_for(["train-reward-up-held-out-flat"], task_family="math")
    assert [entry["slug"] for entry in data["ranking"]] == [
        entry.layer.slug for entry in diagnosis.ranked_layers()
    ]
    assert data["test"]["slug"] == "held-in-held-out-judge"
    assert [o["points_to"] for o in data["test"]["outcomes"]] == ["rewards", "data", "evaluation"]
    assert data["plan_url"].endswith(
        f"{STEP4}?signal=train-reward-up-held-out-flat&task_family=math"
    )
    assert all("source_on_record" in claim for claim in data["evidence"])
    assert client.get(JSON, {"signal": "nope"}).status_code == 400
    assert json.loads(client.get(JSON, {"signal": "nope"}).content)["errors"]


def test_drafts_never_show_in_the_plan_or_its_exports(demo, client):
    draft_layer = LayerFactory(status="draft", name="Secret layer", slug="secret-layer")
    test = DiscriminatingTest.objects.get(slug="coverage-at-k")
    TestOutcome.objects.create(
        test=test, layer=draft_layer, observation="Secret outcome.", action="Secret action."
    )
    draft_test = DiscriminatingTestFactory(status="draft", title="Secret test", cost=1)
    TestOutcome.objects.create(test=draft_test, layer=Layer.objects.get(slug="rollouts"),
                               observation="x", action="y")  # fmt: skip
    draft_claim = ClaimFactory(status="draft", statement="Secret claim.")
    draft_claim.layers.add(Layer.objects.get(slug="rollouts"))
    draft_paper = PaperFactory(status="draft", title="Secret paper")
    Claim.objects.get(slug="rlvr-67-percent-coverage-fall").papers.add(draft_paper)
    query = {"signal": "pass-at-1-up-coverage-down"}
    for url in [reverse("evidence:diagnose-tests"), STEP4, MARKDOWN, JSON]:
        content = client.get(url, query).content.decode()
        for secret in [
            "Secret layer",
            "Secret outcome",
            "Secret test",
            "Secret claim",
            "Secret paper",
        ]:
            assert secret not in content, (url, secret)


def test_the_page_documents_the_scoring_ties_and_test_choice(demo, client):
    for url in [STEP2, reverse("evidence:diagnose-tests"), STEP4]:
        text = text_of(client.get(url, {"signal": "flat-reward-curve"}))
        assert "How the ranking, ties and the test are decided" in text
        assert "Layers equal on all of these are tied" in text
        assert "published claims and runs in that setting" in text
        assert "It is written for more of the signals you picked." in text
        assert "The plan takes the first test in that order" in text
        assert "No written test separates" in text
        assert "A worked example." in text


def test_the_page_names_every_criterion_the_code_ranks_and_chooses_by(demo, client):
    """The page's lists are the code's sort keys, in order: a criterion added to the code
    without its words (or the other way round) fails here."""
    selection = ["compute-saturated", "train-reward-up-held-out-flat"]
    setting = {"task_family": "math", "model_size": "medium", "reward_type": "verifiable"}
    diagnosis = diagnosis_for(selection, **setting)
    ranking_names = [name for name, _ in Diagnosis.ranking_criteria]
    for entry in diagnosis.ranked_layers():
        assert list(entry.criteria()) == ranking_names
        assert entry.key == tuple(entry.criteria().values())
    test_names = [name for name, _ in Diagnosis.test_criteria_text]
    tests = diagnosis.tests()
    assert len(tests) >= 3
    keys = [tuple(diagnosis.test_criteria(test).values()) for test in tests]
    assert all(list(diagnosis.test_criteria(test)) == test_names for test in tests)
    assert keys == sorted(keys)  # the order the page describes is the order used

    page = client.get(STEP2, {"signal": selection, **setting}).content.decode()
    method = page[page.index('id="method"') :]
    listed = [part.split('"')[0] for part in method.split('data-criterion="')[1:]]
    assert listed == ranking_names + test_names
    text = html.unescape(text_of(client.get(STEP2, {"signal": selection, **setting})))
    for _, words in [*Diagnosis.ranking_criteria, *Diagnosis.test_criteria_text]:
        assert f"{words[0].upper()}{words[1:]}." in text


def test_the_pages_worked_example_is_what_the_diagnosis_does(demo, client):
    selection = ["compute-saturated", "train-reward-up-held-out-flat"]
    setting = {"task_family": "math", "model_size": "medium", "reward_type": "verifiable"}
    text = text_of(client.get(STEP2, {"signal": selection}))
    assert "Compute, Data and Rewards score 2 with one own-signal match each" in text
    plain = diagnosis_for(selection)
    assert [(e.layer.slug, e.score, len(e.primary)) for e in plain.top_tier().entries] == [
        ("compute", 2, 1),
        ("data", 2, 1),
        ("rewards", 2, 1),
    ]
    assert {e.score for e in plain.ranked_layers()[3:]} == {1}
    assert len(plain.ranked_layers()) == 6
    diagnosis = diagnosis_for(selection, **setting)
    assert [(e.layer.slug, e.rank) for e in diagnosis.ranked_layers()[:3]] == [
        ("rewards", 1),
        ("compute", 2),
        ("data", 2),
    ]
    rewards = diagnosis.ranked_layers()[0]
    assert (rewards.setting_claims, diagnosis.ranked_layers()[1].setting_evidence) == (1, 0)
    cheap_pairs = [t for t in diagnosis.tests() if len(t.separates) >= 2 and t.cost == 1]
    assert len(cheap_pairs) == 3
    test = diagnosis.first_test()
    assert test.title == "Score held-in and held-out prompts with the same independent judge"
    assert {o.layer.slug for o in diagnosis.outcomes() if o.layer} == {
        "rewards",
        "data",
        "evaluation",
    }
    assert [layer.slug for layer in diagnosis.untested()[0]] == ["compute"]


def test_paper_sources_count_only_published_papers(demo):
    """A claim whose only sourced paper is a draft has no source on record for readers."""
    claim = Claim.objects.get(slug="fast-slow-3x-sample-efficiency")
    claim.papers.add(PaperFactory(status="draft", arxiv_id="2502.00002"))
    assert claim in Claim.objects.published().without_source()
    assert Paper.objects.filter(status="draft", arxiv_id="2502.00002").exists()


def random_world(rng):
    """Layers, signals with random weights, and tests with random outcomes and costs."""
    layers = [LayerFactory(order=rng.randint(0, 3)) for _ in range(5)]
    signals = FailureSignalFactory.create_batch(6)
    for signal in signals:
        for layer in rng.sample(layers, rng.randint(1, 4)):
            SignalLayer.objects.create(signal=signal, layer=layer, strength=rng.choice([1, 2]))
    for _ in range(rng.randint(0, 5)):
        test = DiscriminatingTestFactory(cost=rng.randint(1, 3))
        test.signals.add(*rng.sample(signals, rng.randint(0, 2)))
        for layer in rng.sample([*layers, None], rng.randint(0, 3)):
            TestOutcome.objects.create(test=test, layer=layer, observation="o", action="a")
    return signals


@pytest.mark.parametrize("seed", range(12))
def test_plans_stay_coherent_in_worlds_not_in_the_repository(db, seed):
    import random

    rng = random.Random(seed)
    signals = random_world(rng)
    for size in (1, 2, 3):
        for combo in itertools.combinations(signals, size):
            assert_plan_is_coherent(Diagnosis(combo))
