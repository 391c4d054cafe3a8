"""Server-rendered charts of series: compute on a log axis, the reported points, and each
accepted sigmoid fit drawn over the measured compute with its band. One chart per compute
axis (GPU-hours and FLOPs are never mixed: results/models.py). Pages get coordinates; the
template (results/includes/chart.html) writes the SVG, with the data table beside it."""

import math
from dataclasses import dataclass, field

from django.utils.html import escape
from django.utils.safestring import mark_safe

from results.models import ComputeAxis

WIDTH, HEIGHT = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 48
# Okabe–Ito colours (told apart by most colour-blind readers) and a marker per series too.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C6D00", "#777777"]
MARKERS = ["circle", "square", "diamond", "ring"]
# Up to this many runs a chart shades each fitted one's 90% band; beyond it, dozens of
# overlapping bands read as one blur, and reading them all cost more than the rest of the page
# (500 runs: 1.5 MB of stored bands, 0.12 s to decode). Each run's intervals stay in its table.
BAND_LIMIT = 12
CURVE_STEPS = 24


def sigmoid_value(params, compute):
    """The ScaleRL sigmoid R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) at `compute`, in plain
    Python: the pages draw curves from stored parameters without loading NumPy (results/fits.py
    fits them with it on the task worker)."""
    exponent = params["B"] * (math.log10(params["C_mid"]) - math.log10(compute))
    return params["R0"] + (params["A"] - params["R0"]) / (1.0 + 10 ** max(-300, min(300, exponent)))


def curve_of(fit):
    """[(compute, fitted)] over the fitted compute range, from the fit's parameters."""
    low, high = fit.compute_range
    steps = [low * (high / low) ** (i / (CURVE_STEPS - 1)) for i in range(CURVE_STEPS)]
    return [(compute, sigmoid_value(fit.params, compute)) for compute in steps]


@dataclass
class ChartSeries:
    series: object
    colour: str
    marker: str
    points: list = field(default_factory=list)  # (x, y, label)
    curve: str = ""
    band: str = ""

    compact: bool = False  # past BAND_LIMIT runs: one marker path per run

    def svg(self):
        """The series' band, curve and markers as SVG, written here rather than in a template
        loop: a benchmark with hundreds of runs has thousands of points."""
        parts = []
        if self.band:
            parts.append(
                f'<path d="{self.band}" fill="{self.colour}" fill-opacity="0.15" stroke="none"/>'
            )
        if self.curve:
            parts.append(
                f'<path d="{self.curve}" fill="none" stroke="{self.colour}" stroke-width="2"/>'
            )
        if self.compact:
            parts.append(self.marker_path())
        else:
            parts += [self.marker_element(x, y, label) for x, y, label in self.points]
        return mark_safe("".join(parts))  # noqa: S308 - numbers and constants; labels escaped

    def marker_element(self, x, y, label):
        """One point, titled with its run, value and compute."""
        colour, title = self.colour, f"<title>{escape(label)}</title>"
        if self.marker == "square":
            return (
                f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}">'
                f"{title}</rect>"
            )
        if self.marker == "diamond":
            return (
                f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" '
                f'transform="rotate(45 {x} {y})" fill="{colour}">{title}</rect>'
            )
        if self.marker == "ring":
            return (
                f'<circle cx="{x}" cy="{y}" r="5" fill="none" stroke="{colour}" '
                f'stroke-width="2">{title}</circle>'
            )
        return f'<circle cx="{x}" cy="{y}" r="4.5" fill="{colour}">{title}</circle>'

    def marker_path(self):
        """Every point of the run as one path, titled with the run: hundreds of runs drawn
        point by point made a megabyte of SVG, and a pointer over one of thousands of
        overlapping markers names little. The table and the CSV give every value."""
        shape = MARKER_SHAPES[self.marker]
        d = "".join(shape(x, y) for x, y, _ in self.points)
        paint = (
            f'fill="none" stroke="{self.colour}" stroke-width="2"'
            if self.marker == "ring"
            else f'fill="{self.colour}"'
        )
        count = len(self.points)
        title = f"{self.series.name}: {count} point{'' if count == 1 else 's'}"
        return f'<path d="{d}" {paint}><title>{escape(title)}</title></path>'

    def legend_item(self):
        """The run's entry in the chart's legend, a link to its table (`series.anchor`)."""
        note = "" if self.curve else ", no fit drawn"
        return (
            f'<li><svg width="14" height="14" aria-hidden="true"><rect width="14" height="14" '
            f'fill="{self.colour}"/></svg> <a href="{escape(self.series.anchor)}">'
            f"{escape(self.series.name)}</a> "
            f'<span class="muted small">({self.marker}{note})</span></li>'
        )


# The same shapes as ChartSeries.marker_element draws, as path commands.
MARKER_SHAPES = {
    "circle": lambda x, y: f"M{x - 4.5:.1f},{y}a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0",
    "square": lambda x, y: f"M{x - 4:.1f},{y - 4:.1f}h8v8h-8z",
    "diamond": lambda x, y: f"M{x},{y - 5.7:.1f}l5.7,5.7l-5.7,5.7l-5.7,-5.7z",
    "ring": lambda x, y: f"M{x - 5:.1f},{y}a5,5 0 1,0 10,0a5,5 0 1,0 -10,0",
}


@dataclass
class Chart:
    axis: str
    axis_label: str
    unit: str
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    plot_width: int = WIDTH - LEFT - RIGHT
    plot_height: int = HEIGHT - TOP - BOTTOM
    x_ticks: list = field(default_factory=list)
    y_ticks: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    bands_shown: bool = True

    def legend(self):
        """The legend's items, written here for the reason ChartSeries.svg is."""
        return mark_safe("".join(line.legend_item() for line in self.lines))  # noqa: S308

    @property
    def bottom(self):
        return self.top + self.plot_height

    @property
    def right(self):
        return self.left + self.plot_width


def nice_ticks(low, high, count=5):
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    ticks = [round(math.floor(low / step) * step, 10)]
    while ticks[-1] < high - step * 1e-9:  # the last tick at or above the highest value
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def points_of(series_list):
    """{series id: [(axis, compute, value), ...]} from series with their `points` loaded."""
    return {
        series.pk: [(p.compute_axis, p.compute, p.value) for p in series.points.all() if p.compute]
        for series in series_list
    }


def build_charts(series_list, points, fits_by_series, unit=""):
    """One Chart per compute axis present among the points. `points`: {series id: [(axis,
    compute, value), ...]} (`points_of`, or read as plain values); `fits_by_series`:
    {series id: {kind: Fit}}."""
    by_axis = {}
    for index, series in enumerate(series_list):
        for axis, compute, value in points.get(series.pk, ()):
            by_axis.setdefault(axis, {}).setdefault(index, []).append((compute, value))
    charts = []
    for axis in (ComputeAxis.GPU_HOURS, ComputeAxis.FLOPS):
        if axis in by_axis:
            charts.append(_chart(axis, by_axis[axis], series_list, fits_by_series, unit))
    return charts


def _chart(axis, points_by_index, series_list, fits_by_series, unit):
    chart = Chart(axis=axis, axis_label=ComputeAxis(axis).label, unit=unit)
    xs = [c for points in points_by_index.values() for c, _ in points]
    ys = [v for points in points_by_index.values() for _, v in points]
    fits = {
        index: fits_by_series.get(series_list[index].pk, {}).get("sigmoid")
        for index in points_by_index
    }
    drawn = {i: f for i, f in fits.items() if f is not None and not f.refused and f.axis == axis}
    with_bands = len(series_list) <= BAND_LIMIT
    chart.bands_shown = with_bands
    curves = {
        index: [(c, v) for c, v, _, _ in fit.band] if with_bands else curve_of(fit)
        for index, fit in drawn.items()
    }
    for index, fit in drawn.items():
        if with_bands:
            ys += [row[2] for row in fit.band] + [row[3] for row in fit.band]
        else:
            ys += [value for _, value in curves[index]]
    x_low = math.floor(math.log10(min(xs)))
    x_high = max(math.ceil(math.log10(max(xs))), x_low + 1)
    y_ticks = nice_ticks(min(ys), max(ys))
    y_low, y_high = y_ticks[0], y_ticks[-1]

    def px(compute):
        share = (math.log10(compute) - x_low) / (x_high - x_low)
        return round(chart.left + share * chart.plot_width, 1)

    def py(value):
        share = (value - y_low) / ((y_high - y_low) or 1)
        return round(chart.bottom - share * chart.plot_height, 1)

    chart.x_ticks = [(px(10**e), f"10^{e}", e) for e in range(x_low, x_high + 1)]
    chart.y_ticks = [(py(v), f"{v:g}") for v in y_ticks]
    axis_label = ComputeAxis(axis).label
    for index, points in sorted(points_by_index.items()):
        series = series_list[index]
        line = ChartSeries(
            series=series,
            colour=COLOURS[index % len(COLOURS)],
            marker=MARKERS[index % len(MARKERS)],
            compact=not with_bands,
        )
        if with_bands:
            line.points = [
                (px(c), py(v), f"{series.name}: {v:g} at {c:,.6g} {axis_label}")
                for c, v in sorted(points)
            ]
        else:  # one title for the run (marker_path): no label per point
            line.points = [(px(c), py(v), "") for c, v in sorted(points)]
        fit = drawn.get(index)
        if curves.get(index):
            line.curve = "M" + " L".join(f"{px(c)},{py(v)}" for c, v in curves[index])
        if fit is not None and with_bands and fit.band:
            upper = [f"{px(c)},{py(high)}" for c, _, _, high in fit.band]
            lower = [f"{px(c)},{py(low)}" for c, _, low, _ in reversed(fit.band)]
            line.band = "M" + " L".join(upper + lower) + " Z"
        chart.lines.append(line)
    return chart
