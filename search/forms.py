from django import forms

from citations.stats.facet_counts import PUBLIC, stored_years
from search.engine import KIND_CHOICES


def years_with_papers():
    """The years in which a published paper appeared, newest first: read from the stored
    counts (citations/stats/facet_counts.py, scope "public", any date precision; 0 is undated)."""
    return stored_years(PUBLIC)


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
