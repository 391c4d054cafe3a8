"""How the citing changes over time (issue 12): a hub's public citing papers per quarter by role
and polarity, counted in one GROUP BY; papers dated only to a year or not at all are counted
apart, never put in a made-up quarter; drafts are never counted."""

import datetime

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citations.models import DatePrecision
from citations.stats.timeline import Quarter, TimelineChart, nice_ceiling
from tests.factories import CitationFactory, PaperFactory, timeline_hub

pytestmark = pytest.mark.django_db


@pytest.fixture
def hub():
    return timeline_hub()


def quarter_rows(timeline):
    return [
        (
            quarter.key,
            bucket.total,
            {one.slug: n for one, n in bucket.counts("role", timeline.roles)},
            {one.slug: n for one, n in bucket.counts("polarity", timeline.polarities)},
        )
        for quarter, bucket in timeline.quarters
    ]


def test_every_quarter_from_the_first_to_the_last_with_its_roles_and_polarities(hub):
    timeline = hub.citing_timeline()
    nothing = {"background": 0, "method": 0, None: 0}
    no_polarity = {"supporting": 0, "contrasting": 0, None: 0}
    assert quarter_rows(timeline) == [
        (
            "2024-Q1",
            2,
            {**nothing, "background": 1, "method": 1},
            {**no_polarity, "supporting": 2},
        ),
        ("2024-Q2", 0, nothing, no_polarity),
        ("2024-Q3", 0, nothing, no_polarity),
        ("2024-Q4", 1, {**nothing, "background": 1}, {**no_polarity, "contrasting": 1}),
        ("2025-Q1", 1, {**nothing, None: 1}, {**no_polarity, None: 1}),
    ]


def test_year_only_and_unknown_dates_are_in_no_quarter(hub):
    timeline = hub.citing_timeline()
    assert [(year, bucket.total) for year, bucket in timeline.year_only] == [(2023, 1)]
    assert timeline.undated.total == 2
    assert timeline.undated.by_role == {"method": 1, "background": 1}
    assert (timeline.dated, timeline.year_only_total, timeline.total) == (4, 1, 7)
    assert timeline.description == (
        "4 of 7 citing papers are placed in a quarter (2024 Q1 to 2025 Q1); 1 is dated only "
        "to a year (2023: 1) and 2 have no known date, so they are in no quarter."
    )


def test_the_timeline_counts_what_the_summary_counts(hub):
    assert hub.citing_timeline().total == hub.citation_summary().total == 7


def test_series_follow_the_vocabulary_order_and_unclassified_comes_last(hub):
    timeline = hub.citing_timeline()
    assert [one.slug for one in timeline.roles] == ["background", "method", None]
    assert [one.slug for one in timeline.polarities] == ["supporting", "contrasting", None]
    assert timeline.roles[-1].css_class == "timeline__series--none"


def test_the_timeline_is_one_query(hub, django_assert_num_queries):
    with django_assert_num_queries(1):
        hub.citing_timeline()


def test_one_read_of_the_stored_groups_gives_the_timeline_and_the_summary(
    hub, django_assert_num_queries
):
    """As the hub page reads them: once, for both."""
    counted_alone = hub._count_citation_summary()
    with django_assert_num_queries(1):
        groups = hub.citing_groups()
        hub.citing_timeline(groups)
        summary = hub.citation_summary(groups)
    assert vars(summary) == vars(counted_alone)
    assert summary.pairs[(None, None)] == 1


def test_the_query_does_not_grow_with_the_quarters(django_assert_num_queries):
    hub = PaperFactory()
    for month in range(0, 48 * 3, 3):  # 48 quarters, 2015 to 2026
        CitationFactory(
            cited_paper=hub,
            citing_paper=PaperFactory(
                publication_date=datetime.date(2015 + month // 12, month % 12 + 1, 1)
            ),
        )
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        timeline = hub.citing_timeline()
        drawn = [timeline.role_chart.bars, timeline.polarity_chart.bars, timeline.table_rows]
    assert len(queries) == 1
    assert [len(rows) for rows in drawn] == [48, 48, 48]
    assert len(timeline.quarters) == 48
    assert (timeline.first.key, timeline.last.key) == ("2015-Q1", "2026-Q4")


def test_a_paper_nobody_cites_has_an_empty_timeline():
    timeline = PaperFactory().citing_timeline()
    assert (timeline.total, timeline.quarters, timeline.year_only) == (0, [], [])
    assert timeline.description == "No published paper cites this work yet."


def test_all_dated_papers_in_one_quarter():
    hub = PaperFactory()
    citing = PaperFactory(publication_date=datetime.date(2025, 5, 2), date_precision="month")
    CitationFactory(cited_paper=hub, citing_paper=citing)
    timeline = hub.citing_timeline()
    assert [quarter.key for quarter, _ in timeline.quarters] == ["2025-Q2"]
    assert timeline.description == "The 1 citing paper is placed in a quarter (2025 Q2)."


def test_quarters_roll_over_the_year():
    assert Quarter.of(datetime.date(2024, 12, 31)) == Quarter(2024, 4)
    assert Quarter(2024, 4).next() == Quarter(2025, 1)
    assert Quarter(2025, 3).start == datetime.date(2025, 7, 1)


def test_nice_ceilings():
    assert [nice_ceiling(n) for n in (0, 1, 2, 3, 7, 10, 11, 38, 260, 2939)] == [
        1, 1, 2, 3, 8, 10, 20, 40, 300, 3000,
    ]  # fmt: skip


def test_the_chart_stacks_bars_inside_its_plot_and_labels_years_only(hub):
    chart = TimelineChart(hub.citing_timeline(), "role")
    assert len(chart.bars) == 5
    first = chart.bars[0]
    assert [segment.series.css_class for segment in first.segments] == [
        "timeline__series--1",
        "timeline__series--2",
    ]
    # Two papers in the busiest quarter: the stack reaches the top of a scale of 2.
    assert first.segments[-1].y == chart.top
    assert sum(segment.height for segment in first.segments) == chart.plot_height
    assert chart.bars[1].segments == []  # an empty slot
    assert [tick.label for tick in chart.years] == ["2024", "2025"]
    assert first.title == "2024 Q1: 2 citing papers (Background 1, Method 1)"
    # One path per series with all its segments; the unclassified one in 2025 Q1.
    assert [series.slug for series, _ in chart.series_paths] == ["background", "method", None]
    assert chart.series_paths[0][1].count("M") == 2  # background: 2024 Q1 and Q4


def test_long_ranges_label_every_other_year():
    hub = PaperFactory()
    for year in (2000, 2026):
        CitationFactory(
            cited_paper=hub, citing_paper=PaperFactory(publication_date=datetime.date(year, 1, 1))
        )
    chart = hub.citing_timeline().role_chart
    assert len(chart.bars) == 27 * 4 - 3
    assert [tick.label for tick in chart.years] == [str(year) for year in range(2000, 2027, 5)]


def test_unknown_precision_is_undated_whatever_its_placeholder_date():
    hub = PaperFactory()
    citing = PaperFactory(
        publication_date=datetime.date(2024, 4, 1), date_precision=DatePrecision.UNKNOWN
    )
    CitationFactory(cited_paper=hub, citing_paper=citing)
    timeline = hub.citing_timeline()
    assert (timeline.quarters, timeline.undated.total) == ([], 1)
    assert timeline.description == (
        "The 1 citing paper cannot be placed in a quarter: 1 has no known date."
    )
