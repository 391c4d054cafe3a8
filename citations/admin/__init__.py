"""The citations app's admin, one module per area. Importing them registers their ModelAdmins:
papers, authors, edges and vocabularies; imports, possible duplicates and merges; readers'
correction suggestions; the classification queue is a page of the paper admin."""

from citations.admin import corrections, identity, papers  # noqa: F401
