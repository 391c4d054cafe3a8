"""The API layer every app's API module builds on, one concern per module:

- errors: the one error body (`error_response`), the exception handler, 409/412 exceptions
- permissions: who may read and write
- pagination: page-number and cursor pagination
- filters: search, ordering, strict filter types and the filter set every editorial row has
- conditional: ETags, Last-Modified and 304s for GETs
- concurrency: If-Match and `version` checks, and the compare-and-swap save
- fields: serializer fields shared by the apps (references by slug, URLs, name lists)
- viewsets: the defaults of an editorial and of a read-only resource
- schema: the OpenAPI schema class
- auth, urls: the token endpoint and the URL configuration of /api/v1/

An app's API module (`citations/api/`, `notes/api.py`, `bottlenecks/api.py`) imports from
here, never from another app's API module.
"""
