"""Words of the papers' addresses that a paper's slug must not take: `/api/v1/papers/batch/` is
the batch lookup, so a paper with the slug `batch` could never be read or edited through the
API. A slug made from a title ("Batch") gets a suffix; a slug an editor types is refused.

tests/api/test_reserved_slugs.py checks this list against the URL patterns: a fixed word added
under /papers/ or /api/v1/papers/ later fails there until it is listed here."""

RESERVED_SLUGS = frozenset({"batch", "by-arxiv", "by-doi"})


def is_reserved(slug):
    return slug.lower() in RESERVED_SLUGS


def free_of_routes(slug):
    """`slug`, or `slug-paper` when it is one of the addresses' words."""
    return f"{slug}-paper" if is_reserved(slug) else slug
