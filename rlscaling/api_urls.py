"""The versioned REST API, mounted at /api/v1/."""

urlpatterns = []
