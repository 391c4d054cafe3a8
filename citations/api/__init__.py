"""The API over papers, citation edges, their vocabularies and tags: serializers, filters,
views (mounted in rlscaling/api_urls.py)."""
