"""OpenAlex works: one work object, a list response (``{"meta": ..., "results": [...]}``), a JSON
array, or a JSONL snapshot file (one work per line). ``referenced_works`` become edges between
works that are both present, or wait (pending) until the other end arrives."""

from citations.importers.jsonfiles import json_documents
from citations.importers.records import (
    MAX_ABSTRACT_WORDS,
    BadImportFile,
    PaperRecord,
    Reference,
    check_text,
    check_year,
    date_or_year,
    malformed_record,
)
from citations.importers.wording import fields_not_imported

# OpenAlex work types that say what kind of publication a paper is.
OPENALEX_TYPES = {"article": "article", "preprint": "preprint", "report": "report"}
# The keys of a work a paper field (or an edge) takes.
READ_KEYS = {
    "id",
    "type",
    "title",
    "display_name",
    "doi",
    "ids",
    "locations",
    "authorships",
    "abstract_inverted_index",
    "publication_year",
    "publication_date",
    "primary_location",
    "referenced_works",
}


def parse(text):
    records = []
    for where, document in json_documents(text):
        works = document.get("results") if isinstance(document, dict) else document
        if isinstance(document, dict) and "results" not in document:
            works = [document]
        if not isinstance(works, list):
            raise BadImportFile("expected an OpenAlex work or a list of works", where)
        for number, work in enumerate(works, 1):
            item = where if len(works) == 1 else f"{where}, work {number}"
            with malformed_record(item):
                records.append(record_from_work(work, item))
    return records


def abstract_from_inverted_index(index, where=""):
    """OpenAlex ships abstracts as {word: [positions]}; put the words back in order. At most
    MAX_ABSTRACT_WORDS positions, each below it: a few kilobytes of index could otherwise
    ask for a string of gigabytes."""
    if not index:
        return ""
    field = "abstract_inverted_index"
    if not isinstance(index, dict):
        raise BadImportFile(f"{field} must be an object of word: [positions]", where)
    positions = []
    for word, places in index.items():
        if not isinstance(places, list):
            raise BadImportFile(f"{field}: the positions of a word must be a list", where)
        for place in places:
            if not isinstance(place, int) or isinstance(place, bool):
                raise BadImportFile(f"{field}: a position must be a whole number", where)
            if not 0 <= place < MAX_ABSTRACT_WORDS:
                raise BadImportFile(
                    f"{field}: position {place} is beyond an abstract's {MAX_ABSTRACT_WORDS} words",
                    where,
                )
            positions.append((place, word))
            if len(positions) > MAX_ABSTRACT_WORDS:
                raise BadImportFile(
                    f"{field}: more than {MAX_ABSTRACT_WORDS} words in an abstract", where
                )
    return " ".join(word for _, word in sorted(positions))


def record_from_work(work, where):
    if not isinstance(work, dict) or not str(work.get("id", "")).startswith(
        "https://openalex.org/"
    ):
        raise BadImportFile("not an OpenAlex work (no https://openalex.org/ id)", where)
    where = f"{where} ({work['id'].rsplit('/', 1)[-1][:40]})"
    with malformed_record(where):
        title = work.get("title") or work.get("display_name") or ""
        record = PaperRecord(
            where=where, source="openalex", title=check_text(title, "title", where)
        )
        record.require_title()
        record.add_identifier("openalex", work["id"])
        ids = work.get("ids") or {}
        if doi := work.get("doi") or ids.get("doi"):
            record.add_identifier("doi", doi)
        for location in work.get("locations") or []:
            url = (location or {}).get("landing_page_url") or ""
            if "arxiv.org/abs/" in url:
                record.add_identifier("arxiv", url)
        authorships = sorted(
            work.get("authorships") or [],
            key=lambda a: {"first": 0, "middle": 1, "last": 2}.get(a.get("author_position"), 1),
        )
        record.authors = [
            (a.get("author") or {}).get("display_name") or a.get("raw_author_name") or ""
            for a in authorships
        ]
        record.authors = [name for name in record.authors if name]
        institutions = [
            i.get("display_name") for a in authorships for i in a.get("institutions") or []
        ]
        record.institution = next((name for name in institutions if name), "")
        record.abstract = abstract_from_inverted_index(work.get("abstract_inverted_index"), where)
        year = work.get("publication_year")
        if year is not None:
            if isinstance(year, str):  # OpenAlex sends a number; text is a malformed record
                raise BadImportFile("publication_year must be a number, not text", where)
            year = check_year(year, "publication_year", where)
        date = work.get("publication_date")
        record.set_date(date_or_year(record, "publication_date", date, year))
        record.publication_type = OPENALEX_TYPES.get(str(work.get("type") or ""), "")
        source = ((work.get("primary_location") or {}).get("source")) or {}
        record.venue = source.get("display_name") or ""
        for cited in work.get("referenced_works") or []:
            try:
                record.references.append(
                    Reference(identifiers={"openalex": cited.rsplit("/", 1)[-1]})
                )
            except AttributeError:
                raise BadImportFile(f"referenced_works holds {cited!r}", where) from None
        if ignored := set(work) - READ_KEYS:
            record.notes.append(fields_not_imported(ignored))
        return record
