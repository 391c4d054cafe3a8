"""CSL-JSON, as Zotero and citation managers export it: an array of items (or one item)."""

import datetime

from .jsonfiles import json_documents
from .records import BadImportFile, PaperRecord


def parse(text):
    records = []
    for where, document in json_documents(text):
        items = document if isinstance(document, list) else [document]
        for number, item in enumerate(items, 1):
            records.append(record_from_item(item, f"item {number}" if len(items) > 1 else where))
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


def issued(item, where):
    parts = ((item.get("issued") or {}).get("date-parts") or [[]])[0] or []
    try:
        numbers = [int(p) for p in parts]
        if len(numbers) == 3:
            return datetime.date(*numbers), numbers[0]
    except (TypeError, ValueError):
        raise BadImportFile(f"issued date-parts is not a date: {parts!r}", where) from None
    return None, (numbers[0] if numbers else None)


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
    where = f"{where} ({item.get('id', 'no id')})"
    record = PaperRecord(
        where=where, source="csl", title=" ".join((item.get("title") or "").split())
    )
    record.require_title()
    record.authors = [name_of(p) for p in item.get("author") or [] if isinstance(p, dict)]
    record.abstract = item.get("abstract") or ""
    record.venue = item.get("container-title") or ""
    record.publication_type = CSL_TYPES.get(str(item.get("type")), "")
    record.url = item.get("URL") or ""
    if item.get("DOI"):
        record.add_identifier("doi", item["DOI"])
    # Zotero puts an arXiv preprint's id in "number" ("arXiv:2510.13786") or the URL.
    for candidate in (item.get("number"), record.url):
        if candidate and "arxiv" in candidate.lower():
            record.add_identifier("arxiv", candidate.split()[0])
    record.publication_date, record.year = issued(item, where)
    return record
