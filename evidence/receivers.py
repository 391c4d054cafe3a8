"""Claim status follows the evidence: when a citation of a claim's paper is added, changed or
removed, the claim's evidence has changed (the editors' dashboard lists it until a review), and
a contrasting citation proposes "contested" and makes the claim due for review. The public
status is never changed here: an editor accepts or clears the proposal."""

from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from citations.models import Citation
from evidence.models import Claim, EvidenceStatus

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
