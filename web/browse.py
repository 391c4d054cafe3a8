"""Browse pages for whole collections: every published paper (/papers/), every published
research note (/notes/) and every public tag (/tags/), each sorted by `?sort=` and paginated."""

import functools

from django import forms
from django.db.models import F
from django.db.models.functions import Lower
from django.shortcuts import render
from django.views.decorators.http import require_safe

from citations.models import NEWEST_FIRST, Paper
from citations.stats.facet_counts import ALL, PUBLIC, stored_count
from core.pagination import paginate
from notes.models import ResearchNote
from pagecache.caching import reads_query
from tags.counts import public_tags

PAPERS_PAGE_SIZE = 20
NOTES_PAGE_SIZE = 20
TAGS_PAGE_SIZE = 100

# key: (label, order_by arguments); the first is the default.
PAPER_SORTS = {
    "newest": ("Newest first", NEWEST_FIRST),
    "title": ("Title (A–Z)", (Lower("title"), "id")),
    # Over counted() papers (no NULL count): the order of the index citation_count_total.
    "cited": ("Most cited", (F("cited_by_count").desc(), *NEWEST_FIRST)),
}
NOTE_SORTS = {
    "newest": ("Newest first", (F("published_at").desc(), F("id").desc())),
    "title": ("Title (A–Z)", (Lower("title"), "id")),
}
TAG_SORTS = {
    "name": ("Name (A–Z)", ("slug",)),
    "items": ("Most items", (F("item_count").desc(), "slug")),
}


class SortForm(forms.Form):
    """`?sort=` on a browse page: one of the page's sort keys (the first is the default). Any
    other value makes the form invalid and the view answers 400; other parameters are ignored."""

    sort = forms.ChoiceField(required=False, label="Sort by")

    def __init__(self, data, sorts):
        super().__init__(data)
        self.sorts = sorts
        self.fields["sort"].choices = [(key, label) for key, (label, _) in sorts.items()]

    @property
    def ordering(self):
        """The order_by() arguments of the chosen sort, or of the default one."""
        return self.sorts[self.cleaned_data.get("sort") or next(iter(self.sorts))][1]


def browse(request, template_name, sorts, listing, per_page, context, count=None):
    """Validate `?sort=`, then render the requested page of `listing` in that order. `count`:
    a cheaper way to count `listing` (a callable), when there is one."""
    sort_form = SortForm(request.GET, sorts)
    context = {"sort_form": sort_form, **context}
    if not sort_form.is_valid():
        return render(request, template_name, context, status=400)
    ordered = listing.order_by(*sort_form.ordering)
    context["page"] = paginate(request, ordered, per_page, count=count and count())
    return render(request, template_name, context)


@reads_query("page", "sort")
@require_safe
def paper_list(request):
    """Every published paper, also those outside the research index, with its citing count."""
    papers = Paper.objects.published().with_stored_counts().with_list_foot()
    if request.GET.get("sort") == "cited":
        papers = papers.counted()
    return browse(
        request,
        "browse/papers.html",
        PAPER_SORTS,
        papers,
        PAPERS_PAGE_SIZE,
        {"nav": "papers", "pages_label": "Paper pages"},
        # Stored (citations/stats/facet_counts.py): a COUNT of the published papers scanned
        # them all.
        count=functools.partial(stored_count, PUBLIC, ALL),
    )


@reads_query("page", "sort")
@require_safe
def note_list(request):
    """Every published research note, with the published papers it covers."""
    notes = ResearchNote.objects.published().with_published_papers()
    return browse(
        request,
        "browse/notes.html",
        NOTE_SORTS,
        notes,
        NOTES_PAGE_SIZE,
        {"nav": "notes", "pages_label": "Research note pages"},
    )


@reads_query("page", "sort")
@require_safe
def tag_index(request):
    """Every public tag with how many published papers and notes carry it."""
    tags = public_tags().annotate(
        paper_count=F("public_paper_count"),
        note_count=F("public_note_count"),
        item_count=F("public_paper_count") + F("public_note_count"),
    )
    return browse(
        request,
        "browse/tags.html",
        TAG_SORTS,
        tags,
        TAGS_PAGE_SIZE,
        {"nav": "tags", "pages_label": "Tag pages"},
    )
