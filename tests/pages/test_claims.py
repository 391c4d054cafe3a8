"""Claims with their evidence status: the demo's figures, where claims show, the computed
caveat, the claims page, the admin, and the per-layer evidence-over-time strip."""

import datetime
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from bottlenecks.models import Layer
from evidence.models import Claim, EvidenceStatus, EvidenceTimeline, FailureSignal, SignalLayer
from tests.factories import (
    CitationFactory,
    ClaimFactory,
    LayerFactory,
    PaperFactory,
    ResearchNoteFactory,
)
from tests.helpers import HOME_QUERY_CEILING, admin_form_data, text_of

pytestmark = pytest.mark.django_db

BATCHES = "when-do-larger-batches-help-scale-llm-reinforcement-learning"
ART_OF_SCALING = "the-art-of-scaling-reinforcement-learning-compute-for-llms"
CLAIMS_QUERY_CEILING = 6

# Every figure the seeds report: seed 001's recent evidence, seed 003's canonical abstract and
# citing-paper summaries. Each is a claim with status "reported".
SEED_FIGURES = [
    "2.29×",
    "29%",
    "67%",
    "10.6%",
    "100,000 GPU-hours",
    "3×",
    "2.76 points",
    "~10% → ~20%",
    "91.9%",
    "0.24 → 0.95",
    "100×",
    "+10.4 points",
    "+7.8 points",
    "5×",
]


def test_the_demo_has_a_reported_claim_for_every_seed_figure(demo):
    claims = Claim.objects.published()
    assert set(SEED_FIGURES) <= set(claims.values_list("figure", flat=True))
    assert set(claims.values_list("evidence_status", flat=True)) == {EvidenceStatus.REPORTED}
    for claim in claims:
        assert claim.layers.exists() and claim.papers.exists(), claim


def test_every_layers_failure_signal_is_a_selectable_signal(demo):
    for layer in Layer.objects.published():
        signal = FailureSignal.objects.published().get(text=layer.failure_signal)
        link = signal.links.get(layer=layer)
        assert link.strength == SignalLayer.Strength.PRIMARY


def test_layer_page_lists_claims_by_status_with_figures_setups_and_papers(client, demo):
    ClaimFactory(
        statement="Reproduced at three labs.",
        figure="1.8×",
        evidence_status=EvidenceStatus.REPRODUCED,
        reproduced_by="Lab B",
        reproduction_url="https://example.org/repro",
    ).layers.add(Layer.objects.get(slug="compute"))
    response = client.get(reverse("bottlenecks:layer-detail", kwargs={"slug": "compute"}))
    text = text_of(response)
    assert "Claims and their evidence" in text
    # Reproduced before reported, each group headed by its status.
    assert text.index("Reproduced (1)") < text.index("Reported (not reproduced) (6)")
    assert "Reproduced by Lab B" in text
    assert "2.29× higher generation throughput" in text
    assert "Setup: GRPO; gains only with batch-aware learning-rate retuning" in text
    assert f'href="/papers/{BATCHES}/"' in response.content.decode()


def test_paper_hub_and_note_show_their_claims(client, demo):
    hub = text_of(client.get(reverse("citations:paper-detail", kwargs={"slug": ART_OF_SCALING})))
    assert "Claims from this paper" in hub
    assert "100,000 GPU-hours single RL run predicted from smaller-scale runs" in hub
    note = text_of(client.get(reverse("notes:note-detail", kwargs={"slug": BATCHES})))
    assert "Claims and their evidence" in note
    assert "29% lower GRPO time-to-target" in note


def test_pages_without_claims_show_no_claims_section(client, demo):
    paper = PaperFactory()
    hub = text_of(client.get(paper.get_absolute_url()))
    assert "Claims from this paper" not in hub


def test_draft_claims_and_their_draft_papers_never_show(client, demo):
    layer = Layer.objects.get(slug="data")
    ClaimFactory(draft=True, statement="A draft finding nobody may see.").layers.add(layer)
    hidden_paper = PaperFactory(draft=True, title="An unpublished paper")
    claim = ClaimFactory(statement="A public finding.")
    claim.layers.add(layer)
    claim.papers.add(hidden_paper)
    for url in [layer.get_absolute_url(), reverse("evidence:claims")]:
        text = text_of(client.get(url))
        assert "A public finding." in text
        assert "A draft finding nobody may see." not in text
        assert "An unpublished paper" not in text
    draft_note = ResearchNoteFactory(draft=True)
    ClaimFactory(statement="Only in a draft note.").notes.add(draft_note)
    assert client.get(draft_note.get_absolute_url()).status_code == 404


def test_contested_and_superseded_claims_link_their_evidence(client, demo):
    layer = Layer.objects.get(slug="rewards")
    citation = CitationFactory(citing_paper__title="A paper that disagrees")
    contested = ClaimFactory(statement="Contested finding.", evidence_status="contested")
    contested.contrasting_citations.add(citation)
    newer = ClaimFactory(statement="The newer finding.", figure="4×", unit="newer figure")
    older = ClaimFactory(
        statement="The older finding.", evidence_status="superseded", superseded_by=newer
    )
    for claim in [contested, newer, older]:
        claim.layers.add(layer)
    response = client.get(layer.get_absolute_url())
    html, text = response.content.decode(), text_of(response)
    assert "Contested by A paper that disagrees" in text
    assert f'href="{citation.citing_paper.get_absolute_url()}"' in html
    assert f'href="/claims/#claim-{newer.slug}">4× newer figure</a>' in html
    # Contested and superseded come after the reported claims.
    assert text.index("Reported (not reproduced)") < text.index("Contested (1)")
    assert text.index("Contested (1)") < text.index("Superseded (1)")


def test_home_caveat_is_computed_from_the_data(client, demo):
    text = text_of(client.get("/"))
    assert "All three items report figures not yet reproduced" in text
    assert "2 of the 4 figures were measured in more than one setup by their authors" in text
    assert "All three items are new preprints" not in text  # the hand-written copy is gone

    # A fourth featured item changes the count; a reproduced claim changes the wording.
    note = ResearchNoteFactory(is_featured=True, title="A fourth item")
    ClaimFactory(evidence_status="reproduced", reproduced_by="Lab C").notes.add(note)
    text = text_of(client.get("/"))
    assert "All three items" not in text
    assert (
        "Of the 5 figures above, 1 has been reproduced, 4 are reported and not yet reproduced"
        in (text)
    )
    assert "Treat the reported numbers as results from particular setups" in text


def test_home_caveat_drops_the_warning_when_nothing_is_merely_reported(client, db):
    note = ResearchNoteFactory(is_featured=True)
    ClaimFactory(evidence_status="reproduced", reproduced_by="Lab C").notes.add(note)
    text = text_of(client.get("/"))
    assert "Treat the reported numbers" not in text


def test_home_cards_show_each_figures_status_badge(client, demo):
    html = client.get("/").content.decode()
    assert re.search(
        r"<dt>2\.29×</dt><dd>higher generation throughput "
        r'<span class="badge badge--reported">Reported \(not reproduced\)</span>',
        html,
    )


def test_home_query_count_stays_pinned_with_claims(client, demo, django_assert_max_num_queries):
    for _ in range(10):
        note = ResearchNoteFactory(is_featured=True)
        ClaimFactory.create_batch(2, evidence_status="reported")[0].notes.add(note)
    with django_assert_max_num_queries(HOME_QUERY_CEILING):
        client.get("/")


def test_claims_page_filters_by_layer_and_status(client, demo):
    response = client.get(reverse("evidence:claims"), {"layer": "evaluation"})
    text = text_of(response)
    assert "91.9% on AIME" in text
    assert "2.29×" not in text
    response = client.get(reverse("evidence:claims"), {"status": "reproduced"})
    assert "No claims match." in text_of(response)


@pytest.mark.parametrize("query", [{"layer": "nope"}, {"status": "settled"}])
def test_claims_page_refuses_unknown_filters(client, demo, query):
    response = client.get(reverse("evidence:claims"), query)
    assert response.status_code == 400
    assert "not an evidence status" in text_of(response) or "no layer" in text_of(response)


def test_claims_page_query_count_does_not_grow(client, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(CLAIMS_QUERY_CEILING):
        client.get(reverse("evidence:claims"))
    for _ in range(20):
        claim = ClaimFactory()
        claim.papers.add(PaperFactory())
        claim.layers.add(LayerFactory())
    with django_assert_max_num_queries(CLAIMS_QUERY_CEILING):
        assert client.get(reverse("evidence:claims")).status_code == 200


def test_a_claim_needs_what_its_status_says():
    with pytest.raises(ValidationError) as error:
        Claim(slug="x", statement="x", evidence_status="reproduced").full_clean()
    assert "reproduced_by" in error.value.message_dict
    with pytest.raises(ValidationError) as error:
        Claim(slug="x", statement="x", evidence_status="superseded").full_clean()
    assert "superseded_by" in error.value.message_dict
    with pytest.raises(ValidationError) as error:
        Claim(
            slug="x",
            statement="x",
            last_reviewed=datetime.date(2026, 9, 1),
            review_due=datetime.date(2026, 8, 1),
        ).full_clean()
    assert "review_due" in error.value.message_dict


def test_an_editor_adds_a_claim_in_the_admin_and_it_shows(demo, editor_client, client):
    add_url = reverse("admin:bottlenecks_claim_add")
    data = admin_form_data(editor_client.get(add_url), Claim)
    layer = Layer.objects.get(slug="rewards")
    data |= {
        "statement": ["Verifier ensembles halve reward hacking."],
        "slug": ["verifier-ensembles-halve-reward-hacking"],
        "figure": ["50%"],
        "unit": ["less reward hacking"],
        "evidence_status": ["reported"],
        "layers": [str(layer.pk)],
        "status": ["published"],
    }
    response = editor_client.post(add_url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    claim = Claim.objects.get(slug="verifier-ensembles-halve-reward-hacking")
    assert claim.history.first().history_user.username == "editor"

    assert "50% less reward hacking" in text_of(client.get(layer.get_absolute_url()))
    step3 = client.get(reverse("evidence:diagnose-tests"), {"signal": "environment-shortcuts"})
    assert "Verifier ensembles halve reward hacking." in text_of(step3)


def test_the_admin_refuses_a_reproduced_claim_without_who(demo, editor_client):
    add_url = reverse("admin:bottlenecks_claim_add")
    data = admin_form_data(editor_client.get(add_url), Claim)
    data |= {"statement": ["x"], "slug": ["x"], "evidence_status": ["reproduced"]}
    response = editor_client.post(add_url, data)
    assert response.status_code == 200
    assert "Say who reproduced it." in response.content.decode()
    assert not Claim.objects.filter(slug="x").exists()


def test_evidence_strip_counts_claims_and_papers_per_quarter(client, db):
    layer = LayerFactory(slug="strip")
    for day in [datetime.date(2025, 1, 5), datetime.date(2025, 2, 9), datetime.date(2025, 7, 1)]:
        PaperFactory(publication_date=day).layers.add(layer)
    PaperFactory(publication_date=datetime.date(2025, 3, 1), draft=True).layers.add(layer)
    ClaimFactory(reported_on=datetime.date(2025, 8, 30)).layers.add(layer)
    ClaimFactory(reported_on=None).layers.add(layer)
    ClaimFactory(reported_on=datetime.date(2025, 1, 1), draft=True).layers.add(layer)

    timeline = EvidenceTimeline.for_layer(layer)
    assert [(bar.label, bar.papers, bar.claims) for bar in timeline.bars] == [
        ("2025 Q1", 2, 0),
        ("2025 Q2", 0, 0),
        ("2025 Q3", 1, 1),
    ]
    assert timeline.undated_claims == 1

    response = client.get(layer.get_absolute_url())
    html = response.content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert 'role="img"' in svg and "<title" in svg
    assert " style=" not in html  # the strict CSP allows no inline styles
    assert svg.count('class="evidence-strip__papers"') == 2
    assert svg.count('class="evidence-strip__claims"') == 1
    # The table behind the chart lists the quarters that have something.
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th><td>(\d+)</td><td>(\d+)</td></tr>', html)
    assert rows == [("2025 Q1", "2", "0"), ("2025 Q3", "1", "1")]


def test_a_layer_without_dated_evidence_has_no_strip(client, db):
    layer = LayerFactory()
    assert "Evidence over time" not in text_of(client.get(layer.get_absolute_url()))
