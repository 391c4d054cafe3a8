import datetime

import django_filters
from django.db.models import Exists, OuterRef, Value
from django.db.models.functions import Coalesce

from apikit.filters import (
    PublishableFilterSet,
    StrictBooleanFilter,
    YearFilter,
    published_at_range,
    slug_choice,
)
from bottlenecks.models import Layer
from citations.identifiers import normalise_arxiv_id, normalise_doi
from citations.models import (
    PROVENANCE_CHOICES,
    Citation,
    CitationPolarity,
    CitationRole,
    DatePrecision,
    Paper,
    provenance_q,
)


class PaperFilterSet(PublishableFilterSet):
    tag = django_filters.CharFilter(field_name="tags__slug", help_text="A tag slug, e.g. `grpo`.")
    layer = slug_choice(Layer, field_name="layers", help_text="A layer slug, e.g. `rollouts`.")
    year = YearFilter(
        method="filter_year", help_text="Publication year (papers whose date is known)."
    )
    publication_date = django_filters.DateFromToRangeFilter(
        method="filter_publication_date",
        help_text="Publication date range: `publication_date_after`, `publication_date_before`.",
    )
    is_canonical_reference = StrictBooleanFilter()
    in_research_index = StrictBooleanFilter()
    arxiv_id = django_filters.CharFilter(
        method="filter_arxiv_id",
        validators=[normalise_arxiv_id],
        help_text="An arXiv id such as 2510.13786 (400 if malformed).",
    )
    doi = django_filters.CharFilter(
        method="filter_doi",
        validators=[normalise_doi],
        help_text="A DOI such as 10.48550/arXiv.2510.13786 (400 if malformed).",
    )
    cited_by = django_filters.CharFilter(
        method="filter_cited_by", help_text="Slug of a paper: only the papers it cites."
    )
    cites = django_filters.CharFilter(
        method="filter_cites", help_text="Slug of a paper: only the papers citing it."
    )

    class Meta:
        model = Paper
        fields = []

    def filter_publication_date(self, queryset, name, value):
        """A range of known dates (a placeholder for an unknown date never matches). The range
        is also put on the list's sort key (the same dates, an undated paper as date.min), so
        PostgreSQL starts and stops its walk of paper_api_sort_date at the range's ends
        instead of filtering every newer paper on the way."""
        queryset = queryset.exclude(date_precision=DatePrecision.UNKNOWN).alias(
            dated_on=Coalesce("publication_date", Value(datetime.date.min))
        )
        if value.start:
            queryset = queryset.filter(publication_date__gte=value.start, dated_on__gte=value.start)
        if value.stop:
            queryset = queryset.filter(publication_date__lte=value.stop, dated_on__lte=value.stop)
        return queryset

    def filter_year(self, queryset, name, value):
        return queryset.published_in(value)

    def filter_arxiv_id(self, queryset, name, value):
        return queryset.filter(arxiv_id=normalise_arxiv_id(value))

    def filter_doi(self, queryset, name, value):
        return queryset.filter(doi=normalise_doi(value))  # stored normalised: lower case

    def filter_cited_by(self, queryset, name, value):
        edges = Citation.objects.visible_to(self.request.user).filter(citing_paper__slug=value)
        return queryset.filter(pk__in=edges.values("cited_paper"))

    def filter_cites(self, queryset, name, value):
        """The papers citing `value`. Its id is read first, so that it is a constant in the
        query: PostgreSQL then knows how many edges the paper has, and for a hub cited by
        thousands walks the list's order probing each paper's edge (unique_citation_edge),
        stopping after a page. Joined by slug inside the query, it was planned as a few edges
        and read and sorted all 37k citing papers of the biggest hub (past the timeout)."""
        user = self.request.user
        cited = Paper.objects.visible_to(user).filter(slug=value).values_list("pk", flat=True)
        cited_id = cited.first()
        if cited_id is None:
            return queryset.none()
        edges = Citation.objects.visible_to(user).filter(
            cited_paper_id=cited_id, citing_paper=OuterRef("pk")
        )
        return queryset.filter(Exists(edges))


def provenance_filter():
    return django_filters.ChoiceFilter(
        choices=PROVENANCE_CHOICES,
        method="filter_provenance",
        help_text="Who classified the edge: `editor`, `reader_suggestion` (an editor, on a "
        "reader's suggestion), `author`, `semantic_scholar`, `openalex`, `pith`, or `imported` "
        "(any citation index). Only classified edges match: an edge with no role and no "
        "polarity was classified by nobody.",
    )


class ProvenanceFilterMixin:
    def filter_provenance(self, queryset, name, value):
        return queryset.filter(provenance_q(value))


class CitationFilterSet(ProvenanceFilterMixin, PublishableFilterSet):
    citing = django_filters.CharFilter(
        field_name="citing_paper", method="filter_paper", help_text="Citing paper slug."
    )
    cited = django_filters.CharFilter(
        field_name="cited_paper", method="filter_paper", help_text="Cited paper slug."
    )
    role = slug_choice(CitationRole, help_text="Role slug.")
    polarity = slug_choice(CitationPolarity, help_text="Polarity slug.")
    is_representative = StrictBooleanFilter()
    is_influential = StrictBooleanFilter()
    provenance = provenance_filter()
    published_at = published_at_range()

    class Meta:
        model = Citation
        fields = []

    def filter_paper(self, queryset, name, value):
        """The edges at the paper with this slug (`name`: "cited_paper" or "citing_paper"),
        compared by the paper's id: PostgreSQL then plans for the edges that paper has (a
        hub's tens of thousands, from the column's statistics) and walks citation_cited_id
        for a page, where a join on the slug made it guess a handful and sort them all (past
        the statement timeout on a 36,000-edge hub)."""
        paper = Paper.objects.filter(slug=value).values_list("pk", flat=True).first()
        return queryset.filter(**{name: paper}) if paper else queryset.none()


class HubFilterSet(ProvenanceFilterMixin, django_filters.FilterSet):
    role = slug_choice(CitationRole, help_text="Role slug.")
    polarity = slug_choice(CitationPolarity, help_text="Polarity slug.")
    is_representative = StrictBooleanFilter(method="filter_representative")
    is_influential = StrictBooleanFilter()
    provenance = provenance_filter()

    class Meta:
        model = Citation
        fields = []

    def filter_representative(self, queryset, name, value):
        """The hub's representative edges (a handful: at most REPRESENTATIVE_LIMIT) are found
        first, through the partial index citation_representative, then listed in the hub's
        order: asked for in that order, PostgreSQL expects thousands of flagged edges and walks
        every paper's date to find three (3.5 s on a 36,000-edge hub)."""
        if not value:
            return queryset.filter(is_representative=False)
        flagged = queryset.filter(is_representative=True).order_by().values_list("pk", flat=True)
        return queryset.filter(pk__in=list(flagged))
