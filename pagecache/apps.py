from django.apps import AppConfig


class PageCacheConfig(AppConfig):
    """Anonymous answers kept in the shared cache, made stale by every change publishing
    announces (publishing/signals.py)."""

    name = "pagecache"
    verbose_name = "Page cache"

    def ready(self):
        from pagecache.caching import connect_signals

        connect_signals()
