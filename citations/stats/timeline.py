"""How the citing of a paper changes over time: its public citing papers per quarter, by role
and by polarity (`CitingTimeline`, counted by `Paper.citing_timeline()`), and the geometry of
the hub's two timeline charts (`TimelineChart`), drawn as SVG by
citations/templates/citations/includes/citing_timeline.html.

Only what is known is placed: a citing paper dated to the day or the month falls in its
quarter; one dated only to a year is counted per year (`year_only`), never spread over or put
in a made-up quarter; one without a known date (no date, or precision "unknown", whose date
only orders the lists) is counted as `undated`. Quarters between the first and the last are
all listed, the empty ones with zero, so a gap in the citing shows as a gap."""

import datetime
import functools
import math
from dataclasses import dataclass

from citations.models import DatePrecision

# Each series gets one of these colour classes in its order (site-wide custom properties in
# hub.css, light and dark); unclassified edges have their own.
PALETTE_SIZE = 6
UNCLASSIFIED_CLASS = "timeline__series--none"
UNCLASSIFIED_LABEL = "Not yet classified"


@dataclass(frozen=True, order=True)
class Quarter:
    year: int
    number: int  # 1 to 4

    @classmethod
    def of(cls, date):
        return cls(date.year, (date.month - 1) // 3 + 1)

    def next(self):
        return Quarter(self.year + self.number // 4, self.number % 4 + 1)

    @property
    def key(self):
        """2025-Q1: the API's name of the quarter."""
        return f"{self.year}-Q{self.number}"

    @property
    def label(self):
        return f"{self.year} Q{self.number}"

    @property
    def start(self):
        return datetime.date(self.year, 3 * self.number - 2, 1)

    def __str__(self):
        return self.label


@dataclass(frozen=True)
class Series:
    """One role or polarity of the timeline (`slug` None: the edges not yet classified)."""

    slug: str | None
    name: str
    css_class: str


class Bucket:
    """Citing papers counted in one slot of time (a quarter, a year, or "undated")."""

    def __init__(self):
        self.total = 0
        self.by_role = {}
        self.by_polarity = {}

    def add(self, role, polarity, count):
        self.total += count
        self.by_role[role] = self.by_role.get(role, 0) + count
        self.by_polarity[polarity] = self.by_polarity.get(polarity, 0) + count

    def counts(self, axis, series):
        """[(series, count)] for every series of one axis, zeros included, in series order."""
        counts = self.by_role if axis == "role" else self.by_polarity
        return [(one, counts.get(one.slug, 0)) for one in series]

    def as_data(self, roles, polarities):
        """Counts by role and polarity slug (every series, zeros too), unclassified apart."""

        def named(counts, series):
            return {one.slug: counts.get(one.slug, 0) for one in series if one.slug is not None}

        return {
            "total": self.total,
            "by_role": named(self.by_role, roles),
            "role_unclassified": self.by_role.get(None, 0),
            "by_polarity": named(self.by_polarity, polarities),
            "polarity_unclassified": self.by_polarity.get(None, 0),
        }


class CitingTimeline:
    """A paper's public citing papers by quarter (every quarter from the first to the last,
    empty ones too), by year for those dated only to a year, and undated, each counted by role
    and by polarity. Made from a paper's stored citing groups (`Paper.citing_groups()`)."""

    def __init__(self, groups):
        quarters, years, self.undated, self.overall = {}, {}, Bucket(), Bucket()
        roles, polarities = {}, {}
        for group in groups:
            role, polarity = group["role__slug"], group["polarity__slug"]
            if role is not None:
                roles[role] = (group["role__order"], group["role__name"])
            if polarity is not None:
                polarities[polarity] = (group["polarity__order"], group["polarity__name"])
            self._bucket_of(group, quarters, years).add(role, polarity, group["count"])
            self.overall.add(role, polarity, group["count"])
        self.roles = self._series(roles, self.overall.by_role)
        self.polarities = self._series(polarities, self.overall.by_polarity)
        self.quarters = []
        if quarters:
            quarter, last = min(quarters), max(quarters)
            while quarter <= last:
                self.quarters.append((quarter, quarters.get(quarter) or Bucket()))
                quarter = quarter.next()
        self.year_only = sorted(years.items())
        self.dated = sum(bucket.total for _, bucket in self.quarters)
        self.year_only_total = sum(bucket.total for _, bucket in self.year_only)
        self.total = self.dated + self.year_only_total + self.undated.total

    def _bucket_of(self, group, quarters, years):
        quarter_start, precision = group["quarter"], group["date_precision"]
        if quarter_start is None or precision == DatePrecision.UNKNOWN:
            return self.undated
        if precision == DatePrecision.YEAR:
            return years.setdefault(quarter_start.year, Bucket())
        return quarters.setdefault(Quarter.of(quarter_start), Bucket())

    def _series(self, terms, counts):
        """The axis's series in vocabulary order, "Unclassified" last when any paper is."""
        ordered = sorted(terms.items(), key=lambda item: (item[1][0], item[1][1]))
        series = [
            Series(slug, name, f"timeline__series--{index % PALETTE_SIZE + 1}")
            for index, (slug, (_, name)) in enumerate(ordered)
        ]
        if counts.get(None):
            series.append(Series(None, UNCLASSIFIED_LABEL, UNCLASSIFIED_CLASS))
        return series

    @property
    def first(self):
        return self.quarters[0][0] if self.quarters else None

    @property
    def last(self):
        return self.quarters[-1][0] if self.quarters else None

    def chart(self, axis):
        """The geometry of the stacked bars by "role" or "polarity"."""
        return TimelineChart(self, axis)

    @functools.cached_property
    def role_chart(self):
        return self.chart("role")

    @functools.cached_property
    def polarity_chart(self):
        return self.chart("polarity")

    @property
    def description(self):
        """Where the citing papers are, in words, each figure with its basis: "40 of 45 citing
        papers are placed in a quarter (2023 Q2 to 2026 Q4); 3 are dated only to a year (2024:
        2, 2025: 1) and 2 have no known date, so they are in no quarter." """
        total, dated = self.total, self.dated
        if not total:
            return "No published paper cites this work yet."
        rest = []
        if self.year_only_total:
            years = ", ".join(f"{year}: {bucket.total}" for year, bucket in self.year_only)
            count = self.year_only_total
            rest.append(f"{count} {_are(count)} dated only to a year ({years})")
        if self.undated.total:
            count = self.undated.total
            rest.append(f"{count} {'has' if count == 1 else 'have'} no known date")
        rest = " and ".join(rest)
        if not dated:
            if total == 1:
                return f"The 1 citing paper cannot be placed in a quarter: {rest}."
            return f"None of the {_papers(total)} can be placed in a quarter: {rest}."
        span = self.first.label if self.first == self.last else f"{self.first} to {self.last}"
        if dated < total:
            opening = f"{dated} of {_papers(total)} {_are(dated)} placed in a quarter ({span})"
            outside = "it is" if total - dated == 1 else "they are"
            return f"{opening}; {rest}, so {outside} in no quarter."
        if total == 1:
            return f"The 1 citing paper is placed in a quarter ({span})."
        return f"All {_papers(total)} are placed in a quarter ({span})."

    @property
    def table_rows(self):
        """(label, counts, empty) per row of the table behind the charts: every quarter, then
        the years of the papers dated only to a year, then the undated ones; `counts` is the
        total, then one count per role and per polarity, in the order of `roles` and
        `polarities`."""
        rows = [(quarter.label, bucket) for quarter, bucket in self.quarters]
        rows += [(f"{year} (year only)", bucket) for year, bucket in self.year_only]
        if self.undated.total:
            rows.append(("Date unknown", self.undated))
        return [(label, self._row(bucket), not bucket.total) for label, bucket in rows]

    @property
    def total_row(self):
        """The counts of every citing paper, as in `table_rows`: the table's footer."""
        return self._row(self.overall)

    def _row(self, bucket):
        return [
            bucket.total,
            *(count for _, count in bucket.counts("role", self.roles)),
            *(count for _, count in bucket.counts("polarity", self.polarities)),
        ]

    def as_data(self):
        """The API's representation (citations/api/serializers.py: CitingTimelineSerializer)."""

        def series(terms):
            return [{"slug": one.slug, "name": one.name} for one in terms if one.slug is not None]

        counts = {"roles": self.roles, "polarities": self.polarities}
        return {
            "total": self.total,
            "description": self.description,
            "dated": self.dated,
            "year_only_total": self.year_only_total,
            "undated_total": self.undated.total,
            "first_quarter": self.first.key if self.first else None,
            "last_quarter": self.last.key if self.last else None,
            "roles": series(self.roles),
            "polarities": series(self.polarities),
            "quarters": [
                {
                    "quarter": quarter.key,
                    "year": quarter.year,
                    "number": quarter.number,
                    "start": quarter.start,
                    **bucket.as_data(**counts),
                }
                for quarter, bucket in self.quarters
            ],
            "year_only": [
                {"year": year, **bucket.as_data(**counts)} for year, bucket in self.year_only
            ],
            "undated": self.undated.as_data(**counts),
        }


def _papers(count):
    return f"{count} citing paper{'' if count == 1 else 's'}"


def _are(count):
    return "is" if count == 1 else "are"


def nice_ceiling(value):
    """The smallest of 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, ... at or above `value` (at least 1):
    a round top for the y axis that leaves little of the chart empty."""
    if value <= 1:
        return 1
    magnitude = 10 ** math.floor(math.log10(value))
    steps = (1, 2, 3, 4, 5, 6, 8, 10)
    return next(step * magnitude for step in steps if step * magnitude >= value)


def _number(value):
    """A coordinate for an SVG attribute: at most two decimals, no trailing zeros."""
    return f"{round(value, 2):g}"


@dataclass
class Segment:
    y: float
    height: float
    series: Series


@dataclass
class Bar:
    """One quarter's slot: its stacked segments, and the hover title naming its counts."""

    x: float
    width: float
    slot_x: float
    title: str
    segments: list


@dataclass
class Tick:
    position: float
    label: str


class TimelineChart:
    """Stacked bars per quarter in a fixed viewBox (the SVG scales to its box): one slot per
    quarter from the first to the last, years labelled (every 2nd or 5th on long ranges), a
    y axis with round gridlines. Coordinates only, no styles (the CSP forbids inline ones): each
    series is one <path> of all its segments, so a 48-quarter chart is a few elements, plus one
    transparent hover area per quarter with its title."""

    # Sized for half the hub's main column (the two charts stand side by side on a desktop):
    # the 11px labels are read at about their size.
    width, height = 400, 130
    left, right, top, bottom = 34, 4, 6, 20
    max_bar_width = 28
    year_label_room = 34  # a year label's width, with a gap: closer labels are thinned

    def __init__(self, timeline, axis):
        self.axis = axis
        self.series = timeline.roles if axis == "role" else timeline.polarities
        quarters = timeline.quarters
        self.plot_right = self.width - self.right
        self.plot_width = self.plot_right - self.left
        self.plot_bottom = self.height - self.bottom
        self.plot_height = self.plot_bottom - self.top
        self.tick_bottom = self.plot_bottom + 3
        self.value_label_x = self.left - 6
        self.year_label_y = self.height - 6
        self.slot = self.plot_width / max(len(quarters), 1)
        self.scale = nice_ceiling(max((bucket.total for _, bucket in quarters), default=1))
        self.bars = [self._bar(index, q, bucket) for index, (q, bucket) in enumerate(quarters)]
        self._year_starts = {}
        for index, (quarter, _) in enumerate(quarters):
            self._year_starts.setdefault(quarter.year, self.left + index * self.slot)
        self.description = self._describe(quarters)
        halves = [self.scale // 2] if self.scale % 2 == 0 else []
        self.gridlines = [Tick(self._y(value), str(value)) for value in [0, *halves, self.scale]]

    def _describe(self, quarters):
        """The chart in words, for its SVG <desc>."""
        if not quarters:
            return "No citing paper is dated to a quarter."
        peak_quarter, peak = max(quarters, key=lambda item: item[1].total)
        names = ", ".join(one.name for one in self.series)
        span = f"{quarters[0][0].label} to {quarters[-1][0].label} ({len(quarters)} quarters)"
        return (
            f"Stacked bars: citing papers per quarter by {self.axis} ({names}), {span}; the "
            f"most in one quarter: {peak.total}, in {peak_quarter.label}. The table below "
            f"gives every number."
        )

    def _y(self, count):
        return round(self.plot_bottom - self.plot_height * count / self.scale, 2)

    def _bar(self, index, quarter, bucket):
        slot_x = self.left + index * self.slot
        width = min(self.slot * 0.72, self.max_bar_width)
        segments, below = [], 0
        parts = [(one, count) for one, count in bucket.counts(self.axis, self.series) if count]
        for one, count in parts:
            top = self._y(below + count)
            segments.append(Segment(top, round(self._y(below) - top, 2), one))
            below += count
        papers = f"{bucket.total} citing paper{'' if bucket.total == 1 else 's'}"
        detail = ", ".join(f"{one.name} {count}" for one, count in parts)
        title = f"{quarter.label}: {papers}" + (f" ({detail})" if detail else "")
        x = slot_x + (self.slot - width) / 2
        return Bar(round(x, 2), round(width, 2), round(slot_x, 2), title, segments)

    @property
    def series_paths(self):
        """(series, SVG path data) per series with any count: all its segments in one path."""
        paths = {}
        for bar in self.bars:
            for segment in bar.segments:
                paths.setdefault(segment.series, []).append(
                    f"M{_number(bar.x)} {_number(segment.y)}h{_number(bar.width)}"
                    f"v{_number(segment.height)}h{_number(-bar.width)}z"
                )
        return [(one, "".join(paths[one])) for one in self.series if one in paths]

    @property
    def slot_width(self):
        return _number(self.slot)

    @property
    def ticks_path(self):
        """A short tick under every quarter's slot, so empty quarters show as slots."""
        return "".join(
            f"M{_number(bar.x + bar.width / 2)} {self.plot_bottom}v3" for bar in self.bars
        )

    @property
    def years(self):
        """Year labels at each year's first quarter: every year where they fit, else every
        2nd, 5th or 10th, so a long range stays legible."""
        starts = self._year_starts
        year_width = 4 * self.slot
        step = next((k for k in (1, 2, 5) if k * year_width >= self.year_label_room), 10)
        first = min(starts, default=0)
        return [
            Tick(_number(x), str(year)) for year, x in starts.items() if (year - first) % step == 0
        ]

    @property
    def year_lines_path(self):
        """Faint separators at every year's start but the first."""
        starts = list(self._year_starts.values())[1:]
        return "".join(f"M{_number(x)} {self.top}V{self.tick_bottom}" for x in starts)
