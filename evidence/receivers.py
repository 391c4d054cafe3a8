"""Claim status follows the evidence: when a citation of a claim's paper is added, changed or
removed, the claim's evidence has changed (the editors' dashboard lists it until a review), and
a contrasting citation proposes "contested" and makes the claim due for review. Results do the
same: when a result on the benchmark of a claim's own results is saved or deleted (or a series
published or withdrawn), or the claim's results change, another paper's comparable result
proposes "reproduced" or "contested" (`Claim.results_verdict`). The public status is never
changed here: an editor accepts or clears the proposal."""

from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.dispatch import receiver

from citations.models import Citation
from evidence.models import Claim, EvidenceStatus
from results.models import Result, Series
from results.signals import points_imported

CONTRASTING = "contrasting"  # the polarity slug (citations' vocabulary, demo and formats)


def _state(citation):
    return (citation.cited_paper_id, citation.role_id, citation.polarity_id, citation.status)


@receiver(pre_save, sender=Citation, dispatch_uid="evidence-citation-before")
def remember_citation(sender, instance, raw=False, **kwargs):
    if raw or instance.pk is None:
        instance._evidence_before = None
        return
    before = Citation.objects.filter(pk=instance.pk).first()
    instance._evidence_before = _state(before) if before else None


@receiver(post_save, sender=Citation, dispatch_uid="evidence-citation-saved")
def citation_saved(sender, instance, created=False, raw=False, **kwargs):
    if raw:
        return
    if not created and getattr(instance, "_evidence_before", None) == _state(instance):
        return  # nothing the claims depend on changed
    evidence_changed(instance, removed=False)


@receiver(post_delete, sender=Citation, dispatch_uid="evidence-citation-deleted")
def citation_deleted(sender, instance, **kwargs):
    evidence_changed(instance, removed=True)


def evidence_changed(citation, removed):
    claims = Claim.objects.filter(papers=citation.cited_paper_id)
    contrasting = not removed and citation.polarity_id and citation.polarity.slug == CONTRASTING
    for claim in claims:
        if contrasting and claim.evidence_status in (
            EvidenceStatus.REPORTED,
            EvidenceStatus.REPRODUCED,
        ):
            reason = (
                f"“{citation.citing_paper}” cites “{citation.cited_paper}” with a contrasting "
                "polarity."
            )
            claim.propose(EvidenceStatus.CONTESTED, reason)
        else:
            claim.propose("", "")


def review_claims_on(benchmark_ids):
    """Review every claim carrying a result on these benchmarks against the results."""
    claims = Claim.objects.filter(results__series__benchmark__in=benchmark_ids).distinct()
    for claim in claims:
        claim.review_against_results()


@receiver(post_save, sender=Result, dispatch_uid="evidence-result-saved")
@receiver(post_delete, sender=Result, dispatch_uid="evidence-result-deleted")
def result_changed(sender, instance, raw=False, **kwargs):
    if not raw:
        review_claims_on([instance.series.benchmark_id])


@receiver(points_imported, dispatch_uid="evidence-points-imported")
def points_imported_reviewed(sender, benchmark_ids, **kwargs):
    review_claims_on(benchmark_ids)


@receiver(post_save, sender=Series, dispatch_uid="evidence-series-saved")
def series_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        review_claims_on([instance.benchmark_id])


@receiver(m2m_changed, sender=Claim.results.through, dispatch_uid="evidence-claim-results")
def claim_results_changed(sender, instance, action, reverse=False, **kwargs):
    if action not in {"post_add", "post_remove", "post_clear"}:
        return
    # From the result's side (`result.claims.add`), the claims are the keys added or removed.
    claims = Claim.objects.filter(pk__in=kwargs.get("pk_set") or ()) if reverse else [instance]
    for claim in claims:
        claim.review_against_results()


@receiver(post_save, sender=Claim, dispatch_uid="evidence-claim-tolerance")
def claim_saved(sender, instance, raw=False, created=False, **kwargs):
    # A new tolerance may turn an agreement into a contradiction; a new claim has no results
    # yet (they are added after the save).
    if not raw and not created and instance.tolerance is not None:
        instance.review_against_results()
