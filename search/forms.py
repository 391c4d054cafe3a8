from django import forms
from django.db.models import Exists, Max, Min

from citations.models import Paper
from rlscaling.caching import cached_by_generation

from .engine import KIND_CHOICES


def years_with_papers():
    """The years in which a published paper appeared, newest first (once per content
    generation)."""

    def compute():
        papers = Paper.objects.published().filter(publication_date__isnull=False)
        span = papers.aggregate(first=Min("publication_date"), last=Max("publication_date"))
        if span["first"] is None:
            return []
        years = range(span["last"].year, span["first"].year - 1, -1)
        # One EXISTS per year between the first and the last, each a short range scan of the
        # publication_date index that stops at the year's first published paper, rather than a
        # DISTINCT over every paper. Uncorrelated, they are evaluated once, whatever row the
        # one-row query reads.
        in_year = {
            f"year_{year}": Exists(papers.filter(publication_date__year=year)) for year in years
        }
        found = Paper.objects.order_by().annotate(**in_year).values(*in_year)[:1].get()
        return [year for year in years if found[f"year_{year}"]]

    return cached_by_generation("search:paper-years", compute)


class SearchForm(forms.Form):
    """`?q=`, `?kind=` and `?year=`: an unknown kind or a year that is not a year makes the form
    invalid (the view answers 400); other parameters are ignored."""

    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search for",
        widget=forms.SearchInput(attrs={"placeholder": "Title, author, topic, arXiv id or DOI"}),
    )
    kind = forms.ChoiceField(required=False, choices=[("", "Everything"), *KIND_CHOICES])
    year = forms.IntegerField(required=False, min_value=1900, max_value=2999)

    def __init__(self, data):
        super().__init__(data)
        choices = [("", "Any year")] + [(year, str(year)) for year in years_with_papers()]
        self.fields["year"].widget = forms.Select(choices=choices)

    @property
    def is_filtered(self):
        return bool(self.cleaned_data.get("kind") or self.cleaned_data.get("year"))
