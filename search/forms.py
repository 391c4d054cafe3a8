from django import forms
from django.db.models.functions import ExtractYear

from citations.models import Paper
from rlscaling.caching import cached_by_generation

from .engine import KIND_CHOICES


def years_with_papers():
    """The years in which a published paper appeared, newest first (counted once per content
    generation: a DISTINCT over every paper is not for each request)."""

    def compute():
        years = (
            Paper.objects.published()
            .filter(publication_date__isnull=False)
            .annotate(year=ExtractYear("publication_date"))
            .order_by("-year")
            .values_list("year", flat=True)
            .distinct()
        )
        return list(years)

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
