"""RIS (.ris files or pasted text), as reference managers (Zotero, EndNote, Mendeley) export it,
read with rispy.

The text is first cut into records here (``TY  -`` to ``ER  -``), each remembering its line, so
that a message names the record, and each record is bounded before rispy reads it: a continued
line is folded into its tag's value as it is read (rispy joins continuations one at a time,
which costs the square of their number), and a record holds at most MAX_RECORD_FIELDS values,
MAX_AUTHORS authors and values of at most MAX_ABSTRACT_LENGTH characters. Names are "Last,
First, Suffix" ("van der Berg, Jan" is "Jan van der Berg", "Smith, Robert, Jr." is "Robert
Smith, Jr."); dates are kept to the precision given (PY "2024", DA "2024/07", Y1 "2024/07/14/").
"""

import datetime
import re

import rispy

from citations.exports.formats import NAME_SUFFIXES
from citations.importers.records import (
    MAX_AUTHORS,
    MAX_TEXT_LENGTH,
    MAX_TITLE_LENGTH,
    BadImportFile,
    PaperRecord,
    arxiv_versions_upto,
    check_text,
    check_year,
    malformed_record,
)
from citations.importers.wording import date_not_read, fields_not_imported
from citations.models.papers import MAX_ABSTRACT_LENGTH

READER = rispy.RisParser()
# A record's tagged values (a continued line of AU, KW, N1 or UR is one more): room for
# MAX_AUTHORS authors and their keywords and notes.
MAX_RECORD_FIELDS = 10_000

# Reference types that say what kind of publication a paper is (others, such as THES, BOOK,
# CHAP and GEN, say nothing we keep). ELEC and BLOG are web pages: a lab's blog post or notes.
RIS_TYPES = {
    "JOUR": "article",
    "EJOUR": "article",
    "JFULL": "article",
    "CONF": "conference",
    "CPAPER": "conference",
    "RPRT": "report",
    "UNPB": "preprint",
    "ELEC": "other",
    "BLOG": "other",
}
# Types whose publisher is the institution the work comes from (BibTeX's institution, school).
INSTITUTION_TYPES = {"RPRT", "THES"}

# The tags an import reads, with the field each is named as in messages (what rispy calls them
# is its own business). Other tags are left out, and the dry run says which.
READ_TAGS = {
    "TY": "type",
    "TI": "title",
    "T1": "title",
    "AU": "author",
    "A1": "author",
    "PY": "year",
    "Y1": "date",
    "DA": "date",
    "T2": "venue",
    "JF": "venue",
    "JO": "venue",
    "DO": "DOI",
    "UR": "URL",
    "AB": "abstract",
    "N2": "abstract",
    "N1": "notes",
    "KW": "keywords",
    "PB": "publisher",
    "AD": "author address",
    "ID": "reference id",
}
# RIS's list tags: a continued line of these is one more value (an author, a keyword); of the
# others, more of the same value.
LIST_TAGS = set(rispy.LIST_TYPE_TAGS)
# What one value may hold: a title's length, an abstract's (for the long ones: an abstract, a
# note, a tag left out), or any other text's.
LIMITS = {
    "TI": MAX_TITLE_LENGTH,
    "T1": MAX_TITLE_LENGTH,
    "AB": MAX_ABSTRACT_LENGTH,
    "N2": MAX_ABSTRACT_LENGTH,
    "N1": MAX_ABSTRACT_LENGTH,
}

ARXIV_ID = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf)/|\barxiv:\s*)"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[a-z]{2})?/\d{7})(?:v(?P<version>\d+))?",
    re.IGNORECASE,
)


def parse(text):
    records = []
    for number, (line, tags) in enumerate(split_records(text), 1):
        where = f"record {number} (line {line})"
        with malformed_record(where):
            records.append(record_from_tags(tags, where))
    return records


def split_records(text):
    """(line of its TY, [(tag, value)]) for each record, continuation lines folded into their
    tag's value; a BadImportFile for text outside a record or a record without its end."""
    records, fields, start = [], None, 0
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        tag, content = READER.parse_line(line)
        where = f"record {len(records) + 1} (line {start})"
        if fields is None:
            if tag == "TY":
                start = number
                fields = [Field("TY", content).checked(f"record {len(records) + 1} (line {start})")]
            elif line.strip():
                raise BadImportFile(
                    f"{line.strip()[:40]!r} is outside a record (each starts with 'TY  - ')",
                    f"line {number}",
                )
        elif tag == "ER":
            records.append((start, [(field.tag, field.value) for field in fields]))
            fields = None
        elif tag == "TY":
            raise BadImportFile(f"no 'ER  - ' line before the next record (line {number})", where)
        elif len(fields) >= MAX_RECORD_FIELDS:
            raise BadImportFile(f"more than {MAX_RECORD_FIELDS} values in one record", where)
        elif tag is not None:
            fields.append(Field(tag, content).checked(where))
        elif content and fields[-1].tag in LIST_TAGS:
            fields.append(Field(fields[-1].tag, content).checked(where))
        elif content:
            fields[-1].extend(content).checked(where)
    if fields is not None:
        where = f"record {len(records) + 1} (line {start})"
        raise BadImportFile("the record has no 'ER  - ' line (its end)", where)
    return records


class Field:
    """One tag's value as it is read, a continued line at a time, its length bounded."""

    def __init__(self, tag, content):
        self.tag, self.parts, self.length = tag, [content], len(content)

    def extend(self, content):
        self.parts.append(content)
        self.length += 1 + len(content)
        return self

    def checked(self, where):
        limit = limit_of(self.tag)
        if self.length > limit:
            raise BadImportFile(f"{label(self.tag)} is more than {limit} characters long", where)
        return self

    @property
    def value(self):
        return " ".join(self.parts)


def limit_of(tag):
    return LIMITS.get(tag, MAX_TEXT_LENGTH if tag in READ_TAGS else MAX_ABSTRACT_LENGTH)


def label(tag):
    """A tag as messages name it: "AU (author)"."""
    return f"{tag} ({READ_TAGS.get(tag, 'not imported')})"


def record_from_tags(tags, where):
    for tag, value in tags:
        check_text(value, label(tag), where, limit_of(tag))
    authors = [value for tag, value in tags if tag in ("AU", "A1")]
    if len(authors) > MAX_AUTHORS:
        raise BadImportFile(f"{label('AU')}: more than {MAX_AUTHORS} authors", where)
    # rispy maps the tags read (and splits UR's "a; b"); those left out are only named.
    lines = [f"{tag}  - {value}" for tag, value in tags if tag in READ_TAGS]
    entry = READER.parse_lines(iter([*lines, "ER  - "]))[0]
    if entry.get("id"):
        where = f"{where[:-1]}, {entry['id'][:40]})"
    kind = entry.get("type_of_reference", "").upper()
    record = PaperRecord(
        where=where,
        source="ris",
        title=" ".join((entry.get("title") or entry.get("primary_title") or "").split()),
    )
    record.require_title()
    record.authors = [display_name(name) for name in unique(authors) if name.strip()]
    record.publication_type = RIS_TYPES.get(kind, "")
    abstract = entry.get("abstract") or entry.get("notes_abstract") or ""
    record.abstract = " ".join(abstract.split())
    venue = entry.get("secondary_title") or entry.get("alternate_title3")
    record.venue = venue or entry.get("journal_name") or ""
    publisher = entry.get("publisher", "") if kind in INSTITUTION_TYPES else ""
    record.institution = publisher or entry.get("author_address", "")
    urls = [url for url in entry.get("urls", []) if url]
    record.url = urls[0] if urls else ""
    if entry.get("doi"):
        add_identifier(record, "doi", entry["doi"], "DO")
    for tag, values in (("UR", urls), ("N1", entry.get("notes", []))):
        for value in values:
            if match := ARXIV_ID.search(value):
                add_identifier(record, "arxiv", match.group("id"), tag)
                if match.group("version"):
                    versions = arxiv_versions_upto(match.group("version"), f"{where}: {tag}")
                    record.arxiv_versions = versions[-1:]
    set_date(record, entry, where)
    if ignored := sorted({tag for tag, _ in tags} - set(READ_TAGS)):
        record.notes.append(fields_not_imported(ignored))
    if keywords := entry.get("keywords"):
        # Tags are the editors' vocabulary: a source's keywords are shown, not applied.
        record.notes.append("keywords not imported: " + "; ".join(keywords))
    return record


def unique(names):
    """Each name once, in order: AU and A1 both name the authors, and some files give both."""
    return list(dict.fromkeys(" ".join(name.split()) for name in names))


def display_name(name):
    """'First von Last, Suffix' from RIS's 'von Last, First, Suffix' (a name without a comma, an
    organisation or a name already in display order, is kept as written)."""
    parts = [" ".join(part.split()) for part in name.split(",")]
    if len(parts) == 1 or not parts[1]:
        return parts[0]
    last, first, *rest = parts
    if rest and first.lower() in NAME_SUFFIXES and rest[0].lower() not in NAME_SUFFIXES:
        first, rest[0] = rest[0], first  # "Smith, Jr., Robert": BibTeX's order
    display = f"{first} {last}"
    return ", ".join([display, *(part for part in rest if part)])


def add_identifier(record, scheme, value, tag):
    """The identifier, or a BadImportFile naming the tag it came from."""
    try:
        record.add_identifier(scheme, value)
    except BadImportFile as error:
        reason = str(error).removeprefix(f"{record.where}: ")
        raise BadImportFile(f"{tag}: {reason}", record.where) from None


DATE_TAGS = (("DA", "date"), ("Y1", "publication_year"), ("PY", "year"))


def set_date(record, entry, where):
    """The most precise of DA, Y1 and PY (RIS writes dates as YYYY/MM/DD/other, "2024///" for a
    year alone). An unreadable one beside a readable one is said in the dry run; none readable
    is the record's error."""
    found, unread = [], []
    for tag, key in DATE_TAGS:
        if value := entry.get(key, "").strip():
            parts = ris_date_parts(value)
            (found if parts else unread).append((tag, value, parts))
    if not found and unread:
        tag, value, _ = unread[0]
        raise BadImportFile(
            f"{tag} is not a date (YYYY, YYYY/MM or YYYY/MM/DD): {value[:40]!r}", where
        )
    if found:
        tag, value, parts = max(found, key=lambda item: len(item[2]))
        record.set_date(parts)
        for tag, value, _ in unread:
            record.notes.append(date_not_read(tag, value, len(parts)))


def ris_date_parts(text):
    """[year], [year, month] or [year, month, day] of a RIS date ('2024', '2024///',
    '2024/07//', '2024/07/14/Spring', ISO '2024-07-14'); [] if it is not one."""
    year, month, day, *_ = [*re.split(r"[/-]", text, maxsplit=3), "", ""]
    if not re.fullmatch(r"\d{4}", year.strip()):
        return []
    parts = [year, month, day][: 1 + bool(month.strip()) + bool(month.strip() and day.strip())]
    if not all(re.fullmatch(r"\d{1,2}", part.strip()) for part in parts[1:]):
        return []
    numbers = [int(part) for part in parts]
    try:
        check_year(numbers[0], "year", "")
        datetime.date(*numbers, *[1] * (3 - len(numbers)))
    except (BadImportFile, ValueError):
        return []
    return numbers
