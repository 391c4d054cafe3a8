"""Papers in from the formats researchers already have, through one code path.

    records = parse(text, "bibtex")   # or format=None to guess it from the content
    plan = make_plan(records)         # the dry run: create/update/merge/skip, with reasons
    plan.apply()                      # one transaction; re-running the file changes nothing

The management command (`import_papers`), the admin and the API (`POST /api/v1/imports/`) all
go through these three calls.
"""

from citations.importers import arxiv, bibtex, csl, openalex, ris, semantic_scholar
from citations.importers.plan import Plan, make_plan
from citations.importers.records import BadImportFile, PaperRecord

PARSERS = {
    "bibtex": bibtex.parse,
    "arxiv": arxiv.parse,
    "openalex": openalex.parse,
    "s2": semantic_scholar.parse,
    "csl": csl.parse,
    "ris": ris.parse,
}
FORMATS = tuple(PARSERS)
# Each format (and a list of arXiv ids) by the name editors know it by.
FORMAT_NAMES = {
    "bibtex": "BibTeX",
    "arxiv": "arXiv API (Atom)",
    "openalex": "OpenAlex",
    "s2": "Semantic Scholar",
    "csl": "CSL-JSON",
    "ris": "RIS",
    "arxiv-ids": "arXiv ids",
}

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "BadImportFile",
    "PaperRecord",
    "Plan",
    "detect_format",
    "iter_record_batches",
    "make_plan",
    "parse",
]


def detect_format(text):
    """The format a text is in, guessed from its content; a BadImportFile if none fits."""
    head = text.lstrip()[:4000]
    if head.startswith("@") or "\n@" in head[:500]:
        return "bibtex"
    if head.startswith("<"):
        return "arxiv"
    if head.startswith("TY  -"):
        return "ris"
    if head.startswith(("{", "[")):
        if '"https://openalex.org/' in head:
            return "openalex"
        if '"paperId"' in head:
            return "s2"
        if '"type"' in head:
            return "csl"
    if arxiv_id_list(text):
        return "arxiv-ids"
    raise BadImportFile("cannot tell the format: use one of " + ", ".join(FORMATS), "line 1")


def arxiv_id_list(text):
    """The ids of a pasted list of arXiv ids (one per line), or None if it is not one."""
    from django.core.exceptions import ValidationError

    from citations.identifiers import normalise_arxiv_id

    ids = []
    for line in text.splitlines():
        if line.strip():
            try:
                ids.append(normalise_arxiv_id(line.strip()))
            except ValidationError:
                return None
    return ids or None


XML_STARTS = (b"\xef\xbb\xbf<", b"\xff\xfe<\x00", b"\xfe\xff\x00<", b"<\x00", b"\x00<")


def _looks_like_xml(data):
    """An XML document in UTF-8 or UTF-16, with or without a byte order mark."""
    return data.lstrip(b" \t\r\n").startswith((*XML_STARTS, b"<?xml", b"<feed"))


def parse(text, format=None):
    """Records from a text in `format` (guessed when None)."""
    if isinstance(text, bytes) and (format == "arxiv" or _looks_like_xml(text)):
        return arxiv.parse(text)  # XML names its own encoding (UTF-16 included)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise BadImportFile(f"not UTF-8 text (byte {error.start})") from None
    format = format or detect_format(text)
    if format == "arxiv-ids":
        ids = arxiv_id_list(text)
        if ids is None:  # the format was named, not guessed
            raise BadImportFile("not a list of arXiv ids, one per line")
        return [
            PaperRecord(where=f"line {n}", source="arxiv-ids", identifiers={"arxiv": arxiv_id})
            for n, arxiv_id in enumerate(ids, 1)
        ]
    if format not in PARSERS:
        raise BadImportFile(f"unknown format {format!r}: use one of " + ", ".join(FORMATS))
    try:
        records = PARSERS[format](text)
    except RecursionError:
        raise BadImportFile("nested too deeply to read") from None
    for record in records:
        record.check()
    return records


def iter_record_batches(path, format=None, size=500):
    """Lists of at most `size` records from a file. A JSONL file (one JSON document per line) is
    read line by line, so memory stays flat however large it is; other files are parsed whole
    and then cut into batches."""
    try:
        yield from _record_batches(path, format, size)
    except UnicodeDecodeError as error:
        raise BadImportFile(f"not UTF-8 text (byte {error.start})") from None


def _record_batches(path, format, size):
    with open(path, encoding="utf-8-sig") as lines:
        head = lines.read(4000)
        lines.seek(0)
        format = format or detect_format(head)
        first = head.lstrip().split("\n", 1)[0].strip()
        jsonl = (
            format in ("openalex", "s2", "csl") and first.startswith("{") and first.endswith("}")
        )
        if not jsonl:
            records = parse(lines.read(), format)
            for start in range(0, len(records), size):
                yield records[start : start + size]
            return
        for chunk in numbered_chunks(lines, size):
            yield _parse_lines(chunk, format)


def numbered_chunks(lines, size):
    """Lists of at most `size` (line number, line) pairs: the lines that are not blank."""
    chunk = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            chunk.append((number, line))
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _parse_lines(chunk, format):
    """Records from (line number, JSON line) pairs, errors naming the file's own line."""
    records = []
    for number, line in chunk:
        try:
            found = PARSERS[format](line)
        except BadImportFile as error:
            message = str(error).split(": ", 1)[-1] if error.where else str(error)
            raise BadImportFile(message, f"line {number}") from None
        for record in found:
            record.where = record.where.replace("record 1", f"line {number}", 1)
            record.check()
        records += found
    return records
