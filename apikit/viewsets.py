"""The defaults of an API resource: permissions, filters, pagination, slug lookups, strict
query parameters and sparse fieldsets."""

from rest_framework import viewsets

from apikit.concurrency import VersionedWritesMixin
from apikit.conditional import ConditionalGetMixin
from apikit.filters import FILTER_BACKENDS
from apikit.pagination import PageNumberPagination
from apikit.params import StrictQueryParametersMixin
from apikit.permissions import EditorsWrite
from apikit.sparse import SparseFieldsetsMixin


class ReadOnlyViewSet(
    StrictQueryParametersMixin,
    SparseFieldsetsMixin,
    ConditionalGetMixin,
    viewsets.ReadOnlyModelViewSet,
):
    permission_classes = [EditorsWrite]
    filter_backends = FILTER_BACKENDS
    pagination_class = PageNumberPagination
    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"


class PublishableViewSet(
    StrictQueryParametersMixin,
    SparseFieldsetsMixin,
    ConditionalGetMixin,
    VersionedWritesMixin,
    viewsets.ModelViewSet,
):
    """An editorial resource: drafts only for those who may view them; writes for editors."""

    permission_classes = [EditorsWrite]
    filter_backends = FILTER_BACKENDS
    pagination_class = PageNumberPagination
    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return self.decorate(self.queryset.model.objects.visible_to(self.request.user))

    def decorate(self, queryset):
        """The annotations and prefetches the serializer needs; override per resource."""
        return queryset
