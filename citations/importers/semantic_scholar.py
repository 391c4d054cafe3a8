"""Semantic Scholar Graph API JSON: a paper object (``/graph/v1/paper/{id}``), a list of them (the
batch endpoint) or a ``{"data": [...]}`` page. A paper's ``citations`` / ``references`` may hold
paper objects or the items of the ``/citations`` and ``/references`` endpoints
(``{"contexts", "intents", "isInfluential", "citingPaper" | "citedPaper"}``); the papers at the
other end are imported too, as citation records (outside the research index)."""

from citations.importers.jsonfiles import json_documents
from citations.importers.records import (
    BadImportFile,
    PaperRecord,
    Reference,
    check_text,
    check_year,
    date_or_year,
    malformed_record,
)
from citations.importers.wording import fields_not_imported

# Semantic Scholar's citation intents, mapped to our role slugs; the most specific one wins
# when an edge has several.
INTENT_ROLES = {"methodology": "method", "result": "comparison", "background": "background"}
EXTERNAL_IDS = {"ArXiv": "arxiv", "DOI": "doi"}


def parse(text):
    records = []
    for where, document in json_documents(text):
        if isinstance(document, dict) and isinstance(document.get("data"), list):
            papers = document["data"]
        else:
            papers = document if isinstance(document, list) else [document]
        for number, paper in enumerate(papers, 1):
            item = where if len(papers) == 1 else f"{where}, paper {number}"
            with malformed_record(item):
                records.extend(records_from_paper(paper, item))
    return records


def role_for(intents):
    for intent in INTENT_ROLES:
        if intent in (intents or []):
            return INTENT_ROLES[intent]
    return ""


S2_TYPES = {"JournalArticle": "article", "Conference": "conference"}
# The keys of a paper object a paper field (or an edge) takes.
READ_KEYS = {
    "paperId",
    "externalIds",
    "title",
    "authors",
    "abstract",
    "venue",
    "publicationTypes",
    "year",
    "publicationDate",
    "citations",
    "references",
}


def paper_record(paper, where, in_research_index=True):
    if not isinstance(paper, dict) or not paper.get("paperId"):
        raise BadImportFile("not a Semantic Scholar paper (no paperId)", where)
    where = f"{where} ({str(paper['paperId'])[:12]})"
    with malformed_record(where):
        record = PaperRecord(
            where=where, source="s2", title=check_text(paper.get("title"), "title", where)
        )
        record.require_title()
        record.in_research_index = in_research_index
        record.add_identifier("s2", paper["paperId"])
        for key, scheme in EXTERNAL_IDS.items():
            if value := (paper.get("externalIds") or {}).get(key):
                record.add_identifier(scheme, str(value))
        record.authors = [a.get("name") for a in paper.get("authors") or [] if a.get("name")]
        record.abstract = paper.get("abstract") or ""
        record.venue = paper.get("venue") or ""
        types = paper.get("publicationTypes") or []
        record.publication_type = next(
            (S2_TYPES[t] for t in types if isinstance(t, str) and t in S2_TYPES), ""
        )
        year = check_year(paper.get("year"), "year", where)
        # A paper S2 dates only by its year keeps that year.
        record.set_date(date_or_year(record, "publicationDate", paper.get("publicationDate"), year))
        if ignored := set(paper) - READ_KEYS:
            record.notes.append(fields_not_imported(ignored))
        return record


def records_from_paper(paper, where):
    record = paper_record(paper, where)
    records = [record]
    for field, direction, nested in (
        ("citations", "cited_by", "citingPaper"),
        ("references", "cites", "citedPaper"),
    ):
        for number, item in enumerate(paper.get(field) or [], 1):
            item_where = f"{record.where}, {field}[{number}]"
            if not isinstance(item, dict):
                raise BadImportFile(f"{field} item is not an object", item_where)
            other = paper_record(item.get(nested, item), item_where, in_research_index=False)
            records.append(other)
            record.references.append(
                Reference(
                    identifiers=dict(other.identifiers),
                    direction=direction,
                    role=role_for(item.get("intents")),
                    contexts=[c for c in item.get("contexts") or [] if c],
                    is_influential=item.get("isInfluential"),
                )
            )
    return records
