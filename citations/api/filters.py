import django_filters

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
from rlscaling.api.filters import (
    PublishableFilterSet,
    StrictBooleanFilter,
    YearFilter,
    published_at_range,
    slug_choice,
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
        """A range of known dates (a placeholder for an unknown date never matches)."""
        queryset = queryset.exclude(date_precision=DatePrecision.UNKNOWN)
        if value.start:
            queryset = queryset.filter(publication_date__gte=value.start)
        if value.stop:
            queryset = queryset.filter(publication_date__lte=value.stop)
        return queryset

    def filter_year(self, queryset, name, value):
        return queryset.published_in(value)

    def filter_arxiv_id(self, queryset, name, value):
        return queryset.filter(arxiv_id=normalise_arxiv_id(value))

    def filter_doi(self, queryset, name, value):
        return queryset.filter(doi__iexact=normalise_doi(value))

    def filter_cited_by(self, queryset, name, value):
        edges = Citation.objects.visible_to(self.request.user).filter(citing_paper__slug=value)
        return queryset.filter(pk__in=edges.values("cited_paper"))

    def filter_cites(self, queryset, name, value):
        edges = Citation.objects.visible_to(self.request.user).filter(cited_paper__slug=value)
        return queryset.filter(pk__in=edges.values("citing_paper"))


def provenance_filter():
    return django_filters.ChoiceFilter(
        choices=PROVENANCE_CHOICES,
        method="filter_provenance",
        help_text="Who classified the edge: `editor`, `reader_suggestion` (an editor, on a "
        "reader's suggestion), `author`, `semantic_scholar`, `openalex`, or `imported` (any "
        "citation index).",
    )


class ProvenanceFilterMixin:
    def filter_provenance(self, queryset, name, value):
        return queryset.filter(provenance_q(value))


class CitationFilterSet(ProvenanceFilterMixin, PublishableFilterSet):
    citing = django_filters.CharFilter(
        field_name="citing_paper__slug", help_text="Citing paper slug."
    )
    cited = django_filters.CharFilter(field_name="cited_paper__slug", help_text="Cited paper slug.")
    role = slug_choice(CitationRole, help_text="Role slug.")
    polarity = slug_choice(CitationPolarity, help_text="Polarity slug.")
    is_representative = StrictBooleanFilter()
    is_influential = StrictBooleanFilter()
    provenance = provenance_filter()
    published_at = published_at_range()

    class Meta:
        model = Citation
        fields = []


class HubFilterSet(ProvenanceFilterMixin, django_filters.FilterSet):
    role = slug_choice(CitationRole, help_text="Role slug.")
    polarity = slug_choice(CitationPolarity, help_text="Polarity slug.")
    is_representative = StrictBooleanFilter()
    is_influential = StrictBooleanFilter()
    provenance = provenance_filter()

    class Meta:
        model = Citation
        fields = []
