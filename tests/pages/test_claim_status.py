"""Claim status follows the evidence: "not reproduced" is not "one setup" (setups are counted
from the data), "contested" names what contests it, a contrasting citation of a claim's paper
proposes "contested" and queues the claim for review, and the editors' dashboard lists the
claims whose evidence changed since their last review and the evidence with no source."""

import datetime
import itertools

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from evidence.models import Claim, EvidenceStatus
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    ClaimFactory,
    PaperFactory,
)
from tests.helpers import admin_form_data, text_of

pytestmark = pytest.mark.django_db

CLAIMS, INDEX = reverse("evidence:claims"), reverse("admin:index")


@pytest.fixture
def contrasting(db):
    return CitationPolarityFactory(slug="contrasting", name="Contrasting", order=20)


@pytest.fixture
def supporting(db):
    return CitationPolarityFactory(slug="supporting", name="Supporting", order=10)


ARXIV_IDS = (f"2501.{n:05d}" for n in itertools.count(1000))


def claim_on_paper(**fields):
    paper = PaperFactory(title="Claimed paper", arxiv_id=next(ARXIV_IDS))
    claim = ClaimFactory(**fields)
    claim.papers.add(paper)
    return claim, paper


# -- not reproduced is not one setup --------------------------------------------------------


def test_the_status_says_not_reproduced_and_setups_come_from_the_data(demo, client):
    text = text_of(client.get(CLAIMS))
    assert "one setup" not in text.lower()
    assert "Reported (not reproduced) · 2 setups" in text  # Locked at the Entrance
    assert "Reported (not reproduced) · 3 setups" in text  # TASPO, three benchmarks
    locked = Claim.objects.get(slug="rlvr-67-percent-coverage-fall")
    assert locked.setup_count == 2 and locked.status_text.endswith("2 setups")
    undisclosed = Claim.objects.get(slug="batch-29-percent-time-to-target")
    assert undisclosed.setup_count is None and undisclosed.status_text == (
        "Reported (not reproduced)"
    )


def test_the_home_caution_counts_setups_instead_of_asserting_one(demo, client):
    text = text_of(client.get("/"))
    assert "from a single setup" not in text
    assert "All three items report figures not yet reproduced" in text
    assert "2 of the 4 figures were measured in more than one setup by their authors" in text


# -- contested names what contests it ---------------------------------------------------------


def test_contested_requires_naming_what_contests_it(db):
    claim = ClaimFactory(evidence_status=EvidenceStatus.CONTESTED)
    with pytest.raises(ValidationError) as error:
        claim.full_clean()
    assert "contested_by" in error.value.message_dict
    claim.contested_by = "A replication at 70B found no gain."
    claim.full_clean()  # a described result names it


def test_a_saved_contrasting_citation_names_what_contests_it(db):
    claim, paper = claim_on_paper(evidence_status=EvidenceStatus.CONTESTED)
    claim.contrasting_citations.add(CitationFactory(cited_paper=paper))
    claim.full_clean()


def test_the_admin_refuses_contested_without_a_contesting_citation_or_result(
    editor_client, contrasting
):
    claim, paper = claim_on_paper()
    url = reverse("admin:bottlenecks_claim_change", args=[claim.pk])
    data = admin_form_data(editor_client.get(url), Claim)
    data |= {
        "evidence_status": "contested",
        "status": "published",
        "published_at_0": timezone.localdate().isoformat(),
        "published_at_1": "00:00:00",
        "papers": [paper.pk],
    }
    response = editor_client.post(url, data)
    assert response.status_code == 200  # the form again, with the error
    assert "Say what contests it" in response.content.decode()
    claim.refresh_from_db()
    assert claim.evidence_status == EvidenceStatus.REPORTED  # nothing changed
    citation = CitationFactory(cited_paper=paper, polarity=contrasting)
    data["contrasting_citations"] = [citation.pk]
    data["edit_version"] = Claim.objects.get(pk=claim.pk).version
    response = editor_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    claim.refresh_from_db()
    assert claim.evidence_status == EvidenceStatus.CONTESTED


# -- a contrasting citation proposes contested ------------------------------------------------


def test_a_contrasting_citation_proposes_contested_and_queues_a_review(contrasting):
    claim, paper = claim_on_paper(last_reviewed=datetime.date(2026, 1, 5))
    assert not Claim.objects.evidence_changed_since_review().filter(pk=claim.pk).exists()
    citer = PaperFactory(title="A paper that disagrees")
    CitationFactory(citing_paper=citer, cited_paper=paper, polarity=contrasting)
    claim.refresh_from_db()
    assert claim.evidence_status == EvidenceStatus.REPORTED  # readers see no change yet
    assert claim.proposed_status == EvidenceStatus.CONTESTED
    assert "A paper that disagrees" in claim.proposal_reason
    assert claim.review_due == timezone.localdate()
    assert Claim.objects.evidence_changed_since_review().filter(pk=claim.pk).exists()


def test_a_citation_classified_as_contrasting_later_proposes_contested(contrasting, supporting):
    claim, paper = claim_on_paper()
    citation = CitationFactory(cited_paper=paper, polarity=supporting)
    claim.refresh_from_db()
    assert claim.proposed_status == "" and claim.evidence_changed_at is not None
    citation.polarity = contrasting
    citation.save()
    claim.refresh_from_db()
    assert claim.proposed_status == EvidenceStatus.CONTESTED


def test_a_citation_edit_that_changes_nothing_the_claim_rests_on_is_not_a_change(supporting):
    claim, paper = claim_on_paper()
    citation = CitationFactory(cited_paper=paper, polarity=supporting)
    Claim.objects.filter(pk=claim.pk).update(evidence_changed_at=None)
    citation.save()
    claim.refresh_from_db()
    assert claim.evidence_changed_at is None


def test_reviewing_the_claim_settles_the_proposal(contrasting):
    claim, paper = claim_on_paper()
    CitationFactory(cited_paper=paper, polarity=contrasting)
    claim.refresh_from_db()
    claim.last_reviewed = timezone.localdate()
    claim.save()
    claim.refresh_from_db()
    assert claim.proposed_status == ""
    assert not Claim.objects.evidence_changed_since_review().filter(pk=claim.pk).exists()


def test_accepting_the_proposal_names_the_contrasting_citation(editor_client, contrasting):
    claim, paper = claim_on_paper()
    citation = CitationFactory(cited_paper=paper, polarity=contrasting)
    changelist = reverse("admin:bottlenecks_claim_changelist")
    response = editor_client.post(
        changelist, {"action": "accept_proposed_status", "_selected_action": [claim.pk]}
    )
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.evidence_status == EvidenceStatus.CONTESTED
    assert list(claim.contrasting_citations.all()) == [citation]
    assert claim.proposed_status == ""
    claim.full_clean()


# -- the dashboard ----------------------------------------------------------------------------


def test_the_dashboard_lists_claims_whose_evidence_changed_and_those_without_source(
    editor_client, contrasting
):
    claim, paper = claim_on_paper(figure="4.2×", unit="faster")
    CitationFactory(cited_paper=paper, polarity=contrasting)
    bare = ClaimFactory(figure="7.7×", unit="cheaper")
    bare.papers.add(PaperFactory(arxiv_id="", doi="", url=""))
    page = text_of(editor_client.get(INDEX))
    assert "1 claim whose evidence changed since the last review" in page
    assert "4.2× faster: proposed contested" in page
    assert "with no source on record (no arXiv id, DOI or URL)" in page
    assert "7.7× cheaper" in page
    from web.dashboard import editor_dashboard

    request = editor_client.get(INDEX).wsgi_request
    for section in editor_dashboard(request):
        if section.title not in {"Claims to review", "Evidence without a source on record"}:
            continue
        for line in section.lines:
            response = editor_client.get(line.url)
            assert response.status_code == 200, line.url
            if line.count is not None:
                assert response.context["cl"].result_count == line.count, line.url


def test_the_dashboard_claim_sections_need_the_same_queries_for_more_claims(
    editor_client, contrasting, django_assert_max_num_queries
):
    def more(count):
        for _ in range(count):
            claim, paper = claim_on_paper()
            CitationFactory(cited_paper=paper, polarity=contrasting)
            ClaimFactory().papers.add(PaperFactory(arxiv_id="", doi="", url=""))

    more(2)
    with django_assert_max_num_queries(200) as few:
        editor_client.get(INDEX)
    more(8)
    with django_assert_max_num_queries(len(few)):
        editor_client.get(INDEX)


def test_a_proposal_stays_with_the_editors(contrasting, client):
    """The public claims page, the API and the dump say nothing of a proposed status."""
    from web.dump import public_fields

    claim, paper = claim_on_paper(statement="A claim under review.")
    CitationFactory(cited_paper=paper, polarity=contrasting)
    assert {"proposed_status", "proposal_reason", "evidence_changed_at"}.isdisjoint(
        public_fields(Claim)
    )
    text = text_of(client.get(CLAIMS))
    assert "A claim under review." in text and "proposed" not in text.lower()
    api = client.get("/api/v1/claims/")
    assert api.status_code == 200 and b"A claim under review." in api.content
    assert b"proposed" not in api.content
