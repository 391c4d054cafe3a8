"""A hub's representative citing papers (issue 12 point 4): a short editor-chosen list, at most
REPRESENTATIVE_LIMIT per cited paper, each with the editor's one-line reason."""

import pytest
from django.core.exceptions import ValidationError

from citations.models import REPRESENTATIVE_LIMIT, Citation
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db


def flagged(cited, count):
    return [
        CitationFactory(cited_paper=cited, is_representative=True, representative_reason="Why")
        for _ in range(count)
    ]


def test_the_limit_is_six():
    assert REPRESENTATIVE_LIMIT == 6


def test_a_seventh_representative_is_refused_naming_the_limit():
    cited = PaperFactory()
    flagged(cited, REPRESENTATIVE_LIMIT)
    edge = CitationFactory(cited_paper=cited)
    edge.is_representative, edge.representative_reason = True, "Also good"
    with pytest.raises(ValidationError) as refused:
        edge.full_clean()
    message = refused.value.message_dict["is_representative"][0]
    assert "already has 6 representative citing papers; a hub has at most 6" in message


def test_the_sixth_is_accepted_and_other_hubs_do_not_count():
    cited = PaperFactory()
    flagged(cited, REPRESENTATIVE_LIMIT - 1)
    flagged(PaperFactory(), REPRESENTATIVE_LIMIT)
    edge = CitationFactory(cited_paper=cited, is_representative=True, representative_reason="Ok")
    edge = Citation.objects.get(pk=edge.pk)
    edge.full_clean()  # already flagged: nothing new
    fresh = Citation(
        citing_paper=PaperFactory(),
        cited_paper=PaperFactory(),
        is_representative=True,
        representative_reason="First of its hub",
    )
    fresh.full_clean()


def test_a_representative_needs_the_editors_reason():
    edge = Citation.objects.get(pk=CitationFactory().pk)
    edge.is_representative = True
    with pytest.raises(ValidationError) as refused:
        edge.full_clean()
    assert "representative_reason" in refused.value.message_dict
    edge.representative_reason = "The clearest use of the recipe."
    edge.full_clean()
    edge.save()
    edge = Citation.objects.get(pk=edge.pk)
    edge.representative_reason = " "
    with pytest.raises(ValidationError):
        edge.full_clean()  # the reason cannot be cleared while the flag stays


def test_a_hub_flagged_before_the_limit_stays_editable_but_gains_no_flag():
    cited = PaperFactory()
    old = [CitationFactory(cited_paper=cited, is_representative=True) for _ in range(8)]
    edge = Citation.objects.get(pk=old[0].pk)
    edge.context = "A fixed typo."
    edge.full_clean()  # no reason and over the limit, but nothing about the flag changed
    newcomer = Citation.objects.get(pk=CitationFactory(cited_paper=cited).pk)
    newcomer.is_representative, newcomer.representative_reason = True, "Newer"
    with pytest.raises(ValidationError, match="already has 8"):
        newcomer.full_clean()


def test_the_hub_shows_at_most_six_reasoned_first():
    cited = PaperFactory()
    unreasoned = [CitationFactory(cited_paper=cited, is_representative=True) for _ in range(5)]
    reasoned = flagged(cited, 3)
    shown = cited.representative_citations()
    assert len(shown) == REPRESENTATIVE_LIMIT
    assert {edge.pk for edge in shown[:3]} == {edge.pk for edge in reasoned}
    assert {edge.pk for edge in shown[3:]} < {edge.pk for edge in unreasoned}
