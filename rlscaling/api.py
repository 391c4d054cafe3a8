"""Pieces every API module shares: error bodies, pagination, filters, conditional requests,
optimistic concurrency and the OpenAPI schema class."""

import datetime
import hashlib
import json

import django_filters
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import ProtectedError
from django.http import Http404
from django.utils.cache import parse_etags, patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_http_date_safe, quote_etag
from django_filters.fields import IsoDateTimeField, RangeField
from django_filters.rest_framework import DjangoFilterBackend
from django_filters.widgets import DateRangeWidget
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import exceptions, filters, pagination, serializers, status, viewsets
from rest_framework.permissions import DjangoModelPermissionsOrAnonReadOnly
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from citations.identifiers import normalise_arxiv_id, normalise_doi  # noqa: F401
from rlscaling.publishing import StaleEditError

# ---- Errors: one body shape for every 4xx the API returns


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "The resource changed since you fetched it (If-Match did not match)."
    default_code = "precondition_failed"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state of the resource."
    default_code = "conflict"


class ErrorSerializer(serializers.Serializer):
    """The body of every error response."""

    status = serializers.IntegerField(help_text="The HTTP status code, repeated.")
    code = serializers.CharField(help_text='A stable machine-readable code, e.g. "invalid".')
    detail = serializers.CharField(help_text="A sentence for people.")
    errors = serializers.DictField(
        child=serializers.JSONField(),
        help_text="Field name → list of messages (validation errors only; otherwise empty). "
        'Errors not tied to one field are under "non_field_errors".',
    )


def _first_code(codes):
    while isinstance(codes, (list, dict)):
        if not codes:
            return "invalid"
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return codes


def exception_handler(exc, context):
    """DRF's handler, with every error in the {status, code, detail, errors} shape."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    elif isinstance(exc, ProtectedError):
        exc = Conflict("Other rows still refer to this one; remove those references first.")
    elif isinstance(exc, IntegrityError):
        # Constraints the serializers check first; this is the race between check and write.
        exc = Conflict("The change collides with a row saved at the same time; fetch and retry.")
    elif isinstance(exc, StaleEditError):
        exc = Conflict(stale_message(exc.expected_version, exc.current_version))
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        errors = detail if isinstance(detail, dict) else {"non_field_errors": detail}
        body = {
            "status": response.status_code,
            "code": _first_code(exc.get_codes()) if not isinstance(detail, dict) else "invalid",
            "detail": "Invalid input: see `errors` for the fields at fault.",
            "errors": errors,
        }
    else:
        body = {
            "status": response.status_code,
            "code": _first_code(exc.get_codes()),
            "detail": str(exc.detail),
            "errors": {},
        }
    response.data = body
    return response


def stale_message(submitted, current):
    return (
        f"Stale version: you sent version {submitted}, but it is now version {current}. "
        "Fetch it again, reapply your change and send the new version."
    )


class NotFoundView(APIView):
    """Unknown paths under /api/v1/ answer with the API's own 404 body, not an HTML page."""

    permission_classes = []
    schema = None

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise exceptions.NotFound("No API endpoint at this address.")


# ---- Permissions


class EditorsWrite(DjangoModelPermissionsOrAnonReadOnly):
    """Anyone reads; writes need an authenticated account holding the model permission
    (the Editors group has them all). Drafts are filtered by `visible_to`, not here."""


# ---- Pagination


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100


class CursorPagination(pagination.CursorPagination):
    """Cursor pagination over the view's ordering (see OrderingFilter below), which always
    ends in the primary key, so pages are stable while rows are added."""

    page_size_query_param = "page_size"
    max_page_size = 100
    ordering = ("-pk",)

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, TypeError, OverflowError, DatabaseError):
            # A tampered cursor whose position does not fit the ordering field.
            raise exceptions.NotFound(self.invalid_cursor_message) from None

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except (UnicodeError, ValueError, TypeError):
            raise exceptions.NotFound(self.invalid_cursor_message) from None


# ---- Filtering, search and ordering


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
    PostgreSQL), DRF's `search_fields` otherwise."""

    def filter_queryset(self, request, queryset, view):
        text = request.query_params.get(self.search_param, "")
        if hasattr(queryset, "search"):
            return queryset.search(text.replace("\x00", ""))
        return super().filter_queryset(request, queryset, view)

    def get_search_terms(self, request):
        # NUL bytes cannot go into a PostgreSQL query; they are never meaningful in a search.
        return [term.replace("\x00", "") for term in super().get_search_terms(request)]


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


class PublishableFilterSet(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        choices=[("draft", "draft"), ("published", "published")],
        help_text="Editors only see drafts at all; for everyone else this is `published`.",
    )
    updated_after = IsoDateTimeFilter(
        field_name="updated_at", lookup_expr="gte", help_text="Changed at or after (ISO 8601)."
    )


# ---- Conditional requests and optimistic concurrency


def etag_for(data):
    """A strong ETag for a JSON representation: the hash of its canonical form."""
    canonical = json.dumps(data, cls=JSONEncoder, sort_keys=True, separators=(",", ":"))
    return quote_etag(hashlib.sha256(canonical.encode()).hexdigest()[:32])


def _opaque(tag):
    return tag[2:] if tag.startswith("W/") else tag


class ConditionalGetMixin:
    """ETag (and Last-Modified on details) for JSON GETs; 304 on If-None-Match or
    If-Modified-Since. If-None-Match wins when both are sent (RFC 9110 13.2.2)."""

    def get_last_modified(self, instance):
        return getattr(instance, "updated_at", None)

    def retrieve(self, request, *args, **kwargs):
        instance = self.get_object()
        response = Response(self.get_serializer(instance).data)
        response.last_modified = self.get_last_modified(instance)
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if getattr(response, "data", None) is None or not 200 <= response.status_code < 300:
            return response
        patch_vary_headers(response, ("Authorization", "Cookie"))
        if request.method not in ("GET", "HEAD"):
            if request.method in ("PUT", "PATCH", "POST") and response.status_code != 204:
                response["ETag"] = etag_for(response.data)
            return response
        if request.user.is_authenticated:
            patch_cache_control(response, private=True, no_cache=True)
        else:
            patch_cache_control(response, no_cache=True)
        if getattr(request, "accepted_renderer", None) is None or (
            request.accepted_renderer.format != "json"
        ):
            return response
        etag = etag_for(response.data)
        response["ETag"] = etag
        last_modified = getattr(response, "last_modified", None)
        if last_modified:
            response["Last-Modified"] = http_date(last_modified.timestamp())
        if self._not_modified(request, etag, last_modified):
            not_modified = Response(status=status.HTTP_304_NOT_MODIFIED)
            not_modified = super().finalize_response(request, not_modified, *args, **kwargs)
            for header in ("ETag", "Last-Modified", "Cache-Control", "Vary"):
                if header in response:
                    not_modified[header] = response[header]
            return not_modified
        return response

    @staticmethod
    def _not_modified(request, etag, last_modified):
        if_none_match = parse_etags(request.headers.get("If-None-Match", ""))
        if if_none_match:
            return "*" in if_none_match or _opaque(etag) in {_opaque(t) for t in if_none_match}
        since = parse_http_date_safe(request.headers.get("If-Modified-Since", ""))
        if since is None or last_modified is None:
            return False
        return int(last_modified.timestamp()) <= since


class VersionedWritesMixin:
    """Optimistic concurrency for editorial rows.

    A PUT/PATCH/DELETE carrying `If-Match` proceeds only if it matches the current ETag
    (else 412); a PUT/PATCH carrying `version` only if that is the stored version (else 409).
    The save itself is a compare-and-swap on the version (`Publishable.save_if_version`), so a
    write that loses a race is refused with 409 too, and nothing is changed.
    """

    def check_if_match(self, request, instance):
        header = request.headers.get("If-Match")
        if not header:
            return
        tags = parse_etags(header)
        if tags == ["*"]:
            return
        current = etag_for(self.get_serializer(instance).data)
        # If-Match uses the strong comparison: weak validators never match.
        if current not in [tag for tag in tags if not tag.startswith("W/")]:
            raise PreconditionFailed(
                "The resource changed since you fetched it: its ETag is now "
                f"{current}. Fetch it again and reapply your change."
            )

    def submitted_version(self, request, instance):
        data = request.data
        if not hasattr(data, "get") or data.get("version") in (None, ""):
            return instance.version
        submitted = data.get("version")
        if isinstance(submitted, bool):
            submitted = None
        try:
            submitted = int(submitted)
        except (TypeError, ValueError, OverflowError):
            raise exceptions.ValidationError(
                {"version": ["A valid integer is required."]}
            ) from None
        if submitted != instance.version:
            raise Conflict(stale_message(submitted, instance.version))
        return submitted

    def update(self, request, *args, **kwargs):
        partial = kwargs.pop("partial", False)
        with transaction.atomic():
            instance = self.get_object()
            self.check_if_match(request, instance)
            expected = self.submitted_version(request, instance)
            serializer = self.get_serializer(instance, data=request.data, partial=partial)
            serializer.is_valid(raise_exception=True)
            instance = serializer.save(expected_version=expected)
        return Response(self.get_serializer(self.refetch(instance)).data)

    def refetch(self, instance):
        """The saved row again, with the annotations and prefetches the serializer needs.
        Not through `visible_to`: who may add a draft but not view drafts still gets back the
        row they just wrote."""
        return self.decorate(type(instance)._default_manager.filter(pk=instance.pk)).get()

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            instance = serializer.save()
        data = self.get_serializer(self.refetch(instance)).data
        # str(): the value is a DRF Hyperlink, and wsgiref accepts only exact str headers.
        headers = {"Location": str(data["api_url"])} if "api_url" in data else {}
        return Response(data, status=status.HTTP_201_CREATED, headers=headers)

    def destroy(self, request, *args, **kwargs):
        with transaction.atomic():
            instance = self.get_object()
            self.check_if_match(request, instance)
            instance.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class VersionedModelSerializer(serializers.ModelSerializer):
    """Saves through the compare-and-swap on `version`; `version` is read-only."""

    version = serializers.IntegerField(
        read_only=True,
        help_text="Bumped on every save. Send it back on PUT/PATCH to refuse stale edits (409).",
    )

    def save(self, **kwargs):
        self._expected_version = kwargs.pop("expected_version", None)
        return super().save(**kwargs)

    def save_instance(self, instance):
        expected = getattr(self, "_expected_version", None)
        if instance.pk is None or expected is None:
            instance.save()
        else:
            instance.save_if_version(expected)

    def update(self, instance, validated_data):
        many_to_many = self.pop_many_to_many(validated_data)
        for attr, value in validated_data.items():
            setattr(instance, attr, value)
        self.save_instance(instance)
        self.save_many_to_many(instance, many_to_many)
        return instance

    def create(self, validated_data):
        many_to_many = self.pop_many_to_many(validated_data)
        instance = self.Meta.model(**validated_data)
        instance.save()
        self.save_many_to_many(instance, many_to_many)
        return instance

    def pop_many_to_many(self, validated_data):
        """Values for the relations named in `Meta.relations`, set after the row is saved."""
        names = getattr(self.Meta, "relations", ())
        return {name: validated_data.pop(name) for name in names if name in validated_data}

    def save_many_to_many(self, instance, values):
        for name, value in values.items():
            getattr(instance, name).set(value)


FILTER_BACKENDS = [DjangoFilterBackend, SearchFilter, OrderingFilter]


class PublishableViewSet(ConditionalGetMixin, VersionedWritesMixin, viewsets.ModelViewSet):
    """An editorial resource: drafts only for those who may view them; writes for editors."""

    permission_classes = [EditorsWrite]
    filter_backends = FILTER_BACKENDS
    pagination_class = PageNumberPagination
    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return self.decorate(self.queryset.model.objects.visible_to(self.request.user))

    def decorate(self, queryset):
        """The annotations and prefetches the serializer needs; override per resource."""
        return queryset


class ReadOnlyViewSet(ConditionalGetMixin, viewsets.ReadOnlyModelViewSet):
    permission_classes = [EditorsWrite]
    filter_backends = FILTER_BACKENDS
    pagination_class = PageNumberPagination
    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"


class SlugReferenceField(serializers.SlugRelatedField):
    """A reference to another row by its slug; one with a NUL byte matches nothing (and never
    reaches PostgreSQL, which refuses NUL in text)."""

    def to_internal_value(self, data):
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", ""))
        return super().to_internal_value(data)


class ApiUrlField(serializers.HyperlinkedIdentityField):
    """The row's own address in this API."""

    def __init__(self, view_name, lookup_field="slug", **kwargs):
        kwargs.setdefault("help_text", "This resource in the API.")
        super().__init__(view_name=view_name, lookup_field=lookup_field, **kwargs)


# ---- OpenAPI


def error_response(description):
    return OpenApiResponse(ErrorSerializer, description=description)


class ApiSchema(AutoSchema):
    """drf-spectacular's schema, plus the error responses and conditional-request headers
    every operation here can produce."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        errors = {
            "400": "Invalid input: a bad filter value, body or identifier.",
            "401": "Credentials missing or refused (e.g. the token of a deactivated account).",
            "403": "Authenticated, but without the permission this needs.",
            "404": "No such resource, or not visible to you (drafts).",
            "429": "Too many requests; see Retry-After.",
        }
        if self.method in ("PUT", "PATCH", "DELETE"):
            errors["409"] = "Stale `version` in the body, or a conflicting concurrent write."
            errors["412"] = "If-Match did not match the current ETag."
        elif self.method == "POST":
            errors["409"] = "A conflicting concurrent write."
        for code, description in errors.items():
            responses.setdefault(
                code, self._get_response_for_code(error_response(description), code)
            )
        if self.method == "GET":
            responses.setdefault("304", {"description": "Not modified (If-None-Match matched)."})
        return responses

    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        if self.method == "GET" and not self._is_schema_or_docs():
            parameters.append(
                OpenApiParameter(
                    "If-None-Match",
                    str,
                    OpenApiParameter.HEADER,
                    description="An ETag from an earlier response: 304 if unchanged.",
                )
            )
        if self.method in ("PUT", "PATCH", "DELETE"):
            parameters.append(
                OpenApiParameter(
                    "If-Match",
                    str,
                    OpenApiParameter.HEADER,
                    description="The ETag you fetched: 412 if the resource changed since.",
                )
            )
        return parameters

    def _is_schema_or_docs(self):
        return self.path.endswith(("/schema/", "/docs/", "/redoc/"))
