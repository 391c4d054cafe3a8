from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import Throttled, ValidationError

from rlscaling.api.throttles import AnonRateThrottle, ScopedRateThrottle


class ObtainTokenView(ObtainAuthToken):
    """Trade an active account's username and password for its API token."""

    throttle_classes = [AnonRateThrottle, ScopedRateThrottle]
    throttle_scope = "token"

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            # django-axes marks the request when this username and address are locked out.
            if getattr(request, "axes_locked_out", False):
                raise Throttled(
                    detail="Too many failed attempts for this account from this address; "
                    "try again later."
                ) from None
            raise
