"""The demo's results are the seeds' numbers with their source, and nothing else."""

import pytest

from results.models import Result, Series
from web.demo_content import DemoLoader

pytestmark = pytest.mark.django_db


def test_the_demo_results_are_the_seeds_numbers_with_their_source(demo, client):
    values = sorted(Result.objects.values_list("value", flat=True))
    assert values == [0.24, 0.95, 91.9]
    assert all(p.location_kind == "summary" for p in Result.objects.all())
    assert not Series.objects.filter(synthetic=True).exists()
    html = client.get("/benchmarks/geneval/").content.decode()
    assert "0.95" in html and "90 GPU-hours" in html
    assert "not yet located in it" in html
    assert "Seed 003 summary" in html
    assert client.get("/benchmarks/aime-2025/").status_code == 200


def test_loading_the_demo_again_changes_nothing(demo):
    assert DemoLoader().load() == 0
