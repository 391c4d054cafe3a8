from axes.helpers import get_cool_off
from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import PermissionDenied, Throttled, ValidationError
from rest_framework.settings import api_settings

from apikit.params import StrictQueryParametersMixin
from apikit.throttles import AnonRateThrottle, ScopedRateThrottle
from core.login import USERNAME_MAX_LENGTH


class TokenRequestSerializer(AuthTokenSerializer):
    """A username no account can have (too long) is refused before anyone looks it up."""

    username = serializers.CharField(
        label="Username", write_only=True, max_length=USERNAME_MAX_LENGTH
    )
    password = serializers.CharField(
        label="Password",
        style={"input_type": "password"},
        trim_whitespace=False,
        write_only=True,
        max_length=4096,
    )


def cross_origin(request):
    """Whether a browser sent `request` from a page of another site (Origin, or
    Sec-Fetch-Site when a browser sends no Origin); scripts send neither."""
    if request.headers.get("Sec-Fetch-Site", "") == "cross-site":
        return True
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    own = f"{request.scheme}://{request.get_host()}"
    return origin != own and origin not in settings.CSRF_TRUSTED_ORIGINS


class ObtainTokenView(StrictQueryParametersMixin, ObtainAuthToken):
    """Trade an active account's username and password for its API token."""

    serializer_class = TokenRequestSerializer
    # The API's bounded JSON parser first (ObtainAuthToken brings DRF's own otherwise).
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES
    throttle_classes = [AnonRateThrottle, ScopedRateThrottle]
    throttle_scope = "token"

    @extend_schema(summary="Get an API token")
    def post(self, request, *args, **kwargs):
        if cross_origin(request):
            # A page elsewhere could otherwise try passwords from its visitors' browsers.
            raise PermissionDenied("The token endpoint answers no cross-origin request.")
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            # django-axes marks the request when this username and address are locked out.
            if getattr(request, "axes_locked_out", False):
                cool_off = get_cool_off(request)
                raise Throttled(
                    wait=cool_off.total_seconds() if cool_off else None,
                    detail="Too many failed attempts for this account from this address; "
                    "try again later.",
                ) from None
            raise
