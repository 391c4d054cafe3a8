"""The API throttles: DRF's, with the client address from `rlscaling.client_address` (the one
rule shared with axes and the logs) and a local-memory fallback while Redis is unreachable, so
the API keeps answering (each process then limits on its own)."""

import logging

from django.core.cache import caches
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import throttling

from rlscaling.client_address import client_address

# As rlscaling.middleware.CACHE_ERRORS (not imported: the middleware imports the API layer).
CACHE_ERRORS = (RedisConnectionError, RedisTimeoutError)

logger = logging.getLogger(__name__)


class ResilientThrottleMixin:
    def get_ident(self, request):
        return client_address(request)

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS:
            logger.warning(
                "Throttle cache unreachable; counting %s in local memory",
                self.scope,
                extra={"request": request},
            )
            self.cache = caches["local"]
            return super().allow_request(request, view)


class AnonRateThrottle(ResilientThrottleMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(ResilientThrottleMixin, throttling.UserRateThrottle):
    pass


class ScopedRateThrottle(ResilientThrottleMixin, throttling.ScopedRateThrottle):
    pass
