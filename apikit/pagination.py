from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from rest_framework import exceptions, pagination


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100


class CursorPagination(pagination.CursorPagination):
    """Cursor pagination over the view's ordering (see filters.OrderingFilter), which always
    ends in the primary key, so pages are stable while rows are added."""

    def get_paginated_response_schema(self, schema):
        answer = super().get_paginated_response_schema(schema)
        # DRF's example for `next` ends in a stray quote, which makes it no URI.
        link = answer["properties"]["next"]
        link["example"] = link["example"].rstrip('"')
        return answer

    page_size_query_param = "page_size"
    max_page_size = 100
    ordering = ("-pk",)

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, TypeError, OverflowError, DataError):
            # A tampered cursor whose position does not fit the ordering field. (Not every
            # DatabaseError: a statement cut off by the anonymous timeout is a 503.)
            raise exceptions.NotFound(self.invalid_cursor_message) from None

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except (UnicodeError, ValueError, TypeError):
            raise exceptions.NotFound(self.invalid_cursor_message) from None
