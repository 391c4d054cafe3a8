"""BibTeX (.bib files or pasted text), read with bibtexparser 2.

Names are split by bibtexparser ("von" parts, "Jr." parts, braced corporate names kept whole)
and their LaTeX decoded by pylatexenc (its dependency): ``M{\\"u}ller, J{\\"o}rg`` is
"Jörg Müller", ``van der Berg, Jan`` is "Jan van der Berg".
"""

import re

import bibtexparser
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from pylatexenc.latex2text import LatexNodes2Text

from .records import BadImportFile, PaperRecord, parse_date

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


def parse(text):
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
    return [record_from_entry(entry) for entry in library.entries]


# BibTeX entry types that say what kind of publication a paper is (others say nothing we keep).
BIBTEX_TYPES = {
    "article": "article",
    "inproceedings": "conference",
    "conference": "conference",
    "techreport": "report",
    "report": "report",
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
    record.publication_type = BIBTEX_TYPES.get(entry.entry_type.lower(), "")
    record.url = fields.get("url", "").strip()
    prefix = fields.get("archiveprefix", fields.get("eprinttype", "")).lower()
    if fields.get("eprint") and (prefix == "arxiv" or not prefix):
        eprint = fields["eprint"].strip()
        record.add_identifier("arxiv", eprint)
        if re.search(r"v\d+$", eprint):
            record.arxiv_versions = ["v" + eprint.rsplit("v", 1)[-1]]
    if fields.get("doi"):
        record.add_identifier("doi", fields["doi"])
    if fields.get("date"):
        record.publication_date, record.year = parse_date(fields["date"], where)
    elif fields.get("year"):
        year = fields["year"].strip()
        if not year.isdigit():
            raise BadImportFile(f"year is not a number: {year!r}", where)
        record.year = int(year)
    return record
