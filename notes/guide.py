"""The field guide's sections and what each lists, and the copy checks: editorial text that
states a fact about what its section lists — a date ("New August 2026 preprints"), a year
("LessWrong discussion · 2026"), a number of rows ("six coupled dimensions"), or that every item
has a source ("Source-linked research notes") — is checked against those rows. Seed text is
kept as written (a display rule never drops it); what the data does not support is listed for
editors on the dashboard and on the section's admin form, so they rewrite it."""

import re
from dataclasses import dataclass

from django.db.models.functions import TruncMonth

from bottlenecks.models import Dimension, Layer, LoopStage
from citations.dates import DatePrecision, known_date_q
from citations.models import Paper
from core.counted_text import stated_counts
from notes.models import CommunityPost, GuideSection, Question, ResearchNote

LATEST_RESEARCH_COUNT = 6
FEATURED_NOTES_LIMIT = 6

COPY_FIELDS = ("eyebrow", "heading", "intro", "footnote")

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
# A year, after a month name or alone (not a part of an identifier such as 2510.13786).
NAMED_DATE = re.compile(
    rf"\b(?:(?P<month>{'|'.join(MONTHS)})\s+)?(?P<year>(?:19|20)\d\d)\b(?![.\d])"
)
# Words saying every item listed can be checked at its source.
SOURCE_WORDS = re.compile(r"\bsource[- ]linked\b|\bsourced\b", re.IGNORECASE)


def section_rows():
    """What each section lists, by section key, as its page lists it."""
    questions = Question.objects.published()
    return {
        "dimensions": Dimension.objects.published(),
        "loop": LoopStage.objects.published(),
        "breaks": Layer.objects.published(),
        "evidence": ResearchNote.objects.featured()[:FEATURED_NOTES_LIMIT],
        "community": CommunityPost.objects.published(),
        "questions": questions.filter(kind=Question.Kind.TEAM),
        "latest": Paper.objects.latest_research()[:LATEST_RESEARCH_COUNT],
        "faq": questions.filter(kind=Question.Kind.FAQ),
        "research-index": Paper.objects.in_research_index(),
    }


def paper_months(papers):
    """The distinct (year, month or None) the `papers` are known to date from: a bounded list
    (months, not papers), however many papers there are."""
    known = papers.filter(known_date_q()).annotate(month=TruncMonth("publication_date"))
    return {
        (month.year, None if precision == DatePrecision.YEAR else month.month)
        for month, precision in known.values_list("month", "date_precision").distinct()
    }


@dataclass(frozen=True)
class Listed:
    """What a section lists, as far as its copy can state it: how many rows, the months they
    are known to date from (None: rows of this kind have no date), how many have no known
    date, and how many cannot be checked at a source (None: rows that cite nothing)."""

    model: type
    count: int
    months: set | None = None
    undated: int = 0
    unsourced: int | None = None

    @classmethod
    def of(cls, rows):
        if rows.model is Paper:
            papers = Paper.objects.filter(pk__in=rows.values("pk"))
            count = papers.count()
            return cls(
                Paper,
                count,
                months=paper_months(papers),
                undated=count - papers.filter(known_date_q()).count(),
                unsourced=papers.filter(arxiv_id="", doi="", url="").count(),
            )
        if rows.model is ResearchNote:
            notes = list(rows.with_published_papers())
            papers = Paper.objects.filter(pk__in=[p.pk for n in notes for p in n.published_papers])
            dated = set(papers.filter(known_date_q()).values_list("pk", flat=True))
            return cls(
                ResearchNote,
                len(notes),
                months=paper_months(papers),
                undated=sum(not {p.pk for p in n.published_papers} & dated for n in notes),
                unsourced=sum(not any(p.has_source for p in n.published_papers) for n in notes),
            )
        if rows.model is CommunityPost:
            posts = list(rows.only("year", "url"))
            return cls(
                CommunityPost,
                len(posts),
                months={(post.year, None) for post in posts if post.year},
                undated=sum(not post.year for post in posts),
                unsourced=sum(not post.url for post in posts),
            )
        return cls(rows.model, rows.count())

    def rows_text(self, count):
        opts = self.model._meta
        return f"{count} {opts.verbose_name_plural}" if count != 1 else f"1 {opts.verbose_name}"

    def date_findings(self, text):
        if self.months is None:
            return
        for match in NAMED_DATE.finditer(text):
            year, month = int(match["year"]), match["month"]
            number = MONTHS.index(month) + 1 if month else None
            if any(y == year and number in (None, m) for y, m in self.months):
                continue
            finding = f"nothing it lists ({self.rows_text(self.count)}) is known to date from "
            finding += match[0]
            if self.undated:
                finding += f"; {self.rows_text(self.undated)} with no known date"
            yield match[0], finding

    def count_findings(self, text):
        for words, number in stated_counts(text, str(self.model._meta.verbose_name_plural)):
            if number != self.count:
                yield words, f"it lists {self.rows_text(self.count)}"

    def source_findings(self, text):
        match = SOURCE_WORDS.search(text)
        if match and self.unsourced:
            listed = self.rows_text(self.count)
            yield (
                match[0],
                f"{self.unsourced} of the {listed} it lists have no arXiv id, DOI or URL",
            )

    def findings(self, text):
        if not text:
            return
        yield from self.date_findings(text)
        yield from self.count_findings(text)
        yield from self.source_findings(text)


@dataclass(frozen=True)
class UnsupportedCopy:
    """Words of a section's field that what the section lists does not support, and why."""

    section: GuideSection
    field: str
    words: str
    finding: str

    def __str__(self):
        label = GuideSection._meta.get_field(self.field).verbose_name
        return f"{self.section.heading} ({label}): “{self.words}”: {self.finding}"


def unsupported_copy(sections=None):
    """Every UnsupportedCopy of `sections` (all of them by default), in section order."""
    rows_by_key = section_rows()
    found = []
    for section in GuideSection.objects.all() if sections is None else sections:
        rows = rows_by_key.get(section.key)
        if rows is None:
            continue
        listed = Listed.of(rows)
        for field in COPY_FIELDS:
            for words, finding in listed.findings(getattr(section, field)):
                found.append(UnsupportedCopy(section, field, words, finding))
    return found
