"""Filters for the research index and a hub's citing-papers explorer (query parameters in,
querysets out). Unknown values make the form invalid; views answer those with a 400."""

import django_filters
from django import forms
from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, F, Max, Min, OuterRef
from taggit.models import Tag, TaggedItem

from bottlenecks.models import Layer

from .models import Citation, CitationPolarity, CitationRole, Paper

NEWEST_FIRST = (F("publication_date").desc(nulls_last=True), "-id")
OLDEST_FIRST = (F("publication_date").asc(nulls_last=True), "id")
SORT_CHOICES = [("newest", "Newest first"), ("oldest", "Oldest first"), ("relevance", "Best match")]


class YearFilter(django_filters.NumberFilter):
    """A whole year (`?year=2026`); anything else is a validation error, not a 500."""

    field_class = forms.IntegerField


def index_tag_choices():
    """(slug, name) of the tags on research-index papers: for each tag, does one index paper
    carry it (a semi-join that stops at the first hit, under a millisecond at 100k papers; the
    DISTINCT over every tagged index paper it replaces took ~300 ms)."""
    papers = Paper.objects.in_research_index().filter(pk=OuterRef("object_id"))
    tagged = TaggedItem.objects.filter(
        tag=OuterRef("pk"), content_type=ContentType.objects.get_for_model(Paper)
    ).filter(Exists(papers))
    return list(Tag.objects.filter(Exists(tagged)).order_by("name").values_list("slug", "name"))


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
        # The years from the oldest to the newest paper: two index lookups, not a DISTINCT.
        span = self.queryset.prefetch_related(None).aggregate(
            oldest=Min("publication_date"), newest=Max("publication_date")
        )
        years = range(span["newest"].year, span["oldest"].year - 1, -1) if span["newest"] else []
        choices = [("", "Any year")] + [(year, str(year)) for year in years]
        self.form.fields["year"].widget = forms.Select(choices=choices)

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
        return queryset.order_by(*(OLDEST_FIRST if sort == "oldest" else NEWEST_FIRST))

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

    class Meta:
        model = Citation
        fields = ["role", "polarity"]

    def __init__(self, *args, summary=None, **kwargs):
        super().__init__(*args, **kwargs)
        if summary is not None:
            # "Background (6)": the options show how many citing papers each would list.
            for name, rows in (("role", summary.roles), ("polarity", summary.polarities)):
                counts = {row["slug"]: row["count"] for row in rows}
                self.form.fields[name].label_from_instance = lambda term, counts=counts: (
                    f"{term.name} ({counts.get(term.slug, 0)})"
                )

    @property
    def is_filtered(self):
        return self.is_bound and any(self.form.cleaned_data.get(name) for name in self.filters)
