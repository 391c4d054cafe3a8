"""Author pages (/authors/<slug>/) and the author search (/authors/?q=): published papers
only, so an author named only on drafts has no page and is never found. An author's old slug
(changed, or merged into another author) answers 301 to their page."""

from django import forms
from django.db.models import Count, Q
from django.db.models.functions import ExtractYear
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from citations.models import Author, Authorship, Citation, DatePrecision, Paper
from core.pagination import paginate
from pagecache.caching import reads_query
from publishing.models import published_q

AUTHOR_PAGE_SIZE = 20
AUTHOR_LIST_PAGE_SIZE = 50
# The list counts this many authors past the page's start, then says "more than": a page
# costs what its authors do, not a check of every author's papers (docs/decisions/0018).
AUTHOR_LIST_COUNT_AHEAD = 500
CO_AUTHORS_SHOWN = 20


class AuthorSearchForm(forms.Form):
    q = forms.CharField(label="Name", required=False, max_length=200, strip=True)


def authors_with_published_papers():
    return Author.objects.with_published_papers()


def co_authors(author, limit=CO_AUTHORS_SHOWN):
    """The authors sharing most published papers with `author`: [(name, slug, shared)]."""
    rows = (
        Authorship.objects.filter(
            published_q("paper__"),
            paper__in=Authorship.objects.filter(author=author).values("paper"),
        )
        .exclude(author=author)
        .values_list("author__name", "author__slug")
        .annotate(shared=Count("paper", distinct=True))
        .order_by("-shared", "author__name")
    )
    return list(rows[:limit])


def citing_per_year(author):
    """The public papers citing any of the author's published papers, each counted once, per
    year of the citing paper ({year: count}, oldest first), and how many have no known date."""
    citing = (
        Citation.objects.public()
        .filter(cited_paper__authorships__author=author)
        .values("citing_paper")
    )
    rows = (
        Paper.objects.filter(pk__in=citing)
        .annotate(
            year=ExtractYear("publication_date"),
            unknown=Q(date_precision=DatePrecision.UNKNOWN) | Q(publication_date__isnull=True),
        )
        .values_list("year", "unknown")
        .annotate(n=Count("pk"))
        .order_by()
    )
    years, undated = {}, 0
    for year, unknown, n in rows:
        if unknown or year is None:
            undated += n
        else:
            years[year] = years.get(year, 0) + n
    return [{"year": year, "count": n} for year, n in sorted(years.items())], undated


@reads_query("page")
@require_safe
def author_detail(request, slug):
    author = authors_with_published_papers().filter(slug=slug).first()
    if author is None:
        renamed = authors_with_published_papers().filter(slug_aliases__slug=slug).first()
        if renamed is None:
            raise Http404("No author has this address.")
        query = request.META.get("QUERY_STRING")
        url = renamed.get_absolute_url()
        return redirect(f"{url}?{query}" if query else url, permanent=True)
    papers = Paper.objects.published().filter(authorships__author=author)
    papers = papers.with_stored_counts().with_list_foot().newest_first()
    per_year, undated = citing_per_year(author)
    context = {
        "nav": "research",
        "author": author,
        "page": paginate(request, papers, AUTHOR_PAGE_SIZE),
        "co_authors": co_authors(author),
        "citing_per_year": per_year,
        "citing_total": sum(row["count"] for row in per_year) + undated,
        "citing_undated": undated,
    }
    return render(request, "discovery/author_detail.html", context)


@reads_query("page", AuthorSearchForm)
@require_safe
def author_list(request):
    form = AuthorSearchForm(request.GET or None)
    context = {"nav": "research", "form": form}
    if form.is_bound and not form.is_valid():
        return render(request, "discovery/author_list.html", context, status=400)
    authors = authors_with_published_papers().order_by("name", "pk")
    query = form.cleaned_data.get("q") if form.is_bound else ""
    if query:
        for word in query.split():
            authors = authors.filter(name__icontains=word)
    context["query"] = query
    context["page"] = paginate(
        request,
        authors,
        AUTHOR_LIST_PAGE_SIZE,
        count_ahead=AUTHOR_LIST_COUNT_AHEAD,
        count_in_order=True,
    )
    return render(request, "discovery/author_list.html", context)
