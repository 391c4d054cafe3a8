"""Search, ordering, and the filter types and filter set the apps' filter sets build on."""

import datetime

import django_filters
import django_filters.constants
from django.core.exceptions import ValidationError as DjangoValidationError
from django_filters.fields import IsoDateTimeField, RangeField
from django_filters.rest_framework import DjangoFilterBackend
from django_filters.widgets import DateRangeWidget
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import filters


class OrderingFilter(filters.OrderingFilter):
    """`ordering=` with public names mapped to sortable expressions (`view.ordering_aliases`,
    e.g. a nullable date coalesced so cursors work), and the primary key as the last tie-break."""

    def get_ordering(self, request, queryset, view):
        ordering = super().get_ordering(request, queryset, view) or ()
        aliases = getattr(view, "ordering_aliases", {})
        mapped = []
        for term in ordering:
            descending = term.startswith("-")
            name = aliases.get(term.lstrip("-"), term.lstrip("-"))
            mapped.append(f"-{name}" if descending else name)
        if not any(term.lstrip("-") in ("pk", "id") for term in mapped):
            mapped.append("-pk" if mapped and mapped[0].startswith("-") else "pk")
        return tuple(mapped)


class SearchFilter(filters.SearchFilter):
    """`search=`: the model's own `queryset.search(text)` where it has one (full-text on
    PostgreSQL), its `queryset.matching(terms)` where it has that (DRF's terms and rule, its
    own query), DRF's `search_fields` otherwise."""

    def filter_queryset(self, request, queryset, view):
        text = request.query_params.get(self.search_param, "")
        if hasattr(queryset, "search"):
            return queryset.search(text.replace("\x00", ""))
        if hasattr(queryset, "matching"):
            return queryset.matching(self.get_search_terms(request))
        return super().filter_queryset(request, queryset, view)

    def get_search_terms(self, request):
        # NUL bytes cannot go into a PostgreSQL query; they are never meaningful in a search.
        return [term.replace("\x00", "") for term in super().get_search_terms(request)]


FILTER_BACKENDS = [DjangoFilterBackend, SearchFilter, OrderingFilter]


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(django_filters.TypedChoiceFilter):
    """`true` or `false`; anything else is a 400, never silently ignored."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("choices", [("true", "true"), ("false", "false")])
        kwargs.setdefault("coerce", lambda value: value == "true")
        super().__init__(*args, **kwargs)


class YearFilter(django_filters.NumberFilter):
    field_class = django_filters.fields.forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("lookup_expr", "year")
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 9999)
        super().__init__(*args, **kwargs)


class UtcIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 date-time, converted to UTC: PostgreSQL refuses offsets beyond ±15:59."""

    def to_python(self, value):
        value = super().to_python(value)
        if value is None:
            return None
        try:
            return value.astimezone(datetime.UTC)
        except (OverflowError, ValueError):
            raise DjangoValidationError("This date-time is out of range.", code="invalid") from None


class UtcIsoDateTimeRangeField(RangeField):
    widget = DateRangeWidget

    def __init__(self, *args, **kwargs):
        super().__init__((UtcIsoDateTimeField(), UtcIsoDateTimeField()), *args, **kwargs)


class IsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UtcIsoDateTimeField


class IsoDateTimeFromToRangeFilter(django_filters.IsoDateTimeFromToRangeFilter):
    field_class = UtcIsoDateTimeRangeField


def published_at_range():
    return IsoDateTimeFromToRangeFilter(
        help_text="Publication time range: `published_at_after`, `published_at_before`."
    )


def slug_choice(model, **kwargs):
    """A filter on a row of `model` given by its slug (400 if no such row); for a publishable
    model, only among the rows the requesting user may see."""
    if hasattr(model.objects, "visible_to"):

        def queryset(request):
            return model.objects.visible_to(request.user) if request else model.objects.none()

    else:
        queryset = model.objects.all()
    return django_filters.ModelChoiceFilter(to_field_name="slug", queryset=queryset, **kwargs)


class VisibleReferenceFilter(django_filters.CharFilter):
    """A reference to another editorial row by slug, matched only among the rows the user may
    see: for the public a draft is exactly a row that does not exist (no count to tell them
    apart). `field_name` is the relation, e.g. `papers`."""

    def __init__(self, target, *args, **kwargs):
        self.target = target  # not `model`: the filter set sets that to its own model
        super().__init__(*args, **kwargs)

    def filter(self, queryset, value):
        if value in django_filters.constants.EMPTY_VALUES:
            return queryset
        user = getattr(self.parent.request, "user", None)
        if user is None:
            visible = self.target.objects.published()
        else:
            visible = self.target.objects.visible_to(user)
        matches = visible.filter(slug=value.replace("\x00", "")).values("pk")
        return queryset.filter(**{f"{self.field_name}__in": matches}).distinct()


class PublishableFilterSet(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        choices=[("draft", "draft"), ("published", "published")],
        help_text="Editors only see drafts at all; for everyone else this is `published`.",
    )
    updated_after = IsoDateTimeFilter(
        field_name="updated_at", lookup_expr="gte", help_text="Changed at or after (ISO 8601)."
    )

    class Meta:
        fields = []  # only the filters declared; `filterset_factory(Model, this)` adds the model
