"""Django's Redis cache with a circuit breaker, so a Redis that is down or hangs costs one
short timeout, not one per cache call.

After a connection error or a timeout the backend stops calling Redis for
`CACHE_RETRY_SECONDS` (default 5) and raises `CacheUnavailable` at once instead; callers
already treat that like any Redis connection error (the page cache is skipped, the throttles
count in local memory, `/readyz` reports the cache as degraded). The breaker is per process:
it holds no content, only "Redis did not answer me a moment ago".
"""

import functools
import logging
import time

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)


class CacheUnavailable(RedisConnectionError):
    """Redis failed a moment ago; not asked again until the retry time."""


def guarded(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if time.monotonic() < self.down_until:
            raise CacheUnavailable("Redis failed recently; retrying later")
        try:
            return method(self, *args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError) as error:
            retry = getattr(settings, "CACHE_RETRY_SECONDS", 5)
            self.down_until = time.monotonic() + retry
            logger.warning("Redis unreachable (%r); going on without it for %s s", error, retry)
            raise

    return wrapper


class ResilientRedisCacheClient(RedisCacheClient):
    down_until = 0.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        # Django builds a redis.Redis for every call, and each builds its table of reply
        # parsers (~0.15 ms, several calls a page). One per connection pool serves every call:
        # redis-py's clients are safe to share between threads, and the pool is fork-safe.
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client

    add = guarded(RedisCacheClient.add)
    get = guarded(RedisCacheClient.get)
    set = guarded(RedisCacheClient.set)
    touch = guarded(RedisCacheClient.touch)
    delete = guarded(RedisCacheClient.delete)
    get_many = guarded(RedisCacheClient.get_many)
    has_key = guarded(RedisCacheClient.has_key)
    incr = guarded(RedisCacheClient.incr)
    set_many = guarded(RedisCacheClient.set_many)
    delete_many = guarded(RedisCacheClient.delete_many)
    clear = guarded(RedisCacheClient.clear)

    @guarded
    def count_in_window(self, key, seconds):
        """INCR, EXPIRE NX, PTTL in one round trip: (the count, milliseconds left in the
        window the first count opened)."""
        with self.get_client(key, write=True).pipeline() as pipe:
            pipe.incr(key).expire(key, seconds, nx=True).pttl(key)
            count, _, left = pipe.execute()
        return count, left


def count_in_window(cache, key, seconds):
    """(requests counted under `key` in its window, this one included; seconds left in it),
    with any cache (the API throttles, the page cache's stores per client): one round trip on
    Redis; elsewhere (local memory) a read and a write."""
    if hasattr(cache, "count_in_window"):
        return cache.count_in_window(key, seconds)
    now = time.time()
    count, ends = cache.get(key, (0, now + seconds))
    if ends <= now:
        count, ends = 0, now + seconds
    cache.set(key, (count + 1, ends), ends - now)
    return count + 1, ends - now


def seconds_left(milliseconds, seconds):
    """The seconds left in a window, from PTTL's answer (a key without expiry: all of it)."""
    return (milliseconds if milliseconds > 0 else seconds * 1000) / 1000


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ResilientRedisCacheClient

    def count_in_window(self, key, seconds):
        """Count one more request under `key` in a window of `seconds` that opens with the
        first: (requests counted, seconds left), one round trip (the API throttles)."""
        count, left = self._cache.count_in_window(self.make_and_validate_key(key), seconds)
        return count, seconds_left(left, seconds)
