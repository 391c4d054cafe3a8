# Indexes for the orderings and filters that remained sequential scans or sorts at 100,000
# papers / 1,000,000 citations (EXPLAIN ANALYZE findings in bench/RESULTS.md). PostgreSQL only,
# like 0002: they use NULLS LAST, expressions and partial predicates; elsewhere a no-op.

from django.db import migrations

INDEXES = {
    # The research index sorted "oldest first" (publication_date ASC NULLS LAST, id ASC);
    # 0002's newest-first index walked backwards would put undated papers first.
    "paper_research_oldest": (
        '"citations_paper" ("publication_date" ASC NULLS LAST, "id" ASC) '
        'WHERE "in_research_index" AND "status" = \'published\''
    ),
    # The API's paper list orders by COALESCE(publication_date, date.min) DESC, id DESC (the
    # cursor needs a non-null value): a seq scan and top-N sort of every paper without this.
    "paper_api_sort_date": (
        '"citations_paper" ((COALESCE("publication_date", \'0001-01-01\'::date)) DESC, "id" DESC)'
    ),
    # A hub's explorer and the API hub call, newest citing paper first (ties by citing paper):
    # PostgreSQL walks this index and probes unique_citation_edge, stopping after one page,
    # instead of joining and sorting every edge of the hub (0.4 ms instead of ~300 ms).
    "paper_date_nulls_last": '"citations_paper" ("publication_date" DESC NULLS LAST, "id" ASC)',
    # A hub's figures (Citation.objects.public_into): an index-only scan of the hub's edges...
    "citation_hub_cover": (
        '"citations_citation" ("cited_paper_id") '
        'INCLUDE ("role_id", "polarity_id", "citing_paper_id", "status", "published_at")'
    ),
    # ... checked against the few papers that are not public: drafts and undated...
    "paper_not_published": (
        '"citations_paper" ("id") WHERE "status" <> \'published\' OR "published_at" IS NULL'
    ),
    # ... and those scheduled for later.
    "paper_published_at_live": (
        '"citations_paper" ("published_at") WHERE "status" = \'published\''
    ),
    # A hub's representative citing papers: a handful of flagged edges among thousands.
    "citation_representative": (
        '"citations_citation" ("cited_paper_id") WHERE "is_representative"'
    ),
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, definition in INDEXES.items():
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON {definition}')


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0002_paper_ordering_indexes"),
    ]

    operations = [migrations.RunPython(create_indexes, drop_indexes, elidable=False)]
