import datetime
import functools

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.functional import SimpleLazyObject
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.settings import api_settings

from apikit.conditional import ConditionalGetMixin
from apikit.facets import Facet, GroupByMixin, shown_through
from apikit.pagination import CursorPagination
from apikit.params import (
    GROUP_BY_PARAMETER,
    StrictQueryParametersMixin,
    filterset_parameters,
)
from apikit.permissions import EditorsWrite, sees_drafts
from apikit.sparse import SparseFieldsetsMixin
from apikit.viewsets import PublishableViewSet, ReadOnlyViewSet
from bottlenecks.models import Layer
from citations.api.filters import CitationFilterSet, HubFilterSet, PaperFilterSet
from citations.api.serializers import (
    CitationPolaritySerializer,
    CitationRoleSerializer,
    CitationSerializer,
    CitationSummarySerializer,
    CitingPaperSerializer,
    CitingTimelineSerializer,
    HubCitationSerializer,
    PaperHubSerializer,
    PaperSerializer,
)
from citations.dates import known_year_expression
from citations.identifiers import normalise_arxiv_id, normalise_doi
from citations.identity import old_slug_redirect, papers_with_identifiers
from citations.models import Citation, CitationPolarity, CitationRole, Paper
from citations.stats.facet_counts import ALL, LAYER, NO_LAYER, PUBLIC, YEAR, facet_counts


class PaperRepresentationMixin:
    """What a paper's representation needs: the vocabulary for its counts, its prefetches."""

    serializer_class = PaperSerializer
    field_prefetches = {"authors": ("authorships",)}

    @functools.cached_property
    def vocabulary(self):
        return list(CitationRole.objects.all()), list(CitationPolarity.objects.all())

    def get_serializer_context(self):
        # Lazy: read only when `citing_counts` is shown (not with `omit=citing_counts`).
        vocabulary = SimpleLazyObject(lambda: self.vocabulary)
        return {**super().get_serializer_context(), "vocabulary": vocabulary}

    def decorate(self, queryset):
        return (
            queryset.for_listing()
            .with_stored_counts()
            # Undated papers sort as the oldest, so the cursor has a value to compare.
            .annotate(publication_sort_date=Coalesce("publication_date", Value(datetime.date.min)))
        )


class PaperViewSet(GroupByMixin, PaperRepresentationMixin, PublishableViewSet):
    """Papers, with authors, identifiers, tags, layers and counts of the papers citing them.

    Cursor-paginated, newest publication first. Look one up by slug, by arXiv id
    (`by-arxiv/<id>/`) or by DOI (`by-doi/<doi>/`); `arxiv:<id>/` and `doi:<doi>/` in place of
    the slug answer 302 to the paper's address. Many at once: `POST /api/v1/papers/batch`.
    """

    queryset = Paper.objects.all()
    pagination_class = CursorPagination
    filterset_class = PaperFilterSet
    ordering_fields = ["publication_date", "title", "cited_by_count", "created_at", "updated_at"]
    ordering_aliases = {"publication_date": "publication_sort_date"}
    ordering = ["-publication_date"]
    search_fields = ["title", "byline", "institution", "summary", "abstract"]
    group_by_noun = "papers"
    group_by_fields = {
        # The year where it is a fact, as `?year=` filters (a placeholder date has no year).
        "year": Facet(known_year_expression(), missing="without a publication date"),
        "tag": Facet("tags__slug", "tags__name", many=True, missing="without a tag"),
        "layer": Facet(
            "layers__slug",
            "layers__name",
            many=True,
            relation="layers",
            visible=shown_through("layers", Layer),
            missing="bearing on no layer",
        ),
        "in_research_index": Facet("in_research_index"),
        "is_canonical_reference": Facet("is_canonical_reference"),
    }

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        if any(str(term).lstrip("-") == "cited_by_count" for term in queryset.query.order_by):
            queryset = queryset.counted()
        return queryset

    def grouped(self, name, facet):
        """`group_by=year` and `group_by=layer` of every published paper (no filter or search,
        a reader who sees no drafts) from the stored counts (citations/stats/facet_counts.py), not a
        GROUP BY over the paper table."""
        filters = filterset_parameters(self.filterset_class) | {api_settings.SEARCH_PARAM}
        if (
            name not in ("year", "layer")
            or any(self.request.query_params.get(param) for param in filters)
            or sees_drafts(self.request.user, Paper)
        ):
            return super().grouped(name, facet)
        counts = facet_counts(PUBLIC)
        if name == "year":
            groups = [
                {"value": year or None, "label": None, "count": n}
                for year, n in counts[YEAR].items()
            ]
        else:
            layers = Layer.objects.published().values_list("pk", "slug", "name")
            groups = [
                {"value": slug, "label": label, "count": counts[LAYER][pk]}
                for pk, slug, label in layers
                if pk in counts[LAYER]
            ]
            if counts[NO_LAYER]:
                groups.append({"value": None, "label": None, "count": counts[NO_LAYER][0]})
        return counts[ALL].get(0, 0), groups

    def get_last_modified(self, paper):
        counts = getattr(paper, "citation_count", None)  # recounted whenever an edge changes
        return max(filter(None, [paper.updated_at, counts and counts.edges_changed_at]))

    def detail_for(self, field, value, normalise, scheme):
        """The paper answering to the identifier (normalised; 400 if malformed): by its own
        field, the other form (arXiv id ⇄ arXiv DataCite DOI) or an identifier it keeps from
        an import or a merge."""
        try:
            value = normalise(value)
        except DjangoValidationError as error:
            raise ValidationError({field: error.messages}) from None
        slug = papers_with_identifiers({scheme: value}).values_list("slug", flat=True).first()
        self.kwargs["slug"] = slug or ""
        return super().retrieve(self.request, slug=self.kwargs["slug"])

    def retrieve(self, request, *args, **kwargs):
        """A paper by slug; a renamed or merged paper's old slug answers 301."""
        try:
            return super().retrieve(request, *args, **kwargs)
        except Http404:
            redirect = old_slug_redirect(request, kwargs.get("slug", ""))
            if redirect is None:
                raise
            return redirect

    @extend_schema(summary="A paper by its arXiv id", responses=PaperSerializer)
    @action(detail=False, url_path=r"by-arxiv/(?P<arxiv_id>.+)", filter_backends=[])
    def by_arxiv(self, request, arxiv_id, format=None):
        return self.detail_for("arxiv_id", arxiv_id, normalise_arxiv_id, "arxiv")

    @extend_schema(summary="A paper by its DOI", responses=PaperSerializer)
    @action(detail=False, url_path=r"by-doi/(?P<doi>.+)", filter_backends=[])
    def by_doi(self, request, doi, format=None):
        return self.detail_for("doi", doi, normalise_doi, "doi")


class HubCursorPagination(CursorPagination):
    # Newest citing papers first, as on the hub page.
    ordering = ("-citing_sort_date", "pk")


class PaperCitationsView(
    StrictQueryParametersMixin, SparseFieldsetsMixin, ConditionalGetMixin, generics.ListAPIView
):
    """A paper's hub: counts of citing papers by role and polarity, and the citing papers
    themselves (cursor-paginated, newest first, filterable by role and polarity). The same
    public figures the hub page shows."""

    serializer_class = HubCitationSerializer
    pagination_class = HubCursorPagination
    filter_backends = [DjangoFilterBackend]
    filterset_class = HubFilterSet
    permission_classes = [EditorsWrite]

    @functools.cached_property
    def paper(self):
        return get_object_or_404(
            Paper.objects.visible_to(self.request.user), slug=self.kwargs["slug"]
        )

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Citation.objects.none()
        return self.paper.citing_citations().annotate(
            citing_sort_date=Coalesce("citing_paper__publication_date", Value(datetime.date.min))
        )

    @extend_schema(
        summary="A paper's hub: its citing papers and their counts", responses=PaperHubSerializer
    )
    def get(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        summary = self.paper.citation_summary()
        response.data = {
            "paper": CitingPaperSerializer(self.paper, context=self.get_serializer_context()).data,
            "summary": CitationSummarySerializer(summary).data,
            **response.data,
        }
        return response


class PaperTimelineView(
    StrictQueryParametersMixin, SparseFieldsetsMixin, ConditionalGetMixin, generics.GenericAPIView
):
    """How the citing of a paper changes over time: its public citing papers per quarter, by
    role and by polarity, every quarter from the first to the last (empty ones with zeros);
    papers dated only to a year are counted per year and undated ones apart, never put in a
    quarter. The numbers the hub page's timeline draws."""

    serializer_class = CitingTimelineSerializer
    queryset = Paper.objects.all()
    lookup_field = "slug"
    filter_backends = []
    pagination_class = None
    permission_classes = [EditorsWrite]

    def get_queryset(self):
        return Paper.objects.visible_to(self.request.user)

    @extend_schema(summary="A paper's citing timeline")
    def get(self, request, *args, **kwargs):
        paper = self.get_object()
        return Response(
            self.get_serializer({"paper": paper, **paper.citing_timeline().as_data()}).data
        )


class CitationViewSet(GroupByMixin, PublishableViewSet):
    """Citation edges: `citing_paper` cites `cited_paper`, in a role, with a polarity.
    Cursor-paginated, newest edges first. `?cited=<slug>&group_by=role` counts a hub's citing
    papers by role, as its page does."""

    queryset = Citation.objects.all()
    serializer_class = CitationSerializer
    pagination_class = CursorPagination
    filterset_class = CitationFilterSet
    search_fields = ["context", "citing_paper__title", "cited_paper__title"]
    ordering_fields = ["id", "created_at", "updated_at"]
    ordering = ["-id"]
    lookup_field = "pk"
    lookup_value_regex = r"[0-9]+"
    group_by_noun = "citations"
    # Every grouping is within one paper's edges: over the whole corpus it joins every
    # public edge to both its papers (2.5 s at 1M citations, bench/RESULTS.md), a cost any
    # anonymous client could ask for. One group per paper needs the other side named (the
    # most cited papers overall are `/api/v1/papers/?ordering=-cited_by_count`).
    group_by_fields = {
        "role": Facet(
            "role__slug",
            "role__name",
            missing="not yet classified by role",
            requires=("cited", "citing"),
        ),
        "polarity": Facet(
            "polarity__slug",
            "polarity__name",
            missing="not yet classified by polarity",
            requires=("cited", "citing"),
        ),
        "cited": Facet("cited_paper__slug", "cited_paper__title", requires=("citing",)),
        "citing": Facet("citing_paper__slug", "citing_paper__title", requires=("cited",)),
        "is_representative": Facet("is_representative", requires=("cited", "citing")),
    }

    def decorate(self, queryset):
        return queryset.select_related("citing_paper", "cited_paper", "role", "polarity")

    # The facets a hub's citation summary counts, and its rows for each.
    SUMMARY_FACETS = {"role": "roles", "polarity": "polarities"}

    def grouped(self, name, facet):
        """`?cited=<slug>&group_by=role` (or polarity) for readers: the hub's citation summary,
        the figures its page shows (the same public edges, counted once per content generation
        over the hub's covering index), instead of a GROUP BY of its edges joined to both
        papers (4.8 s for a 36,000-edge hub at 1M)."""
        hub = self.summarised_hub(name)
        if hub is None:
            return super().grouped(name, facet)
        summary = hub.citation_summary()
        rows = getattr(summary, self.SUMMARY_FACETS[name])
        groups = [
            {"value": row["slug"], "label": row["name"], "count": row["count"]}
            for row in rows
            if row["count"]
        ]
        unclassified = summary.total - sum(row["count"] for row in rows)
        if unclassified:
            groups.append({"value": None, "label": None, "count": unclassified})
        return summary.total, groups

    def summarised_hub(self, name):
        """The public paper whose summary answers this request, if it can: only `cited` is
        asked for, grouped by role or polarity, by a reader (editors' counts include drafts)."""
        params = self.request.query_params
        user = self.request.user
        if name not in self.SUMMARY_FACETS or set(params) != {"cited", GROUP_BY_PARAMETER}:
            return None
        if sees_drafts(user, Citation) and sees_drafts(user, Paper):
            return None
        return Paper.objects.published().filter(slug=params["cited"]).first()


class VocabularyViewSet(ReadOnlyViewSet):
    search_fields = ["name", "description"]
    ordering_fields = ["order", "name"]
    ordering = ["order", "name"]


class CitationRoleViewSet(VocabularyViewSet):
    """Why a paper is cited: background, method, comparison, extension."""

    queryset = CitationRole.objects.all()
    serializer_class = CitationRoleSerializer


class CitationPolarityViewSet(VocabularyViewSet):
    """How the citing paper stands towards the cited one."""

    queryset = CitationPolarity.objects.all()
    serializer_class = CitationPolaritySerializer
