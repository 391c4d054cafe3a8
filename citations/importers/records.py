"""What every parser produces: format-neutral paper records, with the identifiers that key them."""

import dataclasses
import datetime
import re
import unicodedata

from django.core.exceptions import ValidationError

from citations.identifiers import arxiv_id_from_doi, normalise_arxiv_id, normalise_doi
from citations.importers.wording import date_not_read
from citations.models.papers import MAX_ABSTRACT_LENGTH


class BadImportFile(ValueError):
    """A file or pasted text that cannot be imported; the message names the record or line."""

    def __init__(self, message, where=""):
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


# What one record may hold: each parser refuses more before it builds anything from it, so no
# record costs more than these to read (a version number in the billions grew a list until the
# worker was killed; an abstract index with huge positions built a 2 GB string).
MAX_TITLE_LENGTH = 2_000  # longer than the column (500): cut, and the dry run says so
MAX_ABSTRACT_WORDS = 20_000
MAX_TEXT_LENGTH = 5_000  # institution, venue, URL, an author's name
MAX_AUTHORS = 2_000
MAX_REFERENCES = 20_000
MAX_ARXIV_VERSION = 999
TEXT_LIMITS = {
    "title": MAX_TITLE_LENGTH,
    "abstract": MAX_ABSTRACT_LENGTH,
    "institution": MAX_TEXT_LENGTH,
    "venue": MAX_TEXT_LENGTH,
    "url": MAX_TEXT_LENGTH,
}
# Unexpected shapes a parser meets in a malformed record (a number where text belongs, a list
# where a mapping belongs, a value out of range): refused as the record's error, never a 500.
MALFORMED = (TypeError, AttributeError, KeyError, IndexError, ValueError, OverflowError)


def type_name(value):
    return {dict: "an object", list: "a list", str: "text", bool: "true/false"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def check_text(value, field, where, limit=MAX_TEXT_LENGTH):
    """`value` if it is text within `limit` characters with no NUL or lone surrogate."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadImportFile(f"{field} must be text, not {type_name(value)}", where)
    if len(value) > limit:
        raise BadImportFile(f"{field} is {len(value)} characters long (at most {limit})", where)
    if "\x00" in value:
        raise BadImportFile(f"{field} contains a NUL character", where)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadImportFile(
            f"{field} contains a lone surrogate (not Unicode text)", where
        ) from None
    return value


def check_year(value, field, where):
    """A year from an int (or a string of digits where `digits_ok`), 1 to 9999."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 4:
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 9999:
        shown = repr(value)[:20] + ("…" if len(repr(value)) > 20 else "")
        raise BadImportFile(f"{field} is not a year from 1 to 9999 (got {shown})", where)
    return value


def arxiv_versions_upto(version, where):
    """["v1", ..., "vN"] for an arXiv version number N, at most MAX_ARXIV_VERSION."""
    digits = str(version)
    if not digits.isdigit() or len(digits) > 3 or not 1 <= int(digits) <= MAX_ARXIV_VERSION:
        raise BadImportFile(
            f"arXiv version v{digits[:12]} is not between v1 and v{MAX_ARXIV_VERSION}", where
        )
    return [f"v{n}" for n in range(1, int(digits) + 1)]


class malformed_record:  # noqa: N801 (a context manager read as a phrase)
    """Turns a parser's TypeError and the like, met in one record, into that record's
    BadImportFile."""

    def __init__(self, where):
        self.where = where

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if error is None or isinstance(error, BadImportFile) or not isinstance(error, MALFORMED):
            return False
        detail = " ".join(str(error).split())[:120]
        raise BadImportFile(f"malformed record ({detail})", self.where) from None


def normalise_identifier(scheme, value):
    """One stored form per scheme; a ValidationError for a malformed arXiv id or DOI."""
    value = (value or "").strip()
    if not value:
        return ""
    if scheme == "arxiv":
        return normalise_arxiv_id(value)
    if scheme == "doi":
        return normalise_doi(value).lower()
    if scheme == "openalex":
        return value.rstrip("/").rsplit("/", 1)[-1].upper()
    return value.rstrip("/").rsplit("/", 1)[-1].lower()


def normalised_title(title):
    """A title reduced for comparison: accents, case, punctuation and spacing ignored."""
    text = unicodedata.normalize("NFKD", title or "")
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(re.findall(r"\w+", text))


@dataclasses.dataclass
class Reference:
    """An edge a record declares: this record's paper cites (or is cited by) another paper."""

    identifiers: dict  # scheme -> normalised value of the other paper
    direction: str = "cites"  # "cites" (record cites other) or "cited_by" (other cites record)
    role: str = ""  # a CitationRole slug, or "" when the source gives none we can map
    contexts: list = dataclasses.field(default_factory=list)
    is_influential: bool | None = None


@dataclasses.dataclass
class PaperRecord:
    """One paper as a file describes it. `where` names it in messages (line or record number)."""

    where: str
    source: str  # the format's name: bibtex, arxiv, openalex, s2, csl
    title: str = ""
    authors: list = dataclasses.field(default_factory=list)  # display names, in order
    institution: str = ""
    abstract: str = ""
    publication_date: datetime.date | None = None
    year: int | None = None
    # How much of `publication_date` the source gives ("day", "month", "year"; "" for no
    # date): a year alone is stored as that year, not dropped and not made a day.
    date_precision: str = ""
    identifiers: dict = dataclasses.field(default_factory=dict)  # scheme -> normalised value
    arxiv_versions: list = dataclasses.field(default_factory=list)
    url: str = ""
    venue: str = ""
    # A Paper.publication_type ("article", "conference", "preprint", "report") or "" if unknown.
    publication_type: str = ""
    categories: list = dataclasses.field(default_factory=list)
    references: list = dataclasses.field(default_factory=list)
    # What the parser left out or could not read, in words, for the dry run's report.
    notes: list = dataclasses.field(default_factory=list)
    # False for papers a file names only as the other end of an edge (held as citation records).
    in_research_index: bool = True

    def add_identifier(self, scheme, value):
        """Record an identifier (normalised); the arXiv DataCite DOI also gives the arXiv id."""
        try:
            value = normalise_identifier(scheme, value)
        except ValidationError as error:
            raise BadImportFile(f"{error.messages[0]} (got {value!r})", self.where) from None
        if not value:
            return
        if scheme == "doi" and (arxiv_id := arxiv_id_from_doi(value)):
            self.identifiers.setdefault("arxiv", arxiv_id)
            return
        self.identifiers.setdefault(scheme, value)

    def absorb(self, other):
        """Fill what this record lacks from a duplicate of it (same identifiers, same file)."""
        for field in dataclasses.fields(self):
            mine, theirs = getattr(self, field.name), getattr(other, field.name)
            if field.name in ("where", "source"):
                continue
            if field.name == "identifiers":
                for scheme, value in theirs.items():
                    mine.setdefault(scheme, value)
            elif field.name == "references":
                mine.extend(ref for ref in theirs if ref not in mine)
            elif field.name == "in_research_index":
                self.in_research_index = mine or theirs
            elif not mine and theirs:
                setattr(self, field.name, theirs)

    def set_date(self, parts):
        """The date as far as the source gives it: [year], [year, month] or [year, month,
        day] (numbers or digit strings), stored with its precision."""
        try:
            numbers = [int(part) for part in parts or []][:3]
            date = datetime.date(*numbers, *[1] * (3 - len(numbers))) if numbers else None
        except (TypeError, ValueError):
            raise BadImportFile(f"not a date: {parts!r}", self.where) from None
        if date is not None:
            self.publication_date, self.year = date, numbers[0]
            self.date_precision = DATE_PRECISIONS[len(numbers)]

    @property
    def arxiv_category(self):
        """The primary arXiv category (arXiv lists it first), for BibTeX's primaryClass."""
        return self.categories[0] if self.source in ("arxiv", "bibtex") and self.categories else ""

    @property
    def title_key(self):
        return normalised_title(self.title)

    def require_title(self):
        check_text(self.title, "title", self.where, MAX_TITLE_LENGTH)
        if not self.title.strip():
            raise BadImportFile("record has no title", self.where)

    def check(self):
        """Refuse a record whose fields are of the wrong type, too long or not text (NUL, lone
        surrogates), naming the record and the field."""
        for field, limit in TEXT_LIMITS.items():
            check_text(getattr(self, field), field, self.where, limit)
        if not isinstance(self.authors, list) or len(self.authors) > MAX_AUTHORS:
            raise BadImportFile(f"authors: a list of at most {MAX_AUTHORS} names", self.where)
        for name in self.authors:
            check_text(name, "author", self.where)
        for field in ("categories", "arxiv_versions"):
            for value in getattr(self, field):
                check_text(value, field, self.where)
        for version in self.arxiv_versions:
            if not re.fullmatch(r"v[1-9]\d{0,2}", version):
                raise BadImportFile(f"arXiv version {version[:12]!r} is not v1 to v999", self.where)
        if len(self.references) > MAX_REFERENCES:
            raise BadImportFile(f"more than {MAX_REFERENCES} references", self.where)
        for reference in self.references:
            for context in reference.contexts:
                check_text(context, "citation context", self.where, MAX_ABSTRACT_LENGTH)
        for scheme, value in self.identifiers.items():
            check_text(value, scheme, self.where)
        check_year(self.year, "year", self.where)


DATE_PRECISIONS = {1: "year", 2: "month", 3: "day"}


def date_parts(text, where=""):
    """[year], [year, month] or [year, month, day] from 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' (a
    datetime's date part too); [] for no text."""
    if text is not None and not isinstance(text, str):
        raise BadImportFile(f"not a date: {type_name(text)}", where)
    text = (text or "").strip()
    if not text:
        return []
    match = re.match(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?!\d)", text)
    if not match:
        raise BadImportFile(f"not a date: {text[:40]!r}", where)
    return [int(part) for part in match.groups() if part]


def date_or_year(record, field, text, year):
    """[year, month, day] as far as `text` (a source's date, under `field`) gives them, else
    [year] from the source's separate year. A date that cannot be read beside a year keeps the
    year and is named in the record's notes; with no year it refuses the record."""
    from_year = year_only(year)
    try:
        parts = date_parts(text, record.where)
        if parts:
            datetime.date(*parts, *[1] * (3 - len(parts)))  # 2025-13-45 is no date
        return parts or from_year
    except (BadImportFile, ValueError):
        if not from_year:
            raise BadImportFile(
                f"{field} is not a date: {str(text)[:40]!r}", record.where
            ) from None
    record.notes.append(date_not_read(field, text, len(from_year)))
    return from_year


def year_only(value):
    """[year] from a source's separate year (a number or digits); [] when it gives none."""
    text = str(value or "").strip()
    # A 5000-digit "year" is no year (and int() of it is slow): at most 4 digits.
    return [int(text)] if text.isdigit() and len(text) <= 4 and int(text) > 0 else []
