"""Pagination for the public pages."""

from django.core.paginator import InvalidPage, Paginator
from django.db.models import QuerySet
from django.http import Http404


class TwoEndedPaginator(Paginator):
    """A page in the far half of an ordered queryset is read from the other end (the reversed
    ordering, a small OFFSET, then flipped back), so the last page of the research index costs
    what the first does: the B-tree index is walked backwards instead of skipping 30,000 rows."""

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        items = self.object_list
        if isinstance(items, QuerySet) and items.ordered and bottom > self.count // 2:
            reversed_page = items.reverse()[self.count - top : self.count - bottom]
            return self._get_page(list(reversed_page)[::-1], number, self)
        return self._get_page(items[bottom:top], number, self)


def paginate(request, queryset, per_page, param="page", count=None):
    """The requested page of `queryset`; a page that does not exist (`?page=999`, `?page=x`)
    is a 404 rather than a silent redirect to some other page. Pass `count` when the caller
    already knows it, to save the COUNT query."""
    paginator = TwoEndedPaginator(queryset, per_page)
    if count is not None:
        paginator.count = count  # overrides the cached_property
    try:
        page = paginator.page(request.GET.get(param) or 1)
    except InvalidPage:
        raise Http404("No such page.") from None
    page.elided_range = list(paginator.get_elided_page_range(page.number, on_ends=1))
    return page
