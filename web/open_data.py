"""The open-data pages: /about/data/ (formats, the CiTO mapping of our citation roles and
polarities, feeds, the dump) and the public dump's stable download URL."""

import re

from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import render
from django.utils.cache import get_conditional_response
from django.views.decorators.http import require_safe

from citations.exports.downloads import EXPORT_FORMATS, EXPORT_LIMIT
from citations.exports.formats import (
    CITO,
    CITO_FALLBACK,
    CITO_POLARITIES,
    CITO_ROLES,
    JSON_LD_CITATION_LIMIT,
    PAGE_JSON_LD_CITATION_LIMIT,
)
from citations.models import CitationPolarity, CitationRole
from pagecache.caching import reads_query
from web import dump
from web.dump import latest_dump_details


def cito_rows(model, table):
    """(term, its CiTO characterisation, the characterisation's IRI) for every term in use."""
    rows = []
    for term in model.objects.all():
        cito = table.get(term.slug, CITO_FALLBACK)
        rows.append((term, cito, CITO + cito.removeprefix("cito:")))
    return rows


@reads_query()
@require_safe
def about_data(request):
    context = {
        "roles": cito_rows(CitationRole, CITO_ROLES),
        "polarities": cito_rows(CitationPolarity, CITO_POLARITIES),
        "cito_fallback": CITO_FALLBACK,
        "formats": EXPORT_FORMATS.values(),
        "export_limit": EXPORT_LIMIT,
        "json_ld_limit": JSON_LD_CITATION_LIMIT,
        "page_json_ld_limit": PAGE_JSON_LD_CITATION_LIMIT,
        "dump": latest_dump_details(),
    }
    return render(request, "about_data.html", context)


# One range: "bytes=START-END", "bytes=START-" or "bytes=-LAST" (what download managers send).
BYTE_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@reads_query()
@require_safe
def latest_dump(request):
    """The newest public dump, at a stable address (whitenoise serves only build-time files),
    with its SHA-256 as the ETag, 304s for it, and one byte range at a time for resumed and
    mirrored downloads."""
    path = dump.latest_dump()
    if path is None:
        raise Http404("No dump has been written yet.")
    digest = path.with_name(path.name + ".sha256")
    checksum = digest.read_text().split()[0] if digest.exists() else None
    etag = f'"{checksum}"' if checksum else None
    size = path.stat().st_size
    if etag:
        not_modified = get_conditional_response(request, etag=etag)
        if not_modified is not None:
            return not_modified
    wanted = byte_range(request, size, etag)
    if wanted == "unsatisfiable":
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
        return response
    handle = path.open("rb")
    if wanted is None:
        response = FileResponse(handle, as_attachment=True, filename=path.name)
    else:
        start, end = wanted
        handle.seek(start)
        response = FileResponse(
            LimitedReader(handle, end - start + 1), as_attachment=True, filename=path.name
        )
        response.status_code = 206
        response["Content-Range"] = f"bytes {start}-{end}/{size}"
        response["Content-Length"] = str(end - start + 1)
    response["Content-Type"] = "application/zip"
    response["Accept-Ranges"] = "bytes"
    if checksum:
        response["X-Checksum-SHA256"] = checksum
        response["ETag"] = etag
    return response


def byte_range(request, size, etag):
    """(start, end) of the one range asked for; None for the whole file (no Range, a Range
    this does not serve, or an If-Range naming another version); "unsatisfiable"."""
    match = BYTE_RANGE.match(request.headers.get("Range", "").strip())
    if match is None or ("If-Range" in request.headers and request.headers["If-Range"] != etag):
        return None
    first, last = match.groups()
    if (not first and not last) or (first and last and int(last) < int(first)):
        return None  # not a valid range: RFC 9110 says to ignore it
    if not first:  # the last N bytes
        start, end = max(0, size - int(last)), size - 1
    else:
        start, end = int(first), min(int(last), size - 1) if last else size - 1
    if start >= size or start > end:
        return "unsatisfiable"
    return start, end


class LimitedReader:
    """A file read only up to `remaining` bytes: FileResponse streams it in blocks."""

    def __init__(self, handle, remaining):
        self.handle, self.remaining = handle, remaining

    def read(self, size=-1):
        if self.remaining <= 0:
            return b""
        size = self.remaining if size is None or size < 0 else min(size, self.remaining)
        data = self.handle.read(size)
        self.remaining -= len(data)
        return data

    def close(self):
        self.handle.close()
