"""Liveness and readiness probes for load balancers and orchestrators."""

from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache


@never_cache
def healthz(request):
    """The process is alive and serving; touches neither the database nor the cache."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request):
    """Ready for traffic while the database answers (503 otherwise). A cache that does not
    answer is reported (`"status": "degraded"`) but does not take the server out of rotation:
    pages and the API go on without it (uncached, throttles counted per process)."""
    checks = {"database": _check_database(), "cache": _check_cache()}
    if checks["database"] != "ok":
        status, code = "unavailable", 503
    elif checks["cache"] != "ok":
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    return JsonResponse({"status": status, "checks": checks}, status=code)


def _check_database():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means "not ready"
        return f"error: {type(error).__name__}"
    return "ok"


def _check_cache():
    try:
        cache.set("readyz", "ok", 5)
        if cache.get("readyz") != "ok":
            return "error: cache did not return the value"
    except Exception as error:
        return f"error: {type(error).__name__}"
    return "ok"
