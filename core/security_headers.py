"""Headers Django's SecurityMiddleware does not set: Permissions-Policy,
Cross-Origin-Resource-Policy, and an explicit Cache-Control on HTML pages. It sits outside the
page cache, so cached answers get them afresh (and `private` never reaches the cache).

A view's `public, max-age=N` (social cards, search suggestions) is what the page cache keeps
and forgets when content changes; a proxy or CDN cannot forget, so on the way out it becomes
`private, max-age=N`: a browser may keep it that long, no shared cache does."""

import re

from django.conf import settings
from django.utils.cache import patch_cache_control

PUBLIC = re.compile(r"(^|,)\s*public\s*(?=,|$)", re.IGNORECASE)

# No page of the site uses any of these browser features.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
        "interest-cohort",
    )
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        response.setdefault(
            "Cross-Origin-Resource-Policy",
            getattr(settings, "SECURE_CROSS_ORIGIN_RESOURCE_POLICY", "same-origin"),
        )
        is_html = response.get("Content-Type", "").startswith("text/html")
        if is_html and not response.has_header("Cache-Control"):
            # Pages change whenever an editor saves: browsers and proxies revalidate every time.
            # Anything a signed-in session sees stays out of shared caches.
            signed_in = settings.SESSION_COOKIE_NAME in request.COOKIES
            if signed_in:
                patch_cache_control(response, no_cache=True, private=True)
            else:
                patch_cache_control(response, no_cache=True)
        elif PUBLIC.search(response.get("Cache-Control", "")) and not is_static(request):
            directives = [
                part.strip()
                for part in response["Cache-Control"].split(",")
                if part.strip() and part.strip().lower() != "public"
            ]
            response["Cache-Control"] = ", ".join(["private", *directives])
        return response


def is_static(request):
    """Files under STATIC_URL (WhiteNoise): immutable, named by their content."""
    static_url = settings.STATIC_URL or "/static/"
    return request.path.startswith(static_url if static_url.startswith("/") else "/" + static_url)
