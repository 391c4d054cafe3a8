"""The demo's results are the seeds' numbers with their source, and nothing else: every figure
the seeds tie to a paper and a measured quantity is a result located in the seed's own words
and carrying its claim's figure, or is listed in web/demo/results.toml's `not_results` with
why it cannot be one."""

import re
import tomllib

import pytest
from django.conf import settings

from evidence.models import Claim
from results.models import Result, Series
from web.demo_content import DemoLoader

pytestmark = pytest.mark.django_db

DEMO = tomllib.loads((settings.BASE_DIR / "web" / "demo" / "results.toml").read_text())
SEEDS = settings.BASE_DIR.parent / "shared" / "seeds"
# A figure in a seed's text: a number with what it counts ("2.29×", "67%", "2.76 points",
# "400,000 GPU-hours", "3x").
FIGURE = re.compile(r"[~+]?\d[\d,]*(?:\.\d+)?(?:×|x\b|%| points| GPU)")


def quoted(location):
    """The seed's words a point's location quotes, between its curly quotes."""
    return location.split("“", 1)[1].rsplit("”", 1)[0]


def number(value):
    return f"{value:g}"


def test_the_demo_results_are_the_seeds_numbers_with_their_source(demo, client):
    wanted = sorted(p["value"] for s in DEMO["series"] for p in s["points"])
    assert sorted(Result.objects.values_list("value", flat=True)) == wanted
    for value in (2.29, 29, 67, 10.6, 0.24, 0.95, 91.9, 10.4, 7.8):
        assert value in wanted
    assert all(p.location_kind == "summary" for p in Result.objects.all())
    assert not Series.objects.filter(synthetic=True).exists()
    html = client.get("/benchmarks/geneval/").content.decode()
    assert "0.95" in html and "90 GPU-hours" in html
    assert "not yet located in it" in html
    assert "Seed 003 summary" in html
    assert client.get("/benchmarks/aime-2025/").status_code == 200
    html = client.get("/benchmarks/generation-throughput-gain/").content.decode()
    assert "2.29" in html and "up to 2.29× higher generation throughput" in html


def test_no_number_is_invented():
    """Each point's value is in the seed words it quotes; nothing else is stated for it."""
    for series in DEMO["series"]:
        for point in series["points"]:
            words = quoted(point["location"])
            assert number(point["value"]) in words, (series["slug"], point["value"])
            if "compute" in point:
                assert number(point["compute"]) in words, series["slug"]
            assert "uncertainty" not in point and "steps" not in point


def test_each_result_carries_its_claims_figure(demo):
    for row in DEMO["series"]:
        claim = Claim.objects.get(slug=row["claim"])
        points = set(Series.objects.get(slug=row["slug"]).points.values_list("pk", flat=True))
        assert points <= set(claim.results.values_list("pk", flat=True)), row["slug"]
        assert claim.papers.filter(slug=row["paper"]).exists(), row["slug"]


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed texts are not on this machine")
def test_every_seed_figure_is_a_result_or_a_documented_exception():
    seeds = {path.name[:3]: " ".join(path.read_text().split()) for path in SEEDS.glob("*.txt")}
    covered = {name: [] for name in seeds}
    for series in DEMO["series"]:
        for point in series["points"]:
            seed = point["location"].removeprefix("Seed ")[:3]
            words = quoted(point["location"])
            assert words in seeds[seed], (series["slug"], words)
            covered[seed].append(words)
    for exception in DEMO["not_results"]:
        assert exception["reason"] and exception["figure"] in exception["quote"]
        assert exception["quote"] in seeds[exception["seed"]], exception["quote"]
        covered[exception["seed"]].append(exception["quote"])
    missing = [
        (name, figure)
        for name, text in seeds.items()
        for figure in FIGURE.findall(text)
        if not any(figure in words for words in covered[name])
    ]
    assert not missing, f"seed figures neither results nor listed in not_results: {missing}"


def test_loading_the_demo_again_changes_nothing(demo):
    assert DemoLoader().load() == 0
    assert DemoLoader().load() == 0
