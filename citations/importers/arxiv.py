"""arXiv API responses: the Atom XML that http://export.arxiv.org/api/query returns."""

import re
import xml.etree.ElementTree as ET

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from citations.importers.records import (
    BadImportFile,
    PaperRecord,
    arxiv_versions_upto,
    date_parts,
    malformed_record,
)
from citations.importers.wording import fields_not_imported

NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
# The elements of an entry a paper field takes, as arXiv names them ("arxiv:doi"); the links
# are the abstract page (kept as the URL, from the id) and the PDF (derived from the id).
READ_ELEMENTS = {
    "id",
    "title",
    "summary",
    "author",
    "published",
    "link",
    "category",
    "arxiv:doi",
    "arxiv:journal_ref",
    "arxiv:primary_category",
}
PREFIXES = {f"{{{uri}}}": "" if name == "atom" else f"{name}:" for name, uri in NS.items()}
ABS_URL = re.compile(r"arxiv\.org/abs/(?P<id>.+?)(?:v(?P<version>\d+))?$")


def parse(text):
    """Records from an arXiv Atom feed: text, or bytes in any encoding XML allows (the parser
    reads the byte order mark and the declaration)."""
    data = text.encode() if isinstance(text, str) else text
    try:
        # arXiv's responses have no DTD: the parser refuses any (so entity expansion and
        # external references never happen), whatever the encoding; a check on the text could
        # not see "<!DOCTYPE" in a UTF-16 file read as UTF-8.
        parser = SafeET.DefusedXMLParser(
            forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
        parser.feed(data)
        root = parser.close()
    except DefusedXmlException:
        line = f"line {parser.parser.CurrentLineNumber}"
        raise BadImportFile("DTDs and entities are not accepted in an arXiv feed", line) from None
    except ET.ParseError as error:
        line, column = error.position
        raise BadImportFile(f"not well-formed XML ({error.msg})", f"line {line}") from None
    if root.tag != f"{{{NS['atom']}}}feed":
        raise BadImportFile("not an arXiv API Atom feed (no <feed> root)", "line 1")
    records = []
    for number, entry in enumerate(root.findall("atom:entry", NS), 1):
        with malformed_record(f"entry {number}"):
            records.append(record_from_entry(entry, number))
    return records


def _text(element, path):
    found = element.find(path, NS)
    return " ".join((found.text or "").split()) if found is not None else ""


def record_from_entry(entry, number):
    id_url = _text(entry, "atom:id")
    where = f"entry {number} ({id_url[:80] or 'no id'})"
    # arXiv answers an unknown id with an entry titled "Error".
    if _text(entry, "atom:title") == "Error":
        raise BadImportFile(f"arXiv error entry: {_text(entry, 'atom:summary')}", where)
    match = ABS_URL.search(id_url)
    if not match:
        raise BadImportFile("entry <id> is not an arxiv.org/abs/ address", where)
    record = PaperRecord(where=where, source="arxiv", title=_text(entry, "atom:title"))
    record.require_title()
    record.add_identifier("arxiv", match.group("id"))
    if match.group("version"):
        record.arxiv_versions = arxiv_versions_upto(match.group("version"), where)
    record.url = f"https://arxiv.org/abs/{record.identifiers['arxiv']}"
    record.authors = [_text(a, "atom:name") for a in entry.findall("atom:author", NS)]
    affiliations = [_text(a, "arxiv:affiliation") for a in entry.findall("atom:author", NS)]
    record.institution = next((a for a in affiliations if a), "")
    record.abstract = _text(entry, "atom:summary")
    record.set_date(date_parts(_text(entry, "atom:published"), where))
    if doi := _text(entry, "arxiv:doi"):
        record.add_identifier("doi", doi)
    record.venue = _text(entry, "arxiv:journal_ref")
    categories = [c.get("term") for c in entry.findall("atom:category", NS)]
    primary = entry.find("arxiv:primary_category", NS)
    if primary is not None and primary.get("term"):  # the primary category first
        categories = [primary.get("term"), *(c for c in categories if c != primary.get("term"))]
    record.categories = categories
    if ignored := {element_name(child.tag) for child in entry} - READ_ELEMENTS:
        record.notes.append(fields_not_imported(ignored))
    return record


def element_name(tag):
    """An element's tag as arXiv's documentation names it: "updated", "arxiv:comment"."""
    namespace, _, local = tag.rpartition("}")
    return PREFIXES.get(f"{namespace}}}", f"{namespace}}}" if namespace else "") + local
