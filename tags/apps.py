from django.apps import AppConfig


class TagsConfig(AppConfig):
    """The tags papers and research notes share.

    The label stays `rlscaling`, the app these tables were created in, so no table, migration
    or admin URL moved when the site's wiring left this package."""

    name = "tags"
    label = "rlscaling"
    verbose_name = "Tags"
