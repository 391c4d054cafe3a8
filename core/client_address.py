"""The one rule for "which address is this client": used by the API throttles, django-axes,
the page cache's per-client limit and log lines.

`TRUSTED_PROXY_COUNT` (environment, default 0) says how many reverse proxies stand in front
of the app servers, each appending the address it received the request from to
`X-Forwarded-For`. With 0 the header is ignored (anyone can send it) and the client is the
socket peer (`REMOTE_ADDR`). With N, the client is the N-th address from the right of the
header: the one the outermost trusted proxy saw; everything left of it was written by the
client and is not believed. Too few addresses in the header means the request did not come
through the proxies, so the peer address is used.
"""

import logging

from django.conf import settings


def trusted_proxy_count():
    return getattr(settings, "TRUSTED_PROXY_COUNT", 0)


def client_address(request):
    """The client's address for `request` (a Django HttpRequest or a DRF Request)."""
    meta = request.META
    remote = meta.get("REMOTE_ADDR", "") or ""
    proxies = trusted_proxy_count()
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if len(forwarded) < proxies:
        return remote
    return forwarded[-proxies]


def axes_client_address(request):
    """django-axes' AXES_CLIENT_IP_CALLABLE."""
    return client_address(request)


class ClientAddressFilter(logging.Filter):
    """Gives every log record a `client`: the address of the request it is about, by the rule
    above (a made-up X-Forwarded-For never reaches the logs), or "-" when it has none."""

    def filter(self, record):
        request = getattr(record, "request", None)
        record.client = client_address(request) if hasattr(request, "META") else "-"
        return True
