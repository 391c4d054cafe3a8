"""The OpenAPI schema: drf-spectacular's, plus what every operation here can answer."""

from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import permissions, serializers

from apikit.errors import ErrorSerializer
from apikit.facets import FacetsSerializer
from apikit.params import parameters_for_view, reads

RATE_LIMIT_HEADERS = [
    OpenApiParameter(
        "X-RateLimit-Limit",
        int,
        OpenApiParameter.HEADER,
        response=True,
        description="Requests allowed in the throttle's window (the throttle closest to "
        "refusing, where several apply).",
    ),
    OpenApiParameter(
        "X-RateLimit-Remaining",
        int,
        OpenApiParameter.HEADER,
        response=True,
        description="Requests left in the window.",
    ),
    OpenApiParameter(
        "X-RateLimit-Reset",
        int,
        OpenApiParameter.HEADER,
        response=True,
        description="Unix time (seconds) at which one more request is allowed again.",
    ),
    OpenApiParameter(
        "Retry-After",
        int,
        OpenApiParameter.HEADER,
        response=[429],
        description="Seconds to wait before trying again.",
    ),
]


# Permissions under which anyone, signed in or not, may make a safe (read) request.
ANONYMOUS_READS = (
    permissions.AllowAny,
    permissions.IsAuthenticatedOrReadOnly,
    permissions.DjangoModelPermissionsOrAnonReadOnly,
)
JSON = "application/json"
MULTIPART = "multipart/form-data"
# What the standard actions do, as an operation's summary.
ACTION_SUMMARIES = {
    "list": "List {plural}",
    "retrieve": "Read {one}",
    "create": "Create {one}",
    "update": "Replace {one}",
    "partial_update": "Update {one}",
    "destroy": "Delete {one}",
}


def with_article(noun):
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def first_sentence(text, limit=80):
    sentence = text.strip().split("\n\n", 1)[0].split(". ", 1)[0].rstrip(".").replace("\n", " ")
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


class ApiSchema(AutoSchema):
    """drf-spectacular's schema, plus the error responses and conditional-request headers
    every operation here can produce."""

    def get_summary(self):
        """Every operation has a short title (API browsers list operations by it; Redocly's
        operation-summary rule): one given with extend_schema, else what a standard action
        does to which model, else the first sentence of the operation's description."""
        summary = super().get_summary()
        if summary:
            return summary
        model = getattr(getattr(self.view, "queryset", None), "model", None)
        model = model or getattr(getattr(self.view, "serializer_class", None), "Meta", None)
        model = getattr(model, "model", model)
        action = getattr(self.view, "action", None)
        if action in ACTION_SUMMARIES and hasattr(model, "_meta"):
            names = model._meta
            return ACTION_SUMMARIES[action].format(
                plural=names.verbose_name_plural, one=with_article(str(names.verbose_name))
            )
        return first_sentence(self.get_description()) or None

    def map_parsers(self):
        """Request bodies are documented as JSON, the format the README documents. The form
        parsers stay for browsers and the browsable API, but declaring one schema for JSON, form
        and multipart makes generated clients send multipart with each list field repeated (and
        some generators emit code that does not import). An upload (a file field) is the one
        body that needs multipart."""
        media_types = super().map_parsers()
        if JSON not in media_types:
            return media_types
        if MULTIPART in media_types and self._uploads_files():
            return [JSON, MULTIPART]
        return [JSON]

    def _uploads_files(self):
        serializer = force_instance(self.get_request_serializer())
        fields = getattr(serializer, "fields", {})
        return any(isinstance(field, serializers.FileField) for field in fields.values())

    def get_auth(self):
        """A read anyone may make declares `{}` among its security requirements, so clients
        (and generated ones) know no credentials are needed. drf-spectacular only knows
        AllowAny and IsAuthenticatedOrReadOnly; the default permission here is Django's
        model permissions or anonymous read-only."""
        auths = super().get_auth()
        if {} in auths:
            return auths
        checks = self.view.get_permissions()
        # No permission to hold (the token endpoint), or reads open to anyone.
        open_to_anyone = not checks or (
            self.method in permissions.SAFE_METHODS
            and all(isinstance(check, ANONYMOUS_READS) for check in checks)
        )
        if open_to_anyone:
            auths.append({})
        return auths

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
            documented = OpenApiResponse(ErrorSerializer, description=description)
            responses.setdefault(code, self._get_response_for_code(documented, code))
        if self.method == "GET":
            responses.setdefault("304", {"description": "Not modified (If-None-Match matched)."})
        if self.method == "GET" and self.reads("group_by") and "200" in responses:
            # With `group_by` the list answers with its facets instead of its rows.
            facets = self.resolve_serializer(FacetsSerializer, "response").ref
            for content in responses["200"].get("content", {}).values():
                content["schema"] = {"oneOf": [content["schema"], facets]}
        return responses

    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        parameters.extend(self.sparse_parameters())
        if self.method == "GET" and self.reads("group_by"):
            needs = [
                f"`{name}` needs {facet.needs()}"
                for name, facet in self.view.group_by_fields.items()
                if facet.requires
            ]
            parameters.append(
                OpenApiParameter(
                    "group_by",
                    str,
                    enum=list(self.view.group_by_fields),
                    description="Instead of the rows: how many of the rows matching the "
                    "filters have each value of this property, with each count's share of "
                    "them (`total`) and the basis in words. Rows without a value are the "
                    "group whose value is null."
                    + (f" Bounded: {', '.join(needs)} (else a 400)." if needs else ""),
                )
            )
        if not self._is_schema_or_docs():
            parameters.extend(RATE_LIMIT_HEADERS)
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

    def reads(self, name):
        """Whether this operation reads the query parameter `name` (apikit/params.py)."""
        return name in parameters_for_view(self.view, self.method)

    def sparse_field_names(self):
        view = self.view
        return list(view.sparse_serializer_class()(context={"view": view}).fields)

    def sparse_parameters(self):
        if not reads(self.view, self.method) or not self.reads("fields"):
            return []
        names = self.sparse_field_names()
        listed = ", ".join(f"`{name}`" for name in names)
        return [
            OpenApiParameter(
                "fields",
                {"type": "array", "items": {"type": "string", "enum": names}},
                style="form",
                explode=False,
                description="Comma-separated names of the only fields to show in each row "
                f"(of {listed}); an unknown name is a 400. Rows then carry only those fields.",
            ),
            OpenApiParameter(
                "omit",
                {"type": "array", "items": {"type": "string", "enum": names}},
                style="form",
                explode=False,
                description="Comma-separated names of fields to leave out of each row "
                "(applied after `fields`).",
            ),
        ]

    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        """A representation narrowed by `fields`/`omit` may lack any field, so the rows of an
        operation that reads them promise none."""
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction == "response" and self.is_sparse_row(serializer):
            schema.pop("required", None)
        return schema

    def is_sparse_row(self, serializer):
        view = self.view
        if not getattr(view, "sparse_fieldsets", False):
            return False
        return type(serializer) is view.sparse_serializer_class()

    def _is_schema_or_docs(self):
        return self.path.endswith(("/schema/", "/docs/", "/redoc/"))


class BuiltOnceSchemaGenerator(SchemaGenerator):
    """The served schema, built once per process, API version and language: it is a function
    of the code alone, and a build takes 0.4 to 0.5 s at any corpus size, over the miss
    ceiling of the performance contract (docs/decisions/0015-schema-built-once.md). Each
    process builds its own identical copy: nothing is shared between processes."""

    built = {}

    def get_schema(self, request=None, public=False):
        key = (self.api_version, translation.get_language(), public)
        if key not in self.built:
            self.built[key] = super().get_schema(request=request, public=public)
        return self.built[key]

    @classmethod
    def build_served(cls):
        """Build the schema `/api/v1/schema/` serves (the default version and language) before
        a process takes its first request: that request would otherwise wait for the build."""
        cls().get_schema(request=None, public=True)
