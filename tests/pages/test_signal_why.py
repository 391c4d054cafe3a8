"""Each failure signal says why it points to its layers: editorial data, written in the admin
and in the demo's TOML, shown beside the signal's layers on the diagnosis and in its exports."""

import tomllib

import pytest
from django.conf import settings
from django.urls import reverse

from evidence.models import FailureSignal
from tests.helpers import text_of
from web.demo_content import DemoLoader

pytestmark = pytest.mark.django_db

EVIDENCE_TOML = settings.BASE_DIR / "web" / "demo" / "evidence.toml"
STEPS = ["evidence:diagnose-layers", "evidence:diagnose-tests", "evidence:diagnose-plan"]
HELD_OUT = "train-reward-up-held-out-flat"
HELD_OUT_WHY = (
    "The training reward can rise because the policy learns what the training distribution "
    "rewards without it transferring (data), or because it learns what the reward can be "
    "gamed by (rewards)"
)


def test_the_why_is_data_in_the_demo_not_a_comment():
    text = EVIDENCE_TOML.read_text()
    assert "# why" not in text
    rows = tomllib.loads(text)["signals"]
    for row in rows:
        assert row.get("why", "").strip(), row["slug"]
        why = " ".join(row["why"].split())
        for slug in [*row["primary"], *row["supporting"]]:
            assert f"({slug})" in why, (row["slug"], slug)  # each link's reason is there


def test_every_published_demo_signal_has_its_why(demo):
    signals = FailureSignal.objects.published()
    assert signals.count() >= 13
    assert not signals.filter(why="").exists()
    why = FailureSignal.objects.get(slug=HELD_OUT).why
    assert why.startswith(HELD_OUT_WHY)
    assert "\n" not in why


def test_step_one_gives_each_signal_its_layers_and_why(demo, client):
    text = text_of(client.get(reverse("evidence:diagnose")))
    assert text.count("Why these layers") == FailureSignal.objects.published().count()
    assert HELD_OUT_WHY in text
    assert "Evaluation (consistent)" in text


@pytest.mark.parametrize("step", STEPS)
def test_each_step_lists_the_selected_signals_layers_and_why(demo, client, step):
    text = text_of(client.get(reverse(step), {"signal": HELD_OUT}))
    assert (
        "Points to Data, Rewards (its own failure signal); Environments, Evaluation "
        "(consistent with it)."
    ) in text
    assert f"Why: {HELD_OUT_WHY}" in text


def test_the_exports_carry_the_why(demo, client):
    query = {"signal": ["compute-saturated", HELD_OUT]}  # as listed: no redirect
    markdown = client.get(reverse("evidence:diagnose-plan-markdown"), query).content.decode()
    assert f"  Why: {HELD_OUT_WHY}" in markdown
    assert "Points to [Data](http" in markdown
    plan = client.get(reverse("evidence:diagnose-plan-json"), query).json()
    held_out = next(s for s in plan["signals"] if s["slug"] == HELD_OUT)
    assert held_out["primary"] == ["data", "rewards"]
    assert set(held_out["supporting"]) == {"evaluation", "environments"}
    assert held_out["why"].startswith(HELD_OUT_WHY)


def test_an_editor_writes_the_why_in_the_admin_and_readers_see_it(demo, editor_client, client):
    signal = FailureSignal.objects.get(slug="flat-reward-curve")
    url = reverse("admin:bottlenecks_failuresignal_change", args=[signal.pk])
    form = editor_client.get(url)
    assert 'name="why"' in form.content.decode()
    signal.why = "A new reason, written by an editor (compute)."
    signal.save()
    text = text_of(client.get(reverse("evidence:diagnose-layers"), {"signal": signal.slug}))
    assert "Why: A new reason, written by an editor (compute)." in text


def test_a_demo_load_fills_an_empty_why_and_keeps_an_editors(demo):
    FailureSignal.objects.filter(slug=HELD_OUT).update(why="")
    FailureSignal.objects.filter(slug="flat-reward-curve").update(why="The editors' reason.")
    DemoLoader().load()
    assert FailureSignal.objects.get(slug=HELD_OUT).why.startswith(HELD_OUT_WHY)
    assert FailureSignal.objects.get(slug="flat-reward-curve").why == "The editors' reason."
