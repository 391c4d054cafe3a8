"""Claims where readers look: `{% load evidence %}{% claims_for paper %}` on a hub, a note or a
layer page, and the field guide's evidence caveat computed from the claims' statuses."""

from django import template

from evidence.models import Claim, EvidenceCaveat, EvidenceTimeline

register = template.Library()

# Which relation of Claim points to each kind of object a page is about.
CLAIM_RELATIONS = {"layer": "layers", "paper": "papers", "researchnote": "notes"}


@register.inclusion_tag("bottlenecks/includes/claims.html")
def claims_for(item, heading="Claims and their evidence"):
    relation = CLAIM_RELATIONS[item._meta.model_name]
    claims = list(Claim.objects.for_display().filter(**{relation: item}))
    return {"claims": claims, "heading": heading, "item": item}


@register.inclusion_tag("bottlenecks/includes/evidence_caveat.html")
def evidence_caveat(notes, footnote=""):
    return {"caveat": EvidenceCaveat.for_notes(notes), "footnote": footnote}


@register.inclusion_tag("bottlenecks/includes/evidence_strip.html")
def evidence_strip(layer):
    return {"timeline": EvidenceTimeline.for_layer(layer), "layer": layer}
