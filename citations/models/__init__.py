"""The citations app's models: the vocabularies an edge is classified with (vocabularies.py),
authors (authors.py), papers and citation edges (papers.py: a hub and its edges are read
together), and the tables beside them, each kept with the code that writes it."""

from citations.models.authors import Author, AuthorMerge, AuthorSlugAlias
from citations.models.papers import (
    NEWEST_FIRST,
    PROVENANCE_CHOICES,
    REPRESENTATIVE_LIMIT,
    Authorship,
    Citation,
    CitationQuerySet,
    CitationSource,
    CitationSummary,
    DatePrecision,
    Paper,
    TaggedPaper,
    authorships_with_authors,
    list_foot_prefetches,
    provenance_q,
    representative_limit_message,
    with_author_names,
    with_authors_where_shown,
)
from citations.models.vocabularies import (
    CitationPolarity,
    CitationRole,
    citation_vocabularies,
)

# Tables written by their own modules, which import the models above: so they come after.
from citations.corrections.models import CorrectionSuggestion  # isort: skip
from citations.stats.counts import CitationCount, CitingTimelineCount, recount_citations  # isort: skip
from citations.duplicates import DuplicateScan, PossibleDuplicatePair  # isort: skip
from citations.stats.facet_counts import PaperFacetCount, recount_paper_facets  # isort: skip
from citations.identity import (  # isort: skip
    PaperIdentifier,
    PaperMerge,
    PaperSlugAlias,
    PendingCitation,
)
from citations.importers.runs import ImportChunk, ImportRun  # isort: skip

__all__ = [
    "NEWEST_FIRST",
    "PROVENANCE_CHOICES",
    "REPRESENTATIVE_LIMIT",
    "Author",
    "AuthorMerge",
    "AuthorSlugAlias",
    "Authorship",
    "Citation",
    "CitationCount",
    "CitationPolarity",
    "CitationQuerySet",
    "CitationRole",
    "CitationSource",
    "CitationSummary",
    "CitingTimelineCount",
    "CorrectionSuggestion",
    "DatePrecision",
    "DuplicateScan",
    "ImportChunk",
    "ImportRun",
    "Paper",
    "PaperFacetCount",
    "PaperIdentifier",
    "PaperMerge",
    "PaperSlugAlias",
    "PendingCitation",
    "PossibleDuplicatePair",
    "TaggedPaper",
    "authorships_with_authors",
    "with_author_names",
    "list_foot_prefetches",
    "citation_vocabularies",
    "provenance_q",
    "recount_citations",
    "recount_paper_facets",
    "representative_limit_message",
    "with_authors_where_shown",
]
