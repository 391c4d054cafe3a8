"""Papers by any identifier: the batch lookup (`POST /api/v1/papers/batch`) and the identifier
aliases in the path (`/api/v1/papers/arxiv:2510.13786/`, `/api/v1/papers/doi:10.x/y/`).

An identifier is a slug (current or old), an arXiv id or a DOI, bare or prefixed (`arxiv:`,
`doi:`, an arxiv.org or doi.org URL); arXiv's DataCite DOIs name the arXiv paper. Identifiers a
paper keeps from an import or a merge count too. Only papers the requester may see are found:
for the public a draft is an unknown paper (no answer tells the two apart).
"""

import re

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q
from django.http import HttpResponseRedirect
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from apikit.params import StrictQueryParametersMixin
from apikit.sparse import SparseFieldsetsMixin
from apikit.throttles import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle
from citations.api.serializers import PaperSerializer
from citations.api.views import PaperRepresentationMixin
from citations.identifiers import (
    ARXIV_DOI_PREFIX,
    ARXIV_ID,
    ARXIV_PREFIXES,
    DOI_PREFIXES,
    arxiv_id_from_doi,
    normalise_arxiv_id,
    normalise_doi,
)
from citations.identity import PaperIdentifier, PaperSlugAlias, Scheme, identifiers_of
from citations.models import Paper
from core.text import UNWANTED

MAX_BATCH = 500
SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
SLUG_SCHEME = "slug"


def classify(identifier):
    """(scheme, normal form) for one identifier as a client wrote it; None when it cannot
    name a paper (malformed)."""
    text = str(identifier).strip()
    if UNWANTED.search(text):
        return None  # no identifier holds control characters or lone surrogates
    lower = text.lower()
    try:
        if lower.startswith(ARXIV_PREFIXES) or ARXIV_ID.match(text):
            return Scheme.ARXIV.value, normalise_arxiv_id(text)
        if lower.startswith((*DOI_PREFIXES, "10.")):
            doi = normalise_doi(text)
            arxiv_id = arxiv_id_from_doi(doi)
            return (Scheme.ARXIV.value, arxiv_id) if arxiv_id else (Scheme.DOI.value, doi)
    except DjangoValidationError:
        return None
    if SLUG.match(text):
        return SLUG_SCHEME, text
    return None


def resolve(keys, papers):
    """{(scheme, value): paper pk} for the classified `keys` among `papers` (the queryset of
    papers the requester may see), in a fixed number of queries however many keys."""
    wanted = {scheme: {value for s, value in keys if s == scheme} for scheme, _ in keys}
    slugs = wanted.get(SLUG_SCHEME, set())
    arxiv_ids = wanted.get(Scheme.ARXIV.value, set())
    dois = wanted.get(Scheme.DOI.value, set())
    found = {}
    if slugs:
        for slug, pk in papers.filter(slug__in=slugs).values_list("slug", "pk"):
            found[(SLUG_SCHEME, slug)] = pk
        old = slugs - {slug for _, slug in found}
        if old:
            aliases = PaperSlugAlias.objects.filter(slug__in=old, paper__in=papers.values("pk"))
            for slug, pk in aliases.values_list("slug", "paper_id"):
                found[(SLUG_SCHEME, slug)] = pk
    if arxiv_ids or dois:
        datacite = {f"{ARXIV_DOI_PREFIX}{arxiv_id}".lower() for arxiv_id in arxiv_ids}
        # DOIs are stored in lower case, like `dois`: exact matches on the unique indexes. The
        # papers holding one as another identifier are read first (an OR across that join
        # scanned every paper).
        holders = PaperIdentifier.objects.filter(
            Q(scheme=Scheme.ARXIV, value__in=arxiv_ids) | Q(scheme=Scheme.DOI, value__in=dois)
        ).values_list("paper_id", flat=True)
        matches = (
            papers.filter(
                Q(arxiv_id__in=arxiv_ids) | Q(doi__in=datacite | dois) | Q(pk__in=list(holders))
            )
            .only("pk", "arxiv_id", "doi")
            .prefetch_related("other_identifiers")
        )
        for paper in matches:
            for key in identifiers_of(paper) & set(keys):
                found.setdefault(key, paper.pk)
    return found


class BatchRequestSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.CharField(max_length=300, allow_blank=True, trim_whitespace=False),
        min_length=1,
        max_length=MAX_BATCH,
        help_text=f"Up to {MAX_BATCH} identifiers, mixed: slugs, arXiv ids, DOIs, with or "
        "without an `arxiv:`/`doi:` prefix or a resolver URL.",
    )


@extend_schema_field(
    {
        "type": "array",
        # OpenAPI 3.0: `nullable` only adds null to a `type` beside it, so null gets a branch
        # of its own (a `nullable` next to a bare allOf/$ref declares nothing).
        "items": {
            "oneOf": [
                {"$ref": "#/components/schemas/Paper"},
                {"type": "object", "nullable": True, "enum": [None]},
            ]
        },
        "description": "One entry per identifier sent, in the same order: the paper, or null.",
    }
)
class PaperOrNullListField(serializers.ListField):
    child = PaperSerializer(allow_null=True)


class BatchResponseSerializer(serializers.Serializer):
    results = PaperOrNullListField()


class BatchView(
    StrictQueryParametersMixin,
    SparseFieldsetsMixin,
    PaperRepresentationMixin,
    generics.GenericAPIView,
):
    """Look up to 500 papers at once by any identifier (slug, arXiv id, DOI, `arxiv:`/`doi:`
    prefixed). `results` answers each identifier in request order: the paper, or `null` for
    an identifier that names no paper you may see (unknown, malformed, or a draft). A read:
    anyone may call it (no CSRF token needed without a session), throttled per client.
    `fields`/`omit` narrow each paper as on the paper list."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [AnonRateThrottle, UserRateThrottle, ScopedRateThrottle]
    throttle_scope = "batch"
    filter_backends = []
    pagination_class = None
    post_is_a_read = True

    @extend_schema(
        operation_id="papers_batch",
        summary="Look up many papers at once",
        request=BatchRequestSerializer,
        responses={200: BatchResponseSerializer},
    )
    def post(self, request, *args, **kwargs):
        payload = BatchRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        self.kept_fields()  # a bad `fields`/`omit` is a 400 before any lookup
        keys = [classify(identifier) for identifier in payload.validated_data["ids"]]
        visible = Paper.objects.visible_to(request.user)
        found = resolve({key for key in keys if key is not None}, visible)
        papers = list(
            self.filter_queryset(self.decorate(visible.filter(pk__in=set(found.values()))))
        )
        shown = self.get_serializer(papers, many=True).data
        rows = dict(zip([paper.pk for paper in papers], shown, strict=True))
        results = [rows.get(found.get(key)) if key is not None else None for key in keys]
        request._request.reads_only = True  # a read: no cache invalidation (pagecache/caching.py)
        return Response({"results": results})


class PaperAliasView(StrictQueryParametersMixin, generics.GenericAPIView):
    """`/api/v1/papers/arxiv:<id>/` and `/api/v1/papers/doi:<doi>/`: a 302 to the paper's own
    address (the query string kept). 302, not 301: which paper an identifier names can change
    (a merge, a correction), so clients should keep asking the alias. 404 when no paper you
    may see answers to it, 400 when it is malformed."""

    schema = None  # described on the paper detail; its path would shadow `{slug}` in OpenAPI
    permission_classes = [permissions.AllowAny]
    filter_backends = []
    pagination_class = None
    sparse_fieldsets = True  # passed on to the paper's address

    def get(self, request, identifier):
        scheme, _, value = identifier.partition(":")
        key = classify(f"{scheme.lower()}:{value}")
        if key is None:
            kind = "arXiv id" if scheme.lower() == "arxiv" else "DOI"
            raise ValidationError({"identifier": [f"Not a valid {kind}: “{value}”."]})
        found = resolve({key}, Paper.objects.visible_to(request.user))
        if key not in found:
            raise NotFound(f"No paper answers to {identifier}.")
        slug = Paper.objects.filter(pk=found[key]).values_list("slug", flat=True).get()
        url = reverse("api:paper-detail", kwargs={"slug": slug})
        query = request.META.get("QUERY_STRING")
        return HttpResponseRedirect(f"{url}?{query}" if query else url)
