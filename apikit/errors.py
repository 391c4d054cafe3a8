"""One body for every API error: `{"status", "code", "detail", "errors"}`.

`error_response()` builds it, for the DRF exception handler and for the answers given outside
DRF (the outage middleware's 503, the 500 handler and Django's own 4xx under /api/)."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db.models import ProtectedError
from django.http import Http404
from rest_framework import exceptions, serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from core.middleware import error_body
from publishing.models import StaleEditError


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


def error_response(status_code, code, detail, errors=None, headers=None):
    """An API error with the documented body. Inside a DRF view the negotiated renderer draws
    it (JSON, or the browsable API); anywhere else it is JSON (call `.render()` there)."""
    response = Response(
        error_body(status_code, code, detail, errors),
        status=status_code,
        headers=headers,
    )
    response.accepted_renderer = JSONRenderer()
    response.accepted_media_type = JSONRenderer.media_type
    response.renderer_context = {}
    return response


def _first_code(codes):
    while isinstance(codes, (list, dict)):
        if not codes:
            return "invalid"
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return codes


def as_api_exception(exc):
    """Django's and the database's exceptions as the DRF exception meaning the same."""
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    if isinstance(exc, ProtectedError):
        return Conflict("Other rows still refer to this one; remove those references first.")
    if isinstance(exc, IntegrityError):
        # Constraints the serializers check first; this is the race between check and write.
        return Conflict("The change collides with a row saved at the same time; fetch and retry.")
    if isinstance(exc, StaleEditError):
        return Conflict(exc.message("api"))
    if isinstance(exc, Http404):
        return exceptions.NotFound(*exc.args)
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied(*exc.args)
    return exc


def exception_handler(exc, context):
    """DRF's handler (which adds WWW-Authenticate and Retry-After), with the body replaced
    by the documented one."""
    exc = as_api_exception(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    headers = {name: value for name, value in response.items() if name != "Content-Type"}
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        if isinstance(detail, dict):
            code, errors = "invalid", detail
        else:
            code, errors = _first_code(exc.get_codes()), {"non_field_errors": detail}
        return error_response(
            response.status_code,
            code,
            "Invalid input: see `errors` for the fields at fault.",
            errors,
            headers,
        )
    return error_response(
        response.status_code, _first_code(exc.get_codes()), exc.detail, headers=headers
    )


class NotFoundView(APIView):
    """Unknown paths under /api/v1/ answer with the API's own 404 body, not an HTML page."""

    permission_classes = []
    schema = None

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise exceptions.NotFound("No API endpoint at this address.")
