"""Issue 12 points 2 and 3: the citing sentence reaches readers (quoted under each citing paper,
with its section when known, and searchable), and the explorer filters by year (one year or a
range), bottleneck layer, unclassified only, has-context, institution and text within the
citing papers. Bad values answer 400 with the form's errors; unknown parameters (utm_source)
are ignored; the page's query count stays pinned with every filter."""

import datetime

import pytest
from django.urls import reverse

from citations.models import Citation, Paper
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    LayerFactory,
    PaperFactory,
)
from tests.helpers import ART_OF_SCALING, HUB_QUERY_CEILING, text_of

pytestmark = pytest.mark.django_db

HUB = reverse("citations:paper-detail", kwargs={"slug": ART_OF_SCALING})
SENTENCE = "We follow the sigmoidal compute-performance fit of ScaleRL for our 8B runs."


def titles(response):
    return [edge.citing_paper.title for edge in response.context["explorer_page"].object_list]


def explorer_html(response):
    return response.content.decode().split('id="explorer"')[1]


@pytest.fixture
def hub():
    """A hub with five citing papers of known years, layers, institutions and sentences."""
    hub = PaperFactory(title="The hub", is_canonical_reference=True)
    method = CitationRoleFactory(slug="method", name="Method")
    supporting = CitationPolarityFactory(slug="supporting", name="Supporting")
    rollouts = LayerFactory(slug="rollouts", name="Rollouts")
    rows = [
        ("Old classified", 2023, "Alpha Lab", method, SENTENCE, "Section 4.2"),
        ("Mid unclassified", 2024, "Beta University", None, "", ""),
        ("New unclassified", 2025, "Gamma Institute", None, "As shown by prior work [12].", ""),
        ("Newest classified", 2026, "Beta University", method, "", ""),
        ("Undated", None, "Delta Lab", None, "", ""),
    ]
    for title, year, institution, role, context, section in rows:
        citing = PaperFactory(
            title=title,
            publication_date=datetime.date(year, 5, 1) if year else None,
            byline=institution,
            institution=institution,
            in_research_index=False,
        )
        if year == 2024:
            citing.layers.add(rollouts)
        CitationFactory(
            citing_paper=citing,
            cited_paper=hub,
            role=role,
            polarity=supporting if role else None,
            context=context,
            context_section=section,
        )
    return hub


def test_the_citing_sentence_is_quoted_under_its_citing_paper_with_its_section(client, hub):
    response = client.get(hub.get_absolute_url())
    html = explorer_html(response)
    item = html.split("Old classified")[1].split("</li>")[0]
    assert '<blockquote class="citing-sentence">' in item
    assert f"“{SENTENCE}”" in item
    assert "Section 4.2" in item
    newest = html.split("Newest classified")[1].split("</li>")[0]
    assert "citing-sentence" not in newest  # no sentence known: nothing shown


def test_the_citing_sentence_is_escaped(client, hub):
    edge = Citation.objects.get(citing_paper__title="Old classified")
    edge.context = "<script>alert(1)</script> cites it"
    edge.save()
    html = client.get(hub.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; cites it" in html


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "sigmoidal compute-performance"}, ["Old classified"]),  # the citing sentence
        ({"q": "prior work"}, ["New unclassified"]),
        ({"q": "Newest"}, ["Newest classified"]),  # the citing paper's title
        ({"q": "Gamma Institute"}, ["New unclassified"]),
        ({"year": "2024"}, ["Mid unclassified"]),
        ({"year_from": "2024"}, ["Newest classified", "New unclassified", "Mid unclassified"]),
        ({"year_to": "2024"}, ["Mid unclassified", "Old classified"]),
        ({"year_from": "2024", "year_to": "2025"}, ["New unclassified", "Mid unclassified"]),
        ({"layer": "rollouts"}, ["Mid unclassified"]),
        ({"unclassified": "on"}, ["New unclassified", "Mid unclassified", "Undated"]),
        ({"has_context": "on"}, ["New unclassified", "Old classified"]),
        ({"institution": "beta"}, ["Newest classified", "Mid unclassified"]),
        ({"unclassified": "on", "has_context": "on"}, ["New unclassified"]),
        ({"role": "method", "year_to": "2023"}, ["Old classified"]),
        ({"role": "method", "unclassified": "on"}, []),
        ({"utm_source": "newsletter"}, None),  # ignored: every citing paper
    ],
)
def test_each_filter_narrows_the_citing_papers(client, hub, params, expected):
    response = client.get(hub.get_absolute_url(), params)
    assert response.status_code == 200
    every = ["Newest classified", "New unclassified", "Mid unclassified", "Old classified"]
    assert titles(response) == (expected if expected is not None else [*every, "Undated"])
    count = response.context["explorer_page"].paginator.count
    assert count == len(titles(response))
    if expected is not None:
        assert f"{count} of 5 citing paper" in text_of(response)


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"year": "last year"}, "Enter a whole number."),
        ({"year": "1200"}, "greater than or equal to 1900"),
        ({"year_from": "2026", "year_to": "2020"}, "The range ends before it starts."),
        ({"layer": "no-such-layer"}, "Select a valid choice."),
        ({"unclassified": "banana"}, "Tick the box or leave it empty."),
        ({"has_context": "maybe"}, "Tick the box or leave it empty."),
        ({"q": "x" * 201}, "at most 200 characters"),
        ({"role": "no-such-role"}, "Select a valid choice."),
    ],
)
def test_bad_filter_values_answer_400_with_the_forms_errors(client, hub, params, error):
    response = client.get(hub.get_absolute_url(), params)
    assert response.status_code == 400
    text = text_of(response)
    assert error in text
    assert "That filter could not be used." in text


def test_a_draft_layer_is_not_a_choice(client, hub):
    LayerFactory(slug="hidden-layer", draft=True)
    assert client.get(hub.get_absolute_url(), {"layer": "hidden-layer"}).status_code == 400


def test_the_form_shows_the_filters_it_applied(client, hub):
    response = client.get(
        hub.get_absolute_url(), {"q": "prior", "year_from": "2024", "unclassified": "on"}
    )
    html = explorer_html(response)
    assert 'name="q" value="prior"' in html
    assert 'name="year_from" value="2024"' in html
    assert (
        'name="unclassified" checked' in html
        or 'checked name="unclassified"' in html
        or (
            'name="unclassified"' in html and "checked" in html.split('name="unclassified"')[1][:80]
        )
    )


def test_the_explorer_search_reaches_the_seed_hub(client, demo):
    edge = Citation.objects.get(
        cited_paper__slug=ART_OF_SCALING,
        citing_paper__slug="weblica-scalable-and-reproducible-training-environments-for-visual-web-agents",
    )
    edge.context = "Following ScaleRL, we fit a sigmoid to the pass rate."
    edge.save()
    response = client.get(HUB, {"q": "fit a sigmoid"})
    assert [t[:7] for t in titles(response)] == ["Weblica"]
    assert "“Following ScaleRL, we fit a sigmoid to the pass rate.”" in explorer_html(response)
    assert "1 of 30 citing paper " in text_of(response)


EVERY_FILTER = [
    {},
    {"role": "background"},
    {"role": "background", "polarity": "neutral"},
    {"year": "2025"},
    {"year_from": "2024", "year_to": "2026"},
    {"layer": "rollouts"},
    {"unclassified": "on"},
    {"unclassified": "on", "polarity": "neutral"},
    {"has_context": "on"},
    {"q": "policy optimization"},
    {"institution": "university"},
    {"provenance": "editor"},
    {
        "role": "background",
        "polarity": "neutral",
        "year_from": "2020",
        "year_to": "2026",
        "layer": "rollouts",
        "unclassified": "on",
        "has_context": "on",
        "q": "policy",
        "institution": "lab",
        "page": "1",
    },
    {"utm_source": "newsletter", "utm_medium": "email"},
]


@pytest.mark.parametrize("params", EVERY_FILTER)
def test_the_hub_query_count_is_pinned_with_every_filter(
    client, demo, params, django_assert_max_num_queries
):
    with django_assert_max_num_queries(HUB_QUERY_CEILING):
        response = client.get(HUB, params)
    assert response.status_code == 200


def test_the_summary_knows_the_count_of_the_pairs_and_the_unclassified(client, hub):
    """No COUNT query for filters the summary already counted."""
    summary = Paper.objects.get(pk=hub.pk).citation_summary()
    assert summary.count_for(unclassified=True) == 3
    assert summary.count_for(role="method", polarity="supporting") == 2
    assert summary.count_for(polarity="supporting", unclassified=True) == 0
    assert summary.count_for(role="method", unclassified=True) == 0
