"""The API throttles: DRF's, with the client address from `core.client_address` (the one
rule shared with axes and the logs) and a local-memory fallback while Redis is unreachable, so
the API keeps answering (each process then limits on its own).

Every answer subject to a throttle says where the client stands (`RateLimitHeadersMiddleware`):
`X-RateLimit-Limit` (requests allowed in the window), `X-RateLimit-Remaining` (left in it) and
`X-RateLimit-Reset` (Unix time, in seconds, at which the window ends and the count starts
again). Where several throttles apply (the anonymous rate and an endpoint's own, say) the
headers describe the one closest to refusing. Every 429 carries `Retry-After` (seconds).

Counting is a window per client that opens with its first request and lasts the rate's period
(`FixedWindowThrottle`): one Redis round trip per throttle (INCR, EXPIRE NX, PTTL pipelined),
where DRF's SimpleRateThrottle reads and writes back the list of every request's time in the
period (two round trips, and a list as long as the rate). The anonymous rate is the only
default throttle an anonymous request meets: the per-user rate counts signed-in users only.
"""

import collections
import logging
import math
import time

from django.core.cache import caches
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import throttling

from core.client_address import client_address
from pagecache.backend import count_in_window

# As core.middleware.CACHE_ERRORS (not imported: the middleware imports the API layer).
CACHE_ERRORS = (RedisConnectionError, RedisTimeoutError)

logger = logging.getLogger(__name__)


class FixedWindowThrottle(throttling.SimpleRateThrottle):
    """DRF's throttle with a counter instead of a request history: a window opens with the
    client's first request and the requests in it are counted (`count_in_window`); over the
    rate, refused until the window ends. DRF's Anon/User/Scoped classes come before it in the
    throttles below, so their own `allow_request`/`get_cache_key` find the key and rate, and
    their `super().allow_request` lands here."""

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        self.count, self.left = count_in_window(self.cache, self.key, self.duration)
        return self.count <= self.num_requests

    def wait(self):
        return max(0.0, self.left)


class ResilientThrottleMixin:
    def get_ident(self, request):
        return client_address(request)

    def allow_request(self, request, view):
        try:
            allowed = super().allow_request(request, view)
        except CACHE_ERRORS:
            logger.warning(
                "Throttle cache unreachable; counting %s in local memory",
                self.scope,
                extra={"request": request},
            )
            self.cache = caches["local"]
            allowed = super().allow_request(request, view)
        self.record(request)
        return allowed

    def record(self, request):
        """Note this throttle's state on the request, for the X-RateLimit headers."""
        if getattr(self, "key", None) is None or not hasattr(self, "count"):
            return  # this throttle did not apply (no rate, or not this kind of client)
        remaining = max(0, self.num_requests - self.count)
        state = RateLimit(self.num_requests, remaining, math.ceil(self.now + self.left))
        django_request = getattr(request, "_request", request)
        django_request.rate_limits = [*getattr(django_request, "rate_limits", []), state]


# One throttle's state for one request; `reset` is a Unix time in seconds.
RateLimit = collections.namedtuple("RateLimit", "limit remaining reset")


def tightest(rate_limits):
    """The state of the throttle closest to refusing: fewest remaining, then latest reset."""
    return min(rate_limits, key=lambda state: (state.remaining, -state.reset))


class RateLimitHeadersMiddleware:
    """X-RateLimit-* on every API answer a throttle counted (not answers from the page cache,
    which skip the throttles), and Retry-After on every 429 under /api/."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        rate_limits = getattr(request, "rate_limits", None)
        if rate_limits:
            state = tightest(rate_limits)
            response["X-RateLimit-Limit"] = str(state.limit)
            response["X-RateLimit-Remaining"] = str(state.remaining)
            response["X-RateLimit-Reset"] = str(state.reset)
        if response.status_code == 429 and not response.has_header("Retry-After"):
            reset = tightest(rate_limits).reset if rate_limits else None
            wait = reset - time.time() if reset else DEFAULT_RETRY_AFTER
            response["Retry-After"] = str(max(1, math.ceil(wait)))
        return response


# For a 429 that no throttle window explains (none should remain): a minute.
DEFAULT_RETRY_AFTER = 60


class AnonRateThrottle(ResilientThrottleMixin, throttling.AnonRateThrottle, FixedWindowThrottle):
    pass


class UserRateThrottle(ResilientThrottleMixin, throttling.UserRateThrottle, FixedWindowThrottle):
    def get_cache_key(self, request, view):
        # Anonymous clients meet the (tighter) anonymous rate alone: one count per request.
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class ScopedRateThrottle(
    ResilientThrottleMixin, throttling.ScopedRateThrottle, FixedWindowThrottle
):
    pass
