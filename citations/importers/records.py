"""What every parser produces: format-neutral paper records, with the identifiers that key them."""

import dataclasses
import datetime
import re
import unicodedata

from django.core.exceptions import ValidationError

from citations.identifiers import arxiv_id_from_doi, normalise_arxiv_id, normalise_doi

# Identifier schemes a paper can be found by, strongest first (the order matching tries them).
SCHEMES = ("arxiv", "doi", "openalex", "s2")


class BadImportFile(ValueError):
    """A file or pasted text that cannot be imported; the message names the record or line."""

    def __init__(self, message, where=""):
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


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
    year: int | None = None  # kept when only the year (or month) is known; never turned into a date
    identifiers: dict = dataclasses.field(default_factory=dict)  # scheme -> normalised value
    arxiv_versions: list = dataclasses.field(default_factory=list)
    url: str = ""
    venue: str = ""
    # A Paper.publication_type ("article", "conference", "preprint", "report") or "" if unknown.
    publication_type: str = ""
    categories: list = dataclasses.field(default_factory=list)
    references: list = dataclasses.field(default_factory=list)
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

    @property
    def arxiv_category(self):
        """The primary arXiv category (arXiv lists it first), for BibTeX's primaryClass."""
        return self.categories[0] if self.source == "arxiv" and self.categories else ""

    @property
    def title_key(self):
        return normalised_title(self.title)

    def require_title(self):
        if not self.title.strip():
            raise BadImportFile("record has no title", self.where)


def parse_date(text, where=""):
    """(date, year) from 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' (a datetime's date part too); the date
    is None unless the day is known."""
    text = (text or "").strip()
    if not text:
        return None, None
    match = re.match(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", text)
    if not match:
        raise BadImportFile(f"not a date: {text!r}", where)
    year, month, day = match.groups()
    if day:
        try:
            return datetime.date(int(year), int(month), int(day)), int(year)
        except ValueError:
            raise BadImportFile(f"not a date: {text!r}", where) from None
    return None, int(year)
