"""A hub's figures all come from CitationSummary: the page, its explorer and the API read them
from there and do no arithmetic of their own."""

import pytest

from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def hub():
    hub = PaperFactory()
    background = CitationRoleFactory(slug="background", name="Background")
    neutral = CitationPolarityFactory(slug="neutral", name="Neutral")
    CitationFactory(cited_paper=hub, role=background, polarity=neutral)
    CitationFactory(cited_paper=hub, role=background)
    CitationFactory(cited_paper=hub)
    return hub


def test_the_summary_counts_classified_and_unclassified_on_each_axis(hub):
    summary = hub.citation_summary()
    assert (summary.total, summary.role_classified, summary.role_unclassified) == (3, 2, 1)
    assert (summary.polarity_classified, summary.polarity_unclassified) == (1, 2)
    assert summary.count_of("role", "background") == 2
    assert summary.count_of("polarity", "neutral") == 1
    assert summary.count_of("role", "method") == 0


def test_the_summary_knows_what_the_explorer_lists(hub):
    summary = hub.citation_summary()
    assert summary.count_for() == 3
    assert summary.count_for(role="background") == 2
    assert summary.count_for(polarity="neutral") == 1
    assert summary.count_for(role="background", polarity="neutral") == 1  # from the pairs
    assert summary.count_for(role="background", polarity="supporting") == 0
    # The matrix's "not classified" column: edges without a polarity.
    assert summary.count_for(no_polarity=True) == 2
    assert summary.count_for(role="background", no_polarity=True) == 1
    assert summary.count_for(unclassified=True, no_polarity=True) == 1
    assert summary.count_for(polarity="neutral", no_polarity=True) == 0


def test_the_hub_page_shows_the_summarys_figures(client, hub):
    response = client.get(hub.get_absolute_url())
    content, text = response.content.decode(), text_of(response)
    assert "2 of 3 classified by role" in text and "1 of 3 classified by polarity" in text
    assert "3 in all; choose a cell to list them. 1 has no role yet." in text
    assert "Background (2)" in content and "Neutral (1)" in content
