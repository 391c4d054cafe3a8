"""Conditional GETs: an ETag on every JSON answer, Last-Modified on details, and 304s."""

import hashlib
import json

from django.utils.cache import parse_etags, patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_http_date_safe, quote_etag
from rest_framework import status
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder


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
