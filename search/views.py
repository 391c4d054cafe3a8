"""/search/: the results page (grouped by kind, or one kind paginated), the suggestions the
header box shows as a reader types, and the results' Atom feed."""

import dataclasses

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from core.pagination import paginate, requested_page_number
from pagecache.caching import reads_query
from search.engine import SOURCES, Count, Query, paper_for_identifier
from search.feeds import SearchFeed
from search.forms import SearchForm
from search.spelling import correction
from tags.counts import public_tags

GROUP_SIZE = 5
PAGE_SIZE = 20
SUGGESTION_LIMITS = {"papers": 5, "notes": 2, "layers": 2, "tags": 2, "pages": 2}
MIN_SUGGEST_LENGTH = 2
FEW_RESULTS = GROUP_SIZE


@dataclasses.dataclass
class Group:
    source: object
    count: int
    hits: list
    near_spellings: bool = False
    more: bool = False  # more than `count` match: counting stopped there


def hits_for(source, query, year, limit=None):
    """(count, rows, near) of `source` for the query; papers fall back to close spellings."""
    rows = source.matching(query, year)
    count = source.count(query, year)
    near = False
    if not count.value and source.key == "papers":
        rows = source.near_spellings(query, year)
        count = Count.of(rows)
        near = bool(count.value)
    if limit is not None:
        rows = rows[:limit]
    return count, rows, near


def results(request, query, kind, year):
    """The groups of results (and, for one kind, the page) of `query`."""
    if kind:
        source = SOURCES[kind]
        count, rows, near = hits_for(source, query, year)
        # Past MATCH_LIMIT matches, the bounded count serves the pages within it ("more
        # than"); only a page beyond it counts every match.
        within = requested_page_number(request) * PAGE_SIZE < count.value
        known = not count.more or within
        page = paginate(
            request,
            rows,
            PAGE_SIZE,
            count=count.value if known else None,
            count_is_bound=count.more,
        )
        page.object_list = source.hits(page.object_list)
        return {
            "page": page,
            "groups": [Group(source, count.value, page.object_list, near, count.more)],
        }
    groups = []
    for source in SOURCES.values():
        count, rows, near = hits_for(source, query, year, GROUP_SIZE)
        if count.value:
            hits = source.hits(rows)
            groups.append(Group(source, count.value, hits, near, count.more))
    return {"groups": groups}


def matches_of(query, kind, year):
    """How many results `query` has (of `kind` when given), as the page counts them."""
    sources = [SOURCES[kind]] if kind else SOURCES.values()
    return sum(source.count(query, year).value for source in sources)


@require_safe
@reads_query("page", SearchForm)
def search(request):
    form = SearchForm(request.GET)
    context = {"form": form, "nav": "search"}
    if not form.is_valid():
        return render(request, "search/results.html", context, status=400)
    text = form.cleaned_data["q"]
    paper = paper_for_identifier(text)
    if paper is not None:
        return redirect(paper)
    query = Query(text)
    kind = form.cleaned_data["kind"]
    year = form.cleaned_data["year"]
    context.update(query=query, kind=kind, year=year)
    if not query:
        return render(request, "search/results.html", context)
    context.update(results(request, query, kind, year))
    exact = sum(group.count for group in context["groups"] if not group.near_spellings)
    # A query that finds a few results already is spelt as the site spells it: only a
    # query finding fewer reads the vocabulary (search/spelling.py) for a correction.
    corrected = correction(query.text) if exact < FEW_RESULTS else None
    if corrected:
        corrected_query = Query(corrected)
        if not exact:
            # Nothing matches as typed: show what the corrected words find, and say so.
            found = results(request, corrected_query, kind, year)
            if found["groups"]:
                context.update(found, query=corrected_query, typed=query)
        elif matches_of(corrected_query, kind, year) > exact:
            context["did_you_mean"] = corrected_query
    context["total"] = sum(group.count for group in context["groups"])
    context["total_is_more"] = any(group.more for group in context["groups"])
    if not context["total"]:
        context["suggested_tags"] = public_tags().order_by("name")[:12]
    return render(request, "search/results.html", context)


@require_safe
@reads_query("q")
def suggest(request):
    """Up to a dozen titles matching what the reader has typed so far (two characters or
    more), as JSON for the header box's list of suggestions (static/js/search.js)."""
    text = " ".join(request.GET.get("q", "").split())[:200]
    suggestions = []
    paper = paper_for_identifier(text)
    if paper is not None:
        suggestions.append(SOURCES["papers"].suggestion(paper))
    elif len(text) >= MIN_SUGGEST_LENGTH:
        query = Query(text)
        for key, limit in SUGGESTION_LIMITS.items():
            source = SOURCES[key]
            if query:
                rows = source.suggestions(query, limit)
                suggestions += [source.suggestion(item) for item in rows]
    response = JsonResponse({"query": text, "suggestions": suggestions})
    response["Cache-Control"] = "public, max-age=60"
    return response


@require_safe
@reads_query(SearchForm)
def search_feed(request):
    """The Atom feed of a search: its dated results (papers, notes), newest first."""
    form = SearchForm(request.GET)
    if not form.is_valid():
        return render(request, "search/results.html", {"form": form, "nav": "search"}, status=400)
    return SearchFeed()(request)
