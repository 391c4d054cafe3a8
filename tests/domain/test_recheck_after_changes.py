"""The home, index, hub, layer, claims and diagnosis pages say nothing the database contradicts,
re-checked after a dimension, a paper, a citation edge and a contrasting citation are added
together on the demo content: every count a sentence states ("seven coupled dimensions", the
index's items, the hub's citing papers, the layer's papers and claims), every date (a known
one shown as known, a placeholder nowhere), every claim's status (the editors' proposal stays
with them), and the guide copy the checks (notes/guide.py) find unsupported."""

import datetime
import re

import pytest
from django.urls import reverse

from bottlenecks.models import Dimension, Layer
from citations.dates import DatePrecision
from citations.models import Citation, CitationPolarity, Paper
from core.counted_text import stated_counts
from evidence.models import Claim, EvidenceStatus, FailureSignal
from notes.guide import unsupported_copy
from tests.factories import CitationFactory, DimensionFactory, PaperFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

CLAIM = "taspo-10-6-percent-over-grpo"  # on the rewards layer, from one paper
PLACEHOLDER = datetime.date(2032, 5, 6)  # a year nothing else on the site shows


def findings():
    return sorted((item.section.key, item.field, item.words) for item in unsupported_copy())


def claim_statuses(html):
    """{claim slug: the status its card shows}."""
    cards = re.findall(
        r'<li class="claim" id="claim-([\w-]+)">\s*<p class="claim__head">\s*'
        r'<span class="badge[^"]*">([^<]*)</span>',
        html,
    )
    return dict(cards)


def numbers(pattern, text):
    match = re.search(pattern, text)
    assert match, pattern
    return sum(int(group or 0) for group in match.groups())


def test_the_pages_agree_with_the_database_after_combined_changes(client, demo):
    flagged_before = findings()
    claim = Claim.objects.get(slug=CLAIM)
    claimed = claim.papers.get()
    layer = Layer.objects.get(slug="rewards")
    contrasting = CitationPolarity.objects.get(slug="contrasting")

    DimensionFactory(name="Memory")
    dated = PaperFactory(
        title="A Dated Newcomer on Rewards",
        slug="dated-newcomer",
        publication_date=datetime.date(2031, 3, 4),
        date_precision=DatePrecision.DAY,
        in_research_index=True,
    )
    dated.layers.add(layer)
    CitationFactory(citing_paper=dated, cited_paper=claimed)  # an edge, not yet classified
    undated = PaperFactory(
        title="An Undated Contrarian",
        slug="undated-contrarian",
        publication_date=PLACEHOLDER,
        date_precision=DatePrecision.UNKNOWN,
        in_research_index=True,
    )
    undated.layers.add(layer)
    CitationFactory(citing_paper=undated, cited_paper=claimed, polarity=contrasting)

    signal = FailureSignal.objects.published().filter(layers=layer).first()
    pages = {
        "home": client.get("/"),
        "index": client.get(reverse("citations:research-index")),
        "hub": client.get(claimed.get_absolute_url()),
        "layer": client.get(layer.get_absolute_url()),
        "claims": client.get(reverse("evidence:claims")),
        "diagnosis": client.get("/diagnose/tests/", {"signal": signal.slug}),
    }
    texts = {name: text_of(response) for name, response in pages.items()}
    for name, response in pages.items():
        assert response.status_code == 200, name

    # Counts the sentences state.
    dimensions = Dimension.objects.published().count()
    assert dimensions == 7
    assert "how seven coupled dimensions grow together" in texts["home"]
    for name, text in texts.items():
        for words, stated in stated_counts(text, "dimensions"):
            if words.startswith("0"):
                continue  # a section's number ("01 The dimensions"), not a count
            assert stated == dimensions, f"{name}: {words!r}"
    in_index = Paper.objects.published().in_research_index().count()
    assert f"{in_index} items" in texts["index"]
    citing = Citation.objects.public().filter(cited_paper=claimed).count()
    assert re.search(rf"\b{citing} papers citing it\b", texts["hub"])
    on_layer = Paper.objects.published().filter(layers=layer).count()
    assert numbers(r"papers on this layer \((\d+)(?:; (\d+) more)?", texts["layer"]) == on_layer
    claims_on_layer = Claim.objects.published().filter(layers=layer).count()
    shown = numbers(r"claims reported \((\d+)(?:; (\d+) more)?", texts["layer"])
    assert shown == claims_on_layer

    # Dates: the known one as known, the placeholder nowhere.
    for name in ("index", "layer"):
        assert "Mar 4, 2031" in texts[name], name
    assert re.search(r"A Dated Newcomer on Rewards 2031\b", texts["hub"])  # a citer's year
    for name, text in texts.items():
        assert "2032" not in text, f"{name} shows the placeholder of a paper of unknown date"

    # Claim status: the contrasting citation proposes "contested" to the editors; every card
    # shows the status the database holds, and nothing states the proposal.
    claim.refresh_from_db()
    assert claim.proposed_status == EvidenceStatus.CONTESTED
    assert claim.evidence_status == EvidenceStatus.REPORTED
    status_text = {c.slug: c.status_text for c in Claim.objects.published()}
    for name in ("layer", "claims", "diagnosis"):
        shown = claim_statuses(pages[name].content.decode())
        assert CLAIM in shown, name
        assert {slug: status_text[slug] for slug in shown} == shown, name

    # The copy the data does not support is flagged to the editors, and nothing more: the
    # typed "six coupled dimensions" (readers see it counted: seven) joins what was flagged.
    typed_six = ("dimensions", "intro", "six coupled dimensions")
    assert typed_six not in flagged_before
    assert findings() == sorted([*flagged_before, typed_six])
