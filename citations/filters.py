"""Filters for the research index and a hub's citing-papers explorer (query parameters in,
querysets out). Unknown values make the form invalid; views answer those with a 400."""

import django_filters
from django import forms
from django.db.models import Q, Value, prefetch_related_objects
from django_filters.constants import EMPTY_VALUES

from bottlenecks.models import Layer
from citations.models import (
    NEWEST_FIRST,
    PROVENANCE_CHOICES,
    Citation,
    CitationPolarity,
    CitationRole,
    DatePrecision,
    Paper,
    authorships_with_authors,
    list_foot_prefetches,
    provenance_q,
)
from citations.stats.facet_counts import ALL, INDEX, LAYER, TAG, YEAR, facet_counts, stored_count
from tags.models import Tag

SORT_CHOICES = [("newest", "Newest first"), ("oldest", "Oldest first"), ("relevance", "Best match")]
# A search's best matches are ranked among its newest this many matches (ts_rank reads each
# one's document: ranking every match of a common word grew with the corpus).
RANKED_MATCHES = 1000


class YearFilter(django_filters.NumberFilter):
    """A whole year (`?year=2026`) of the papers whose date is known; anything else is a
    validation error, not a 500."""

    field_class = forms.IntegerField

    def filter(self, queryset, value):
        return queryset if value in EMPTY_VALUES else queryset.published_in(value)


def index_tag_choices(tag_ids=None):
    """(slug, display name) of the tags on research-index papers (of `tag_ids`, the tags
    with a stored index count, when given), by display name."""
    if tag_ids is None:
        tag_ids = facet_counts(INDEX)[TAG]
    tags = Tag.objects.filter(pk__in=list(tag_ids)).only("slug", "name", "display_name")
    return sorted(((tag.slug, tag.label) for tag in tags), key=lambda choice: choice[1].lower())


def published_layer_choices():
    """(slug, name) of the published layers, read afresh for each form (a ModelChoiceFilter
    would keep the queryset, and its "now", once built); a filter set that validates and shows
    its form sets them once as a list (`ResearchIndexFilter.__init__`)."""
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
        method="filter_layer",
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
        # The tags and years of index papers, and the total: stored counts, read in one query
        # (citations/stats/facet_counts.py), not a scan of the index per request.
        self.stored_counts = facet_counts(INDEX)
        self.form.fields["tag"].choices = index_tag_choices(self.stored_counts[TAG])
        self.form.fields["layer"].choices = published_layer_choices()  # validated, then shown
        years = sorted(self.stored_counts[YEAR], reverse=True)
        choices = [("", "Any year")] + [(year, str(year)) for year in years]
        self.form.fields["year"].widget = forms.Select(choices=choices)

    @property
    def total(self):
        """Papers in the research index."""
        return self.stored_counts[ALL].get(0, 0)

    def stored_match_count(self):
        """How many papers match, when stored: unfiltered (the total) or filtered by one tag,
        layer or year alone; None otherwise (a search, or filters combined)."""
        data = self.form.cleaned_data if self.is_bound and self.is_valid() else {}
        used = [name for name in ("q", "tag", "layer", "year") if data.get(name)]
        if not used:
            return self.total
        if len(used) > 1:
            return None
        name, value = used[0], data[used[0]]
        if name == "year":
            return self.stored_counts[YEAR].get(value, 0)
        if name == "tag":
            return stored_count(INDEX, TAG, Tag.objects.filter(slug=value).values("pk")[:1])
        if name == "layer":
            return stored_count(INDEX, LAYER, Layer.objects.filter(slug=value).values("pk")[:1])
        return None

    def filter_search(self, queryset, name, value):
        return queryset.search(value)

    def filter_layer(self, queryset, name, value):
        """The layer's id found inside the query: joined by slug, PostgreSQL expected a few
        hundred of a layer's 14,816 papers at 1M and read them all to sort the newest (the
        export's 1,001); compared with the id, it walks the index's date order."""
        return queryset.filter(layers=Layer.objects.filter(slug=value).values("pk")[:1])

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

    @property
    def listing(self):
        """The papers as the index pages list them: `qs`, except that a search by relevance
        ranks only its newest RANKED_MATCHES matches, the older ones following newest first."""
        papers = self.qs
        if "-rank" in papers.query.order_by:
            return RankedThenNewest(papers, RANKED_MATCHES)
        return papers


class RankedThenNewest:
    """Search matches best first without ranking every one: the newest `ranked` matches by
    relevance, then the older ones newest first; each slice is read with at most two
    bounded queries (a walk of the date index and a rank of `ranked` documents)."""

    def __init__(self, matches, ranked, prefetch=(), values=None):
        self.matches, self.ranked, self.prefetch = matches, ranked, prefetch
        self.newest = matches.order_by(*NEWEST_FIRST)
        self.values = values  # (fields, flat) of values_list(), else rows are papers

    def count(self):
        return self.matches.count()

    def with_authors(self):
        return RankedThenNewest(self.matches, self.ranked, [authorships_with_authors()])

    def with_list_foot(self):
        return RankedThenNewest(self.matches, self.ranked, list_foot_prefetches())

    def values_list(self, *fields, flat=False):
        """The same order read as values, as a QuerySet's values_list: a list download reads
        its page's ids first."""
        return RankedThenNewest(self.matches, self.ranked, values=(fields, flat))

    def best(self):
        """The newest `ranked` matches by rank. Ranked as rows of those ids alone, with the
        search's rank and order: the search's own filter again would match every paper a
        second time (0.1 s at 100k papers for a common word)."""
        candidates = self.newest.values("pk")[: self.ranked]
        query = self.matches.query
        return (
            self.matches.model._default_manager.filter(pk__in=candidates)
            .annotate(rank=query.annotations["rank"])
            .order_by(*query.order_by)
        )

    def __getitem__(self, key):
        start, stop = key.start or 0, key.stop  # the paginator asks for slices
        best, newest = self.best(), self.newest
        if self.values:
            fields, flat = self.values
            best, newest = (part.values_list(*fields, flat=flat) for part in (best, newest))
        rows = []
        if start < self.ranked:
            rows += best[start : min(stop, self.ranked)]
        if stop > self.ranked:
            rows += newest[max(start, self.ranked) : stop]
        prefetch_related_objects(rows, *self.prefetch)  # once for both parts
        return rows


def explorer_terms():
    """{"role": [...], "polarity": [...], "layer": [...]}: (slug, name) of every citation role
    and polarity and of the published layers, in their order, read in one query."""
    columns = ("axis", "slug", "name", "order")

    def terms(queryset, axis):
        return queryset.annotate(axis=Value(axis)).values_list(*columns).order_by()

    rows = terms(CitationRole.objects.all(), "role").union(
        terms(CitationPolarity.objects.all(), "polarity"),
        terms(Layer.objects.published(), "layer"),
        all=True,
    )
    found = {"role": [], "polarity": [], "layer": []}
    for axis, slug, name, _ in sorted(rows, key=lambda row: (row[3], row[2])):
        found[axis].append((slug, name))
    return found


class RawCheckboxInput(forms.CheckboxInput):
    """A checkbox whose submitted text reaches the field unread (Django's reads any text but
    "false" and "0" as ticked), so the field can refuse what a checkbox never sends."""

    def value_from_datadict(self, data, files, name):
        return data.get(name, "")

    def format_value(self, value):
        return None  # a ticked box sends "on"; its value attribute is left out


class ExplorerFlagField(forms.BooleanField):
    """A checkbox filter: ticked ("on", "1", "true") or not (absent, "", "0", "false");
    anything else is an error (a 400), not silently read as ticked."""

    widget = RawCheckboxInput
    TICKED, UNTICKED = {"on", "1", "true", "yes"}, {"", "0", "false", "off", "no"}

    def to_python(self, value):
        if isinstance(value, str):
            if value.lower() not in self.TICKED | self.UNTICKED:
                raise forms.ValidationError("Tick the box or leave it empty.", code="invalid")
            return value.lower() in self.TICKED
        return bool(value)


class ExplorerFlagFilter(django_filters.Filter):
    """Ticked: only the rows matching `ticked` (a Q); not ticked: every row."""

    field_class = ExplorerFlagField

    def __init__(self, *args, ticked, **kwargs):
        super().__init__(*args, **kwargs)
        self.ticked = ticked

    def filter(self, queryset, value):
        return queryset.filter(self.ticked) if value else queryset


class ExplorerForm(forms.Form):
    def clean(self):
        data = super().clean()
        start, end = data.get("year_from"), data.get("year_to")
        if start and end and end < start:
            self.add_error("year_to", "The range ends before it starts.")
        return data


class CitingYearFilter(django_filters.NumberFilter):
    """The citing paper's year: `lookup` "exact", "gte" or "lte"; papers whose date is not
    known (a placeholder that only orders the lists) never match a year."""

    field_class = forms.IntegerField

    def __init__(self, *args, lookup, **kwargs):
        kwargs.update(min_value=1900, max_value=2999)
        super().__init__(*args, **kwargs)
        self.lookup = lookup

    def filter(self, queryset, value):
        if value in EMPTY_VALUES:
            return queryset
        return queryset.filter(
            **{f"citing_paper__publication_date__year__{self.lookup}": value}
        ).exclude(citing_paper__date_precision=DatePrecision.UNKNOWN)


NO_POLARITY = "none"  # the explorer's `?polarity=none`: edges without a polarity


class CitingPaperFilter(django_filters.FilterSet):
    """The explorer on a paper hub: its incoming citation edges by role, polarity and
    provenance, by the citing paper's year (one or a range), bottleneck layer and institution,
    unclassified only, with a citing sentence only, and by text in the citing paper or its
    citing sentence."""

    q = django_filters.CharFilter(
        method="filter_search",
        label="Text in the citing papers",
        max_length=200,
        widget=forms.TextInput(attrs={"placeholder": "Title, author, citing sentence"}),
    )
    # Choices set in __init__, from one read of both vocabularies.
    role = django_filters.ChoiceFilter(
        field_name="role__slug", choices=[], empty_label="Any role", label="Citation role"
    )
    polarity = django_filters.ChoiceFilter(
        field_name="polarity__slug",
        choices=[],
        empty_label="Any polarity",
        null_label="Not classified",
        null_value=NO_POLARITY,
        label="Citation polarity",
    )
    provenance = django_filters.ChoiceFilter(
        choices=PROVENANCE_CHOICES,
        method="filter_provenance",
        empty_label="Any provenance",
        label="Classified by",
    )
    year = CitingYearFilter(lookup="exact", label="Year")
    year_from = CitingYearFilter(lookup="gte", label="From year")
    year_to = CitingYearFilter(lookup="lte", label="To year")
    layer = django_filters.ChoiceFilter(
        field_name="citing_paper__layers__slug",
        choices=[],
        empty_label="Any layer",
        label="Bottleneck layer",
    )
    institution = django_filters.CharFilter(
        method="filter_institution", max_length=200, label="Institution or author"
    )
    unclassified = ExplorerFlagFilter(ticked=Q(role__isnull=True), label="Unclassified only")
    has_context = ExplorerFlagFilter(ticked=~Q(context=""), label="With the citing sentence")

    class Meta:
        model = Citation
        form = ExplorerForm
        fields = []

    def __init__(self, *args, summary=None, **kwargs):
        super().__init__(*args, **kwargs)
        fields = self.form.fields
        for name in ("year", "year_from", "year_to"):
            fields[name].widget.attrs.update(inputmode="numeric", placeholder="e.g. 2025")
        # The three lists' choices, read once per request in one query (validating and
        # showing the form share them).
        self.vocabulary = terms = explorer_terms()
        fields["layer"].choices = terms["layer"]
        for axis in ("role", "polarity"):
            # "Background (6)": the options show how many citing papers each would list.
            fields[axis].choices = [
                (slug, f"{name} ({summary.count_of(axis, slug)})" if summary else name)
                for slug, name in terms[axis]
            ]
        if summary:
            unclassified = summary.polarity_unclassified
            fields["polarity"].null_label = f"Not classified ({unclassified})"

    def filter_search(self, queryset, name, value):
        """Text in the citing paper (its own search: title, authors, byline, institution,
        summary, abstract, identifiers) or in the citing sentence."""
        return queryset.citing_text(value)

    def filter_institution(self, queryset, name, value):
        return queryset.filter(
            Q(citing_paper__institution__icontains=value) | Q(citing_paper__byline__icontains=value)
        )

    def filter_provenance(self, queryset, name, value):
        return queryset.filter(provenance_q(value))

    @property
    def is_filtered(self):
        return self.is_bound and any(self.form.cleaned_data.get(name) for name in self.filters)

    @property
    def has_more_filters(self):
        """A filter beyond the search, role and polarity is set, or the form has errors: the
        form shows its further filters open."""
        if not self.is_bound:
            return False
        if not self.form.is_valid():
            return True
        basic = ("q", "role", "polarity")
        return any(self.form.cleaned_data.get(name) for name in self.filters if name not in basic)

    @property
    def terms(self):
        """The role and polarity slugs asked for (None for any), once the form is valid;
        `no_polarity` for the edges without a polarity."""
        data = self.form.cleaned_data if self.is_bound else {}
        terms = {name: data.get(name) or None for name in ("role", "polarity")}
        terms["no_polarity"] = terms["polarity"] == NO_POLARITY
        if terms["no_polarity"]:
            terms["polarity"] = None
        return terms

    # Filters whose count the summary knows (CitationSummary.count_for); others are counted.
    COUNTED_BY_SUMMARY = ("role", "polarity", "unclassified")

    def known_count(self, summary):
        """How many edges the explorer lists, when the summary knows (None: count them)."""
        data = self.form.cleaned_data if self.is_bound else {}
        if any(data.get(name) for name in self.filters if name not in self.COUNTED_BY_SUMMARY):
            return None
        return summary.count_for(**self.terms, unclassified=bool(data.get("unclassified")))
