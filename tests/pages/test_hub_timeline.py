"""The hub's timeline (issue 12): citing papers per quarter by role and by polarity, drawn as
server-rendered SVG (no inline styles) with the same numbers in a table, the year-only and
undated papers stated beside it; no query per quarter."""

import datetime
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import CitationFactory, PaperFactory, timeline_hub
from tests.helpers import ART_OF_SCALING, HUB_QUERY_CEILING, inline_scripts, text_of

pytestmark = pytest.mark.django_db


def timeline_section(response):
    html = response.content.decode()
    match = re.search(r'<section id="timeline".*?</section>', html, re.S)
    assert match, "no timeline on the page"
    return match.group(0)


def table_rows(section):
    """The timeline table as [[cell text, ...], ...], header rows included."""
    table = re.search(r'<table class="timeline__table">.*?</table>', section, re.S).group(0)
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd]\b.*?</t[hd]>", row, re.S)
        ]
        for row in re.findall(r"<tr\b.*?</tr>", table, re.S)
    ]


@pytest.fixture
def hub_page(client):
    hub = timeline_hub()
    response = client.get(hub.get_absolute_url())
    assert response.status_code == 200
    return response


def test_the_hub_draws_the_timeline_by_role_and_by_polarity(hub_page):
    section = timeline_section(hub_page)
    charts = re.findall(r"<svg class=\"timeline__chart\"[^>]*>", section)
    assert len(charts) == 2
    for chart_id in ("timeline-role", "timeline-polarity"):
        assert f'aria-labelledby="{chart_id}-title {chart_id}-desc"' in section
        assert f'<title id="{chart_id}-title">' in section
        assert f'<desc id="{chart_id}-desc">' in section
    assert all('role="img"' in chart for chart in charts)
    # Five quarter slots in each chart, 2024 Q2 and Q3 empty; the years labelled, not quarters.
    assert section.count('<rect class="timeline__hover"') == 10
    assert section.count("<title>2024 Q2: 0 citing papers</title>") == 2
    assert section.count('<path class="timeline__segments timeline__series--1"') == 2
    assert ">2024</text>" in section and ">2025</text>" in section
    assert "Q1</text>" not in section
    assert ' style="' not in section
    assert inline_scripts(hub_page.content.decode()) == []


def test_the_year_only_and_undated_papers_are_stated_beside_the_chart(hub_page):
    assert (
        "4 of 7 citing papers are placed in a quarter (2024 Q1 to 2025 Q1); 1 is dated only to "
        "a year (2023: 1) and 2 have no known date, so they are in no quarter."
    ) in text_of(hub_page)


def test_the_table_behind_the_charts_has_every_number(hub_page):
    rows = table_rows(timeline_section(hub_page))
    assert rows[0] == ["When", "Citing papers", "By role", "By polarity"]
    assert rows[1] == [
        "Background", "Method", "Not yet classified",
        "Supporting", "Contrasting", "Not yet classified",
    ]  # fmt: skip
    assert rows[2:] == [
        ["2024 Q1", "2", "1", "1", "0", "2", "0", "0"],
        ["2024 Q2", "0", "0", "0", "0", "0", "0", "0"],
        ["2024 Q3", "0", "0", "0", "0", "0", "0", "0"],
        ["2024 Q4", "1", "1", "0", "0", "0", "1", "0"],
        ["2025 Q1", "1", "0", "0", "1", "0", "0", "1"],
        ["2023 (year only)", "1", "1", "0", "0", "1", "0", "0"],
        ["Date unknown", "2", "1", "1", "0", "1", "1", "0"],
        ["All", "7", "4", "2", "1", "4", "2", "1"],
    ]


def test_a_paper_nobody_cites_has_no_timeline(client):
    paper = PaperFactory()
    assert 'id="timeline"' not in client.get(paper.get_absolute_url()).content.decode()


def test_the_demo_hub_shows_its_timeline(client, demo):
    response = client.get(f"/papers/{ART_OF_SCALING}/")
    section = timeline_section(response)
    assert "How the citing changes over time" in section
    assert response.context["timeline"].total == response.context["summary"].total == 30


def hub_with_quarters(count):
    hub = PaperFactory()
    for index in range(count):
        year, quarter = 2015 + index // 4, index % 4
        CitationFactory(
            cited_paper=hub,
            citing_paper=PaperFactory(publication_date=datetime.date(year, 3 * quarter + 1, 5)),
        )
    return hub


def test_the_chart_adds_no_query_per_quarter(client):
    counts = []
    for quarters in (1, 48):
        hub = hub_with_quarters(quarters)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(hub.get_absolute_url())
        assert len(response.context["timeline"].quarters) == quarters
        counts.append(len(queries))
    assert counts[0] == counts[1] <= HUB_QUERY_CEILING
    # 2015 Q1 to 2026 Q4 in 48 slots: twelve years, every other one labelled in each chart.
    years = [str(year) for year in range(2015, 2027, 2)]
    assert re.findall(r">(\d{4})</text>", timeline_section(response)) == years * 2
