"""The one draft/published mechanism shared by every editorial model."""

from rlscaling.publishing.models import (
    Publishable,
    PublishableQuerySet,
    StaleEditError,
    Status,
    can_publish,
    publishable_models,
    published_q,
)

__all__ = [
    "Publishable",
    "PublishableQuerySet",
    "StaleEditError",
    "Status",
    "can_publish",
    "published_q",
    "publishable_models",
]
