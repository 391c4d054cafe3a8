"""arXiv API responses: the Atom XML that http://export.arxiv.org/api/query returns."""

import re
import xml.etree.ElementTree as ET

from .records import BadImportFile, PaperRecord, parse_date

NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
ABS_URL = re.compile(r"arxiv\.org/abs/(?P<id>.+?)(?:v(?P<version>\d+))?$")


def parse(text):
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        # arXiv's responses have none; refusing DTDs keeps entity expansion out altogether.
        line = text[: text.find("<!")].count("\n") + 1
        raise BadImportFile("DTDs and entities are not accepted in an arXiv feed", f"line {line}")
    try:
        root = ET.fromstring(text.encode() if isinstance(text, str) else text)
    except ET.ParseError as error:
        line, column = error.position
        raise BadImportFile(f"not well-formed XML ({error.msg})", f"line {line}") from None
    if root.tag != f"{{{NS['atom']}}}feed":
        raise BadImportFile("not an arXiv API Atom feed (no <feed> root)", "line 1")
    return [
        record_from_entry(entry, number)
        for number, entry in enumerate(root.findall("atom:entry", NS), 1)
    ]


def _text(element, path):
    found = element.find(path, NS)
    return " ".join((found.text or "").split()) if found is not None else ""


def record_from_entry(entry, number):
    id_url = _text(entry, "atom:id")
    where = f"entry {number} ({id_url or 'no id'})"
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
        record.arxiv_versions = [f"v{n}" for n in range(1, int(match.group("version")) + 1)]
    record.url = f"https://arxiv.org/abs/{record.identifiers['arxiv']}"
    record.authors = [_text(a, "atom:name") for a in entry.findall("atom:author", NS)]
    affiliations = [_text(a, "arxiv:affiliation") for a in entry.findall("atom:author", NS)]
    record.institution = next((a for a in affiliations if a), "")
    record.abstract = _text(entry, "atom:summary")
    record.publication_date, record.year = parse_date(_text(entry, "atom:published"), where)
    if doi := _text(entry, "arxiv:doi"):
        record.add_identifier("doi", doi)
    record.venue = _text(entry, "arxiv:journal_ref")
    categories = [c.get("term") for c in entry.findall("atom:category", NS)]
    primary = entry.find("arxiv:primary_category", NS)
    if primary is not None and primary.get("term"):  # the primary category first
        categories = [primary.get("term"), *(c for c in categories if c != primary.get("term"))]
    record.categories = categories
    return record
