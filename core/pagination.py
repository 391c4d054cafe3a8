"""Pagination for the public pages."""

from django.core.paginator import InvalidPage, Paginator
from django.db.models import QuerySet
from django.http import Http404


class TwoEndedPaginator(Paginator):
    """A page in the far half of an ordered queryset is read from the other end (the reversed
    ordering, a small OFFSET, then flipped back), so the last page of the research index costs
    what the first does: the B-tree index is walked backwards instead of skipping 30,000 rows.
    With `count_is_bound` the count is only a lower bound (see `paginate`): there is no known
    other end to read from."""

    count_is_bound = False

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        items = self.object_list
        far_half = bottom > self.count // 2 and not self.count_is_bound
        if isinstance(items, QuerySet) and items.ordered and far_half:
            reversed_page = items.reverse()[self.count - top : self.count - bottom]
            return self._get_page(list(reversed_page)[::-1], number, self)
        return self._get_page(items[bottom:top], number, self)


def bounded_count(queryset, limit, in_order=False):
    """How many rows `queryset` has, counting no further than `limit` + 1: (count, exact).
    `in_order`: count the first rows in the list's own order, so the count walks the index
    the page walks; without an order PostgreSQL may pick a plan that reads far more than
    `limit` rows to find them (the authors with a published paper: a merge over every
    authorship of the first authors by id)."""
    rows = queryset if in_order else queryset.order_by()
    found = rows.values("pk")[: limit + 1].count()
    return (found, True) if found <= limit else (limit, False)


def requested_page_number(request, param="page"):
    """The page number asked for, within bounds a query can use (the paginator itself
    answers a page that does not exist, or is no number, with a 404)."""
    try:
        return min(max(int(request.GET.get(param) or 1), 1), 10**7)
    except ValueError:
        return 1


def paginate(
    request,
    queryset,
    per_page,
    param="page",
    count=None,
    count_ahead=None,
    counted=None,
    count_is_bound=False,
    count_in_order=False,
):
    """The requested page of `queryset`; a page that does not exist (`?page=999`, `?page=x`)
    is a 404 rather than a silent redirect to some other page. Pass `count` when the caller
    already knows it, to save the COUNT query; or `count_ahead` to count only that many rows
    past the page's start: beyond them the page says "more than" (`page.count_is_bound`), and
    each later page counts further. A COUNT of every matching row of a list with tens of
    thousands is not paid for a page of twenty. `counted`: the queryset to count, when
    `queryset` is a sequence read from it in another way. `count_is_bound`: the `count` given
    is a lower bound (the caller counted no further), said as "more than". `count_in_order`:
    the bounded count reads the rows in the list's order (`bounded_count`)."""
    paginator = TwoEndedPaginator(queryset, per_page)
    if count is None and count_ahead is not None:
        start = (requested_page_number(request, param) - 1) * per_page
        # At least one row past the page, so a page cut short by the bound has a next one.
        rows = queryset if counted is None else counted
        limit = start + max(count_ahead, per_page + 1)
        count, exact = bounded_count(rows, limit, in_order=count_in_order)
        paginator.count_is_bound = not exact
    if count is not None:
        paginator.count = count  # overrides the cached_property
        paginator.count_is_bound = paginator.count_is_bound or count_is_bound
    try:
        page = paginator.page(request.GET.get(param) or 1)
    except InvalidPage:
        raise Http404("No such page.") from None
    page.elided_range = list(paginator.get_elided_page_range(page.number, on_ends=1))
    page.count_is_bound = paginator.count_is_bound
    return page
