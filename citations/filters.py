"""Filters for the research index and a hub's citing-papers explorer (query parameters in,
querysets out). Unknown values make the form invalid; views answer those with a 400."""

import django_filters
from django import forms
from django_filters.constants import EMPTY_VALUES

from bottlenecks.models import Layer
from rlscaling.caching import cached_by_generation
from rlscaling.tags import tags_on

from .models import (
    NEWEST_FIRST,
    PROVENANCE_CHOICES,
    Citation,
    CitationPolarity,
    CitationRole,
    DatePrecision,
    Paper,
    provenance_q,
)

SORT_CHOICES = [("newest", "Newest first"), ("oldest", "Oldest first"), ("relevance", "Best match")]


class YearFilter(django_filters.NumberFilter):
    """A whole year (`?year=2026`) of the papers whose date is known; anything else is a
    validation error, not a 500."""

    field_class = forms.IntegerField

    def filter(self, queryset, value):
        return queryset if value in EMPTY_VALUES else queryset.published_in(value)


def index_tag_choices():
    """(slug, display name) of the tags on research-index papers, by display name."""
    tags = tags_on(Paper.objects.in_research_index()).only("slug", "name", "display_name")
    return sorted(((tag.slug, tag.label) for tag in tags), key=lambda choice: choice[1].lower())


def published_layer_choices():
    """(slug, name) of the published layers, read afresh whenever the form is shown or
    validated (a ModelChoiceFilter would keep the queryset, and its "now", once built)."""
    return list(Layer.objects.published().values_list("slug", "name"))


class ResearchIndexFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="filter_search",
        label="Search",
        max_length=200,
        widget=forms.SearchInput(attrs={"placeholder": "Title, author, summary"}),
    )
    tag = django_filters.ChoiceFilter(
        field_name="tags__slug", choices=index_tag_choices, empty_label="Any tag", label="Tag"
    )
    layer = django_filters.ChoiceFilter(
        field_name="layers__slug",
        choices=published_layer_choices,
        empty_label="Any layer",
        label="Bottleneck layer",
    )
    year = YearFilter(
        field_name="publication_date",
        lookup_expr="year",
        min_value=1900,
        max_value=2999,
        label="Year",
    )
    sort = django_filters.ChoiceFilter(
        choices=SORT_CHOICES, method="keep", empty_label=None, label="Sort by"
    )

    class Meta:
        model = Paper
        fields = ["q", "tag", "layer", "year", "sort"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Only the years in which an index paper appeared, worked out once per content change.
        years = cached_by_generation("research-index:years", self.publication_years)
        choices = [("", "Any year")] + [(year, str(year)) for year in years]
        self.form.fields["year"].widget = forms.Select(choices=choices)

    def publication_years(self):
        dates = (
            self.queryset.prefetch_related(None)
            .exclude(date_precision=DatePrecision.UNKNOWN)
            .order_by()
            .dates("publication_date", "year", order="DESC")
        )
        return [date.year for date in dates]

    def filter_search(self, queryset, name, value):
        return queryset.search(value)

    def keep(self, queryset, name, value):
        return queryset  # ordering is applied last, in filter_queryset

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        data = self.form.cleaned_data
        sort = data.get("sort") or ("relevance" if data.get("q") else "newest")
        if sort == "relevance" and "rank" in queryset.query.annotations:
            return queryset.order_by("-rank", *NEWEST_FIRST)
        return queryset.oldest_first() if sort == "oldest" else queryset.newest_first()

    @property
    def is_filtered(self):
        return self.is_bound and any(
            self.form.cleaned_data.get(name) for name in ("q", "tag", "layer", "year")
        )


class CitingPaperFilter(django_filters.FilterSet):
    """The explorer on a paper hub: its incoming citation edges by role and polarity."""

    role = django_filters.ModelChoiceFilter(
        queryset=CitationRole.objects.all(),
        to_field_name="slug",
        empty_label="Any role",
        label="Citation role",
    )
    polarity = django_filters.ModelChoiceFilter(
        queryset=CitationPolarity.objects.all(),
        to_field_name="slug",
        empty_label="Any polarity",
        label="Citation polarity",
    )

    provenance = django_filters.ChoiceFilter(
        choices=PROVENANCE_CHOICES,
        method="filter_provenance",
        empty_label="Any provenance",
        label="Classified by",
    )

    class Meta:
        model = Citation
        fields = ["role", "polarity", "provenance"]

    def __init__(self, *args, summary=None, **kwargs):
        super().__init__(*args, **kwargs)
        if summary is not None:
            # "Background (6)": the options show how many citing papers each would list.
            for axis in ("role", "polarity"):
                self.form.fields[axis].label_from_instance = lambda term, axis=axis: (
                    f"{term.name} ({summary.count_of(axis, term)})"
                )

    @property
    def is_filtered(self):
        return self.is_bound and any(self.form.cleaned_data.get(name) for name in self.filters)

    def filter_provenance(self, queryset, name, value):
        return queryset.filter(provenance_q(value))

    @property
    def terms(self):
        """The role and polarity asked for (None for any), once the form is valid."""
        data = self.form.cleaned_data if self.is_bound else {}
        return {name: data.get(name) for name in ("role", "polarity")}

    def known_count(self, summary):
        """How many edges the explorer lists, when the summary knows (None: count them)."""
        data = self.form.cleaned_data if self.is_bound else {}
        if any(data.get(name) for name in self.filters if name not in self.terms):
            return None
        return summary.count_for(**self.terms)
