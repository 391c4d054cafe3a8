"""BibTeX (.bib files or pasted text), read with bibtexparser 2.

Names are split by bibtexparser ("von" parts, "Jr." parts, braced corporate names kept whole)
and their LaTeX decoded by pylatexenc (its dependency): ``M{\\"u}ller, J{\\"o}rg`` is
"Jörg Müller", ``van der Berg, Jan`` is "Jan van der Berg".
"""

import re

import bibtexparser
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from pylatexenc.latex2text import LatexNodes2Text

from citations.importers.records import (
    BadImportFile,
    PaperRecord,
    arxiv_versions_upto,
    date_parts,
    malformed_record,
    year_only,
)
from citations.importers.wording import date_not_read, fields_not_imported

# No BibTeX needs more than a handful of nested braces; pylatexenc and bibtexparser recurse on
# each level (1000 levels were a RecursionError, a 500).
MAX_BRACE_DEPTH = 32
BRACES = re.compile(r"[{}\n]")

_latex = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def decode(text):
    """LaTeX to plain Unicode text, braces and escapes gone, spacing collapsed."""
    return " ".join(_latex.latex_to_text(text or "").split())


def display_name(parts):
    """'First von Last, Jr.' from bibtexparser's NameParts."""
    name = " ".join(decode(" ".join(p)) for p in (parts.first, parts.von, parts.last) if p)
    if parts.jr:
        name += ", " + decode(" ".join(parts.jr))
    return name


def check_brace_depth(text):
    depth, line = 0, 1
    for match in BRACES.finditer(text):
        char = match.group()
        if char == "\n":
            line += 1
        elif char == "{":
            depth += 1
            if depth > MAX_BRACE_DEPTH:
                raise BadImportFile(
                    f"braces nested more than {MAX_BRACE_DEPTH} deep", f"line {line}"
                )
        else:
            depth = max(depth - 1, 0)


def parse(text):
    check_brace_depth(text)
    library = bibtexparser.parse_string(
        text, append_middleware=[SeparateCoAuthors(), SplitNameParts()]
    )
    if library.failed_blocks:
        block = library.failed_blocks[0]
        error = getattr(block, "error", None)
        reason = " ".join(str(getattr(error, "abort_reason", "") or error or "").split())
        first_line = block.raw.strip().splitlines()[0][:80]
        raise BadImportFile(
            f"BibTeX {first_line!r} cannot be read: {reason or 'syntax error'}",
            f"line {block.start_line + 1}",
        )
    if not library.entries and text.strip():
        raise BadImportFile("no BibTeX entries found", "line 1")
    records = []
    for entry in library.entries:
        with malformed_record(f"line {entry.start_line + 1} (@{entry.entry_type}{{{entry.key}}})"):
            records.append(record_from_entry(entry))
    return records


# BibTeX entry types that say what kind of publication a paper is (others say nothing we keep).
BIBTEX_TYPES = {
    "article": "article",
    "inproceedings": "conference",
    "conference": "conference",
    "techreport": "report",
    "report": "report",
}
# Entry types that say nothing of the kind of publication, but with an arXiv id are how BibTeX
# writes a preprint (our exports too: a preprint is @misc with eprint and archivePrefix).
PREPRINT_TYPES = {"misc", "unpublished"}


# The BibTeX fields an import reads (or knows it need not: the key and the type are the entry's).
READ_FIELDS = {
    "title",
    "author",
    "abstract",
    "journal",
    "booktitle",
    "institution",
    "school",
    "url",
    "archiveprefix",
    "eprinttype",
    "eprint",
    "primaryclass",
    "doi",
    "date",
    "year",
    "month",
}


def record_from_entry(entry):
    where = f"line {entry.start_line + 1} (@{entry.entry_type}{{{entry.key}}})"
    fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
    record = PaperRecord(where=where, source="bibtex", title=decode(fields.get("title", "")))
    record.require_title()
    try:
        record.authors = [display_name(parts) for parts in fields.get("author", [])]
    except (TypeError, AttributeError):
        raise BadImportFile("unreadable author list", where) from None
    record.abstract = decode(fields.get("abstract", ""))
    record.venue = decode(fields.get("journal") or fields.get("booktitle") or "")
    record.institution = decode(fields.get("institution") or fields.get("school") or "")
    if fields.get("primaryclass"):
        record.categories = [fields["primaryclass"].strip()]
    if ignored := sorted(set(fields) - READ_FIELDS):
        record.notes.append(fields_not_imported(ignored))
    record.publication_type = BIBTEX_TYPES.get(entry.entry_type.lower(), "")
    record.url = fields.get("url", "").strip()
    prefix = fields.get("archiveprefix", fields.get("eprinttype", "")).lower()
    if fields.get("eprint") and (prefix == "arxiv" or not prefix):
        eprint = fields["eprint"].strip()
        record.add_identifier("arxiv", eprint)
        if version := re.search(r"v(\d+)$", eprint):
            record.arxiv_versions = arxiv_versions_upto(version.group(1), where)[-1:]
    if fields.get("doi"):
        record.add_identifier("doi", fields["doi"])
    if entry.entry_type.lower() in PREPRINT_TYPES and "arxiv" in record.identifiers:
        record.publication_type = "preprint"
    if fields.get("date"):
        record.set_date(date_parts(fields["date"], where))
    elif fields.get("year"):
        year = fields["year"].strip()
        if not year.isdigit() or len(year) > 4:
            raise BadImportFile(f"year is not a year from 1 to 9999: {year[:20]!r}", where)
        record.set_date(year_only(year) + bibtex_month(fields.get("month", ""), record))
    return record


MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def bibtex_month(text, record):
    """[month] from BibTeX's `month` (a macro such as jul, a name or a number); [] when absent
    or unreadable (said in the dry run: the date is kept to its year)."""
    text = decode(text).strip().lower()
    if not text:
        return []
    if text.isdigit() and 1 <= int(text) <= 12:
        return [int(text)]
    if text[:3] in MONTHS:
        return [MONTHS.index(text[:3]) + 1]
    record.notes.append(date_not_read("month", text, 1))
    return []
