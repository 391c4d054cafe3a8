"""CSL-JSON, as Zotero and citation managers export it: an array of items (or one item)."""

from citations.importers.jsonfiles import json_documents
from citations.importers.records import (
    BadImportFile,
    PaperRecord,
    check_text,
    check_year,
    malformed_record,
)
from citations.importers.wording import date_not_read, fields_not_imported

# The keys of an item a paper field takes (id and type name and sort it; a report's publisher
# is its institution).
READ_KEYS = {
    "id",
    "type",
    "title",
    "author",
    "abstract",
    "container-title",
    "URL",
    "DOI",
    "number",
    "archive",
    "archive_location",
    "issued",
}


def parse(text):
    records = []
    for where, document in json_documents(text):
        items = document if isinstance(document, list) else [document]
        for number, item in enumerate(items, 1):
            item_where = f"item {number}" if len(items) > 1 else where
            with malformed_record(item_where):
                records.append(record_from_item(item, item_where))
    return records


def name_of(person):
    if person.get("literal"):
        return person["literal"]
    parts = [
        person.get("given"),
        person.get("dropping-particle"),
        person.get("non-dropping-particle"),
        person.get("family"),
    ]
    name = " ".join(p for p in parts if p)
    return f"{name}, {person['suffix']}" if person.get("suffix") else name


def issued(item, where, record=None):
    """`issued`'s date-parts as far as they go: [[2025]], [[2025, 7]] or [[2025, 7, 14]]. A date
    given only as text (`raw`, `literal`, a season) is not read, and the dry run says so."""
    date = item.get("issued") or {}
    parts = (date.get("date-parts") or [[]])[0] or []
    if not parts and record is not None:
        for key in ("raw", "literal", "season"):
            if date.get(key):
                record.notes.append(date_not_read(f"issued {key}", date[key], 0))
                break
    try:
        if not isinstance(parts, list) or any(len(str(p)) > 4 for p in parts):
            raise ValueError
        numbers = [int(p) for p in parts]
        check_year(numbers[0] if numbers else None, "issued", where)
        if len(numbers) >= 2 and not 1 <= numbers[1] <= 12:
            raise ValueError
        return numbers
    except (TypeError, ValueError, OverflowError):
        raise BadImportFile(f"issued date-parts is not a date: {parts!r}", where) from None


# CSL types that say what kind of publication a paper is ("article" is CSL's preprint).
CSL_TYPES = {
    "article-journal": "article",
    "paper-conference": "conference",
    "report": "report",
    "article": "preprint",
}


def record_from_item(item, where):
    if not isinstance(item, dict) or "type" not in item:
        raise BadImportFile("not a CSL-JSON item (no type)", where)
    where = f"{where} ({str(item.get('id', 'no id'))[:40]})"
    with malformed_record(where):
        record = PaperRecord(
            where=where,
            source="csl",
            title=" ".join(check_text(item.get("title"), "title", where).split()),
        )
        record.require_title()
        record.authors = [name_of(p) for p in item.get("author") or [] if isinstance(p, dict)]
        record.abstract = item.get("abstract") or ""
        record.venue = item.get("container-title") or ""
        record.publication_type = CSL_TYPES.get(str(item.get("type")), "")
        if record.publication_type == "report":  # a report's publisher is its institution
            record.institution = str(item.get("publisher") or "")
        record.url = item.get("URL") or ""
        if item.get("DOI"):
            record.add_identifier("doi", item["DOI"])
        # Zotero puts an arXiv preprint's id in "number" ("arXiv:2510.13786") or the URL.
        for candidate in (item.get("number"), record.url):
            if candidate and "arxiv" in candidate.lower():
                record.add_identifier("arxiv", candidate.split()[0])
        # This site's exports (and Zotero's) name an arXiv id as the archive's location.
        if str(item.get("archive", "")).lower() == "arxiv" and item.get("archive_location"):
            record.add_identifier("arxiv", str(item["archive_location"]).split()[0])
        record.set_date(issued(item, where, record))
        read = READ_KEYS | ({"publisher"} if record.publication_type == "report" else set())
        if ignored := set(item) - read:
            record.notes.append(fields_not_imported(ignored))
        return record
