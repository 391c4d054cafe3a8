"""The open-data pages: /about/data/ (formats, the CiTO mapping of our citation roles and
polarities, feeds, the dump) and the public dump's stable download URL."""

from django.http import FileResponse, Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from citations.exports import EXPORT_FORMATS, EXPORT_LIMIT
from citations.formats import (
    CITO,
    CITO_FALLBACK,
    CITO_POLARITIES,
    CITO_ROLES,
    JSON_LD_CITATION_LIMIT,
    PAGE_JSON_LD_CITATION_LIMIT,
)
from citations.models import CitationPolarity, CitationRole
from pagecache.caching import reads_query
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


@reads_query()
@require_safe
def latest_dump(request):
    """The newest public dump, at a stable address (whitenoise serves only build-time files)."""
    from web.dump import latest_dump as newest

    path = newest()
    if path is None:
        raise Http404("No dump has been written yet.")
    response = FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
    response["Content-Type"] = "application/zip"
    digest = path.with_name(path.name + ".sha256")
    if digest.exists():
        response["X-Checksum-SHA256"] = digest.read_text().split()[0]
    return response
