"""The citations app's admin, one module per area. Importing them registers their ModelAdmins:
papers, edges and vocabularies; authors, their old slugs and merges; imports, possible
duplicates and merges; readers' correction suggestions; the classification queue is a page of
the paper admin."""

from citations.admin import authors, corrections, identity, papers  # noqa: F401
