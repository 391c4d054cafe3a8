"""Papers in from the formats researchers already have, through one code path.

    records = parse(text, "bibtex")   # or format=None to guess it from the content
    plan = make_plan(records)         # the dry run: create/update/merge/skip, with reasons
    plan.apply()                      # one transaction; re-running the file changes nothing

The management command (`import_papers`), the admin and the API (`POST /api/v1/imports/`) all
go through these three calls.
"""

from . import arxiv, bibtex, csl, openalex, semantic_scholar
from .plan import Plan, make_plan
from .records import BadImportFile, PaperRecord

PARSERS = {
    "bibtex": bibtex.parse,
    "arxiv": arxiv.parse,
    "openalex": openalex.parse,
    "s2": semantic_scholar.parse,
    "csl": csl.parse,
}
FORMATS = tuple(PARSERS)

__all__ = ["FORMATS", "BadImportFile", "PaperRecord", "Plan", "detect_format", "make_plan", "parse"]


def detect_format(text):
    """The format a text is in, guessed from its content; a BadImportFile if none fits."""
    head = text.lstrip()[:4000]
    if head.startswith("@") or "\n@" in head[:500]:
        return "bibtex"
    if head.startswith("<"):
        return "arxiv"
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


def parse(text, format=None):
    """Records from a text in `format` (guessed when None)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise BadImportFile(f"not UTF-8 text (byte {error.start})") from None
    format = format or detect_format(text)
    if format == "arxiv-ids":
        return [
            PaperRecord(where=f"line {n}", source="arxiv-ids", identifiers={"arxiv": arxiv_id})
            for n, arxiv_id in enumerate(arxiv_id_list(text), 1)
        ]
    if format not in PARSERS:
        raise BadImportFile(f"unknown format {format!r}: use one of " + ", ".join(FORMATS))
    return PARSERS[format](text)
