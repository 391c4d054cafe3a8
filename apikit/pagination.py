import base64
import binascii
import datetime
import json

from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.db.models import F, Q
from django.urls import reverse
from django.utils.http import http_date
from rest_framework import exceptions, pagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.utils.urls import replace_query_param


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


class KeysetPagination(pagination.BasePagination):
    """`cursor=` paging over every term of the list's ordering (DRF's CursorPagination keys on
    the first term alone and counts an offset among its ties, so a row added among the ties
    before the cursor serves a row twice). The cursor holds the last row's value of each term
    and the next page is the rows after that tuple: rows added between pages leave no gap and
    repeat nothing. Nulls sort as the smallest values (first ascending, last descending) on
    every database. The answer keeps the page-number answer's shape (`count`, `next`,
    `previous`, `results`); `previous` is always null (a walk goes forward).

    `count` is exact on every page: the v1 policy forbids changing its meaning, so its cost (one
    COUNT over the filtered list) is the one part of a page that grows with the list
    (docs/decisions/0018)."""

    cursor_query_param = "cursor"
    cursor_query_description = "The position from the `next` link of the page before."
    page_size_query_param = "page_size"
    max_page_size = 100
    page_size = api_settings.PAGE_SIZE
    invalid_cursor_message = "Invalid cursor"

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.page_size = self.get_page_size(request)
        self.terms = self.ordering_terms(queryset, view)
        self.count = queryset.order_by().count()
        model = queryset.model
        queryset = queryset.order_by(
            *[self.order_by(name, desc, _nullable(model, name)) for name, desc in self.terms]
        )
        if self.cursor_query_param in request.query_params:
            values = self.decode_cursor(request.query_params[self.cursor_query_param])
            queryset = queryset.filter(self.after(queryset.model, values))
        rows = list(queryset[: self.page_size + 1])
        self.has_next = len(rows) > self.page_size
        self.page = rows[: self.page_size]
        return self.page

    def get_page_size(self, request):
        try:
            size = int(request.query_params[self.page_size_query_param])
        except (KeyError, ValueError):
            return self.page_size
        return min(max(size, 1), self.max_page_size) if size > 0 else self.page_size

    @staticmethod
    def ordering_terms(queryset, view):
        """[(field path, descending)] of the list's ordering, ending in the primary key."""
        ordering = list(queryset.query.order_by) or list(getattr(view, "ordering", None) or ())
        terms = []
        for term in ordering:
            if not isinstance(term, str):
                raise TypeError("A keyset ordering is made of field names.")
            terms.append((term.lstrip("-"), term.startswith("-")))
        if not any(name in ("pk", "id") for name, _ in terms):
            terms.append(("pk", terms[0][1] if terms else False))
        return terms

    @staticmethod
    def order_by(name, descending, nullable=True):
        """The term's direction, nulls the smallest; a column that is never null is ordered
        plainly, so an ordinary index on it serves the order (PostgreSQL does not match
        `ASC NULLS FIRST` with an index's default `NULLS LAST` even on a NOT NULL column)."""
        if not nullable:
            return F(name).desc() if descending else F(name).asc()
        return F(name).desc(nulls_last=True) if descending else F(name).asc(nulls_first=True)

    def after(self, model, values):
        """The rows after `values` in the ordering: beyond it on the first term, or equal on
        the first and beyond on the second, and so on."""
        beyond, equal = Q(pk__in=[]), Q()
        for (name, descending), value in zip(self.terms, values, strict=True):
            nullable = _nullable(model, name)
            if value is None:
                # Nulls are the smallest: after one ascending come the values, descending none.
                further = Q(pk__in=[]) if descending else Q(**{f"{name}__isnull": False})
                same = Q(**{f"{name}__isnull": True})
            elif descending:
                further = Q(**{f"{name}__lt": value})
                if nullable:
                    further |= Q(**{f"{name}__isnull": True})
                same = Q(**{name: value})
            else:
                further, same = Q(**{f"{name}__gt": value}), Q(**{name: value})
            beyond |= equal & further
            equal &= same
        return beyond

    def encode_cursor(self, row):
        values = [_value_of(row, name) for name, _ in self.terms]
        ordering = [f"-{name}" if desc else name for name, desc in self.terms]
        data = json.dumps({"o": ordering, "v": values}, default=str, separators=(",", ":"))
        token = base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")
        return replace_query_param(
            self.request.build_absolute_uri(), self.cursor_query_param, token
        )

    def decode_cursor(self, token):
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            data = json.loads(raw.decode())
            ordering, values = data["o"], data["v"]
        except (ValueError, TypeError, KeyError, UnicodeError, binascii.Error):
            raise exceptions.NotFound(self.invalid_cursor_message) from None
        expected = [f"-{name}" if desc else name for name, desc in self.terms]
        if ordering != expected or not isinstance(values, list) or len(values) != len(expected):
            # A cursor from another ordering would skip or repeat rows.
            raise exceptions.NotFound(self.invalid_cursor_message)
        if any(isinstance(value, dict | list) for value in values):
            raise exceptions.NotFound(self.invalid_cursor_message)
        return values

    def get_next_link(self):
        return self.encode_cursor(self.page[-1]) if self.has_next else None

    def get_paginated_response(self, data):
        return Response(
            {
                "count": self.count,
                "next": self.get_next_link(),
                "previous": None,
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "results"],
            "properties": {
                "count": {"type": "integer", "example": 123},
                "next": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "example": "http://api.example.org/accounts/?cursor=eyJvIjpbXX0",
                },
                "previous": {
                    "type": "string",
                    "nullable": True,
                    "format": "uri",
                    "description": "Always null: a cursor walk goes forward.",
                },
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": self.cursor_query_description,
                "schema": {"type": "string"},
            },
            {
                "name": self.page_size_query_param,
                "required": False,
                "in": "query",
                "description": f"Rows per page (at most {self.max_page_size}).",
                "schema": {"type": "integer"},
            },
        ]


# The policy (apikit/changelog.py POLICY): a deprecated element keeps answering for at least six
# months, its answers carrying `Deprecation` (RFC 9745) and `Sunset` (RFC 8594).
PAGE_DEPRECATED_ON = datetime.datetime(2026, 12, 6, tzinfo=datetime.UTC)
PAGE_SUNSET_ON = datetime.datetime(2027, 6, 7, tzinfo=datetime.UTC)


class KeysetWithDeprecatedPagesPagination(KeysetPagination):
    """`cursor=` paging (KeysetPagination), and the `page=` numbers a list answered before,
    deprecated: a request with `page=` is answered by page number, with the Deprecation and
    Sunset headers; one without it walks by cursor."""

    page_query_param = "page"

    def paginate_queryset(self, queryset, request, view=None):
        self.by_number = None
        if self.page_query_param in request.query_params:
            self.by_number = PageNumberPagination()
            return self.by_number.paginate_queryset(queryset, request, view)
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data):
        if self.by_number is None:
            return super().get_paginated_response(data)
        answer = self.by_number.get_paginated_response(data)
        answer["Deprecation"] = f"@{int(PAGE_DEPRECATED_ON.timestamp())}"
        answer["Sunset"] = http_date(PAGE_SUNSET_ON.timestamp())
        answer["Link"] = f'<{reverse("about-api")}>; rel="deprecation"'
        return answer

    def get_schema_operation_parameters(self, view):
        return [
            *super().get_schema_operation_parameters(view),
            {
                "name": self.page_query_param,
                "required": False,
                "in": "query",
                "deprecated": True,
                "description": "Deprecated: follow `next` (cursor) links instead. A page "
                f"number; answers carry `Deprecation` and `Sunset` ({PAGE_SUNSET_ON:%Y-%m-%d}).",
                "schema": {"type": "integer"},
            },
        ]


def _value_of(row, path):
    value = row
    for name in path.split("__"):
        value = getattr(value, name, None)
        if value is None:
            return None
    return value


def _nullable(model, path):
    """Whether the field at `path` (through relations) may be null; an annotation may."""
    for name in path.split("__"):
        if name == "pk":
            return False
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            return True
        if field.null:
            return True
        model = field.related_model or model
    return False
