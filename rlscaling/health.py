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
    """Ready for traffic: the database and the cache both answer. 503 otherwise."""
    checks = {"database": _check_database(), "cache": _check_cache()}
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks},
        status=200 if ready else 503,
    )


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
