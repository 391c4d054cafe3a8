from django.apps import AppConfig


class ApiKitConfig(AppConfig):
    """The DRF layer every app's API module builds on (errors, paging, filters, schema)."""

    name = "apikit"
    verbose_name = "API kit"

    def ready(self):
        from apikit.params import view_query_parameters
        from pagecache.caching import set_api_view_parameters

        # The page cache keys API answers by the parameters each view reads (below it, it
        # cannot import them).
        set_api_view_parameters(view_query_parameters)
