"""Claims tied to results: a claim names the results that carry its figure; another paper's
comparable result (same benchmark, no different setting, RL compute within a factor of two)
within the claim's tolerance proposes "reproduced", one beyond it "contested", with the reason;
the editor confirms. Drafts never show, and a result that is not comparable proposes nothing."""

import pytest
from django.urls import reverse

from evidence.models import Claim, EvidenceStatus, comparable_results, relative_difference
from publishing.models import Status
from tests.factories import ClaimFactory
from tests.helpers import text_of
from tests.results.factories import BenchmarkFactory, ResultFactory, SeriesFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def claim():
    """A claim carried by one result: 40.0 on a benchmark at 1,000 GPU-hours, tolerance 5%."""
    own = ResultFactory(value=40.0)
    claim = ClaimFactory(statement="Forty on the benchmark.", tolerance=5)
    claim.papers.add(own.series.paper)
    claim.results.add(own)
    claim.refresh_from_db()
    return claim


def another_paper(claim, value, **series_fields):
    benchmark = claim.results.get().series.benchmark
    series = SeriesFactory(benchmark=benchmark, **series_fields)
    return ResultFactory(series=series, value=value)


def test_an_agreeing_result_from_another_paper_proposes_reproduced(claim):
    other = another_paper(claim, 41.5)  # 3.75% apart

    claim.refresh_from_db()
    assert claim.evidence_status == EvidenceStatus.REPORTED  # the public status waits
    assert claim.proposed_status == EvidenceStatus.REPRODUCED
    assert "41.5" in claim.proposal_reason and "agrees with 40" in claim.proposal_reason
    assert str(other.series.paper) in claim.proposal_reason
    assert claim.review_due is not None


def test_a_contradicting_result_proposes_contested_and_outweighs_agreement(claim):
    another_paper(claim, 40.5)
    another_paper(claim, 30.0)  # 25% apart

    claim.refresh_from_db()
    assert claim.proposed_status == EvidenceStatus.CONTESTED
    assert "30 " in claim.proposal_reason and "contradicts 40" in claim.proposal_reason


@pytest.mark.parametrize(
    "other",
    [
        {"series_fields": {"task_family": "code"}},  # another setting
        {"series_fields": {}, "compute": 5000.0},  # 5x the compute
        {"series_fields": {}, "benchmark": True},  # another benchmark
        {"series_fields": {"status": Status.DRAFT, "published_at": None}},  # not public
    ],
)
def test_a_result_that_is_not_comparable_or_not_public_proposes_nothing(claim, other):
    benchmark = (
        BenchmarkFactory() if other.get("benchmark") else claim.results.get().series.benchmark
    )
    series = SeriesFactory(benchmark=benchmark, **other["series_fields"])
    ResultFactory(series=series, value=10.0, compute_reported=other.get("compute", 1000.0))

    claim.refresh_from_db()
    assert claim.proposed_status == ""


def test_the_same_paper_never_confirms_itself(claim):
    own_paper = claim.results.get().series.paper
    another_paper(claim, 40.1, paper=own_paper)

    claim.refresh_from_db()
    assert claim.proposed_status == ""


def test_no_tolerance_proposes_nothing_and_setting_one_reviews(claim):
    Claim.objects.filter(pk=claim.pk).update(tolerance=None)
    claim.refresh_from_db()
    another_paper(claim, 41.0)
    claim.refresh_from_db()
    assert claim.proposed_status == ""

    claim.tolerance = 1  # 2.5% apart is now beyond it
    claim.save()

    claim.refresh_from_db()
    assert claim.proposed_status == EvidenceStatus.CONTESTED


def test_adding_the_result_to_the_claim_reviews_it():
    own = ResultFactory(value=10.0)
    ResultFactory(series=SeriesFactory(benchmark=own.series.benchmark), value=10.2)
    claim = ClaimFactory(tolerance=5)
    assert claim.proposed_status == ""

    own.claims.add(claim)  # from the result's side too

    claim.refresh_from_db()
    assert claim.proposed_status == EvidenceStatus.REPRODUCED


def test_a_withdrawn_series_is_reviewed_again(claim):
    other = another_paper(claim, 30.0)
    claim.refresh_from_db()
    assert claim.proposed_status == EvidenceStatus.CONTESTED
    ClaimFactory._meta.model.objects.filter(pk=claim.pk).update(proposed_status="")

    other.series.status = Status.DRAFT
    other.series.save()

    claim.refresh_from_db()
    assert claim.proposed_status == ""  # nothing public contradicts it any more


def test_the_editor_accepts_a_proposal_and_history_records_why(claim, admin_client):
    another_paper(claim, 40.8)
    claim.refresh_from_db()
    url = reverse("admin:bottlenecks_claim_changelist")

    response = admin_client.post(
        url, {"action": "accept_proposed_status", "_selected_action": [claim.pk]}
    )

    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.evidence_status == EvidenceStatus.REPRODUCED
    assert claim.reproduced_by  # named from the agreeing results
    assert claim.history.first().history_change_reason.startswith("Accepted the proposed status")


def test_the_claims_page_and_api_show_the_public_results_only(claim, client):
    own = claim.results.get()
    draft = ResultFactory(
        series=SeriesFactory(status=Status.DRAFT, published_at=None, name="Secret run"),
        value=77.7,
    )
    claim.results.add(draft)

    text = text_of(client.get(reverse("evidence:claims")))
    assert f"40 % on {own.series.benchmark.name} at 1,000 GPU-hours" in text
    assert "77.7" not in text
    data = client.get(f"/api/v1/claims/{claim.slug}/").json()
    assert data["results"] == [own.pk] and data["tolerance"] == 5


def test_the_comparison_rule():
    assert relative_difference(40, 42) == pytest.approx(5)
    assert relative_difference(0, 0) == 0 and relative_difference(0, 1) == float("inf")
    own = ResultFactory.build(series=SeriesFactory.build(), compute_reported=1000.0)
    other = ResultFactory.build(series=SeriesFactory.build(benchmark=own.series.benchmark))
    for result in (own, other):
        result.normalise_compute()
    for compute, expected in [(1000.0, True), (1999.0, True), (2100.0, False), (400.0, False)]:
        other.compute_reported = compute
        other.normalise_compute()
        assert comparable_results(own, other) is expected, compute
