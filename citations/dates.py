"""The one rule for a date the site knows: a paper's `publication_date` is a fact only as far
as its `date_precision` says. A day, a month or a year is shown as such; a date of precision
"unknown" is a placeholder that keeps the editor's order in the lists and is shown nowhere
(pages, charts, facets, search, API, exports, feeds, the dump).

Every reader of a date goes through these functions (on a row, on raw values, or as a Q or an
expression in a query), so no surface decides on its own what is known. No model imports
here: the stored counts (facet_counts.py), which the models import, use it too."""

from django.db.models import Case, IntegerField, Q, TextChoices, When
from django.db.models.functions import ExtractQuarter, ExtractYear
from django.utils.formats import date_format


class DatePrecision(TextChoices):
    DAY = "day", "Day"
    MONTH = "month", "Month"
    YEAR = "year", "Year"
    UNKNOWN = "unknown", "Unknown: the date only keeps the editor's order"


# How many of [year, month, day] each precision makes a fact.
KNOWN_PARTS = {DatePrecision.DAY: 3, DatePrecision.MONTH: 2, DatePrecision.YEAR: 1}
DISPLAY_FORMATS = {1: "Y", 2: "M Y", 3: "M j, Y"}


def known_date(date, precision):
    """`date` where it is a fact (of any precision), else None."""
    if date is None or precision not in KNOWN_PARTS:
        return None
    return date


def known_year(date, precision):
    """The year, where it is a fact; else None."""
    date = known_date(date, precision)
    return date.year if date else None


def date_parts(date, precision):
    """[year, month, day] cut to what is known (CSL's date-parts); [] when unknown."""
    date = known_date(date, precision)
    if date is None:
        return []
    return [date.year, date.month, date.day][: KNOWN_PARTS[precision]]


def date_iso(date, precision):
    """The known part of the date in ISO 8601: 2025-03-18, 2025-03 or 2025; '' if unknown."""
    return "-".join(f"{part:02d}" for part in date_parts(date, precision))


def date_display(date, precision):
    """The known part of the date for readers: Mar 18, 2025, Mar 2025 or 2025; '' if unknown."""
    parts = date_parts(date, precision)
    return date_format(date, DISPLAY_FORMATS[len(parts)]) if parts else ""


def known_date_q(prefix="", field="publication_date", precision="date_precision"):
    """Rows (through `prefix`, e.g. "citing_paper__") whose date is a fact: a paper's
    publication date by default, or another date `field` with its `precision` field (a
    claim's `reported_on`)."""
    return Q(**{f"{prefix}{field}__isnull": False}) & ~Q(
        **{f"{prefix}{precision}": DatePrecision.UNKNOWN}
    )


def known_quarter_q(field="publication_date", precision="date_precision"):
    """Rows whose date is a fact to a month or a day: those a quarter can hold."""
    return Q(**{f"{field}__isnull": False}) & Q(
        **{f"{precision}__in": [DatePrecision.DAY, DatePrecision.MONTH]}
    )


def quarter_number_expression(field="publication_date"):
    """The quarter of a date as year * 4 + quarter - 1, as a query expression (the stored
    facet counts' key): for rows whose quarter is a fact, those of `known_quarter_q()`."""
    return ExtractYear(field) * 4 + ExtractQuarter(field) - 1


def known_year_expression(prefix=""):
    """The publication year where it is a fact, else NULL, as a query expression."""
    return Case(
        When(known_date_q(prefix), then=ExtractYear(f"{prefix}publication_date")),
        default=None,
        output_field=IntegerField(),
    )
