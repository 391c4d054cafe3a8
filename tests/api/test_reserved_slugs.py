"""A paper's slug never takes a word of its addresses: a paper titled "Batch" got the slug
`batch` and could never be read or edited through the API (`/api/v1/papers/batch/` is the batch
lookup)."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from citations.models import Paper
from citations.slugs import RESERVED_SLUGS

pytestmark = pytest.mark.django_db
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def fixed_words_after_papers(patterns=None, prefix=""):
    """The literal path segments right after `papers/` in every route of the site and API."""
    words = set()
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern).lstrip("^")
        if isinstance(pattern, URLResolver):
            words |= fixed_words_after_papers(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            match = re.search(r"(?:^|/)papers/([^/]+)", route)
            if match and SLUG.fullmatch(match.group(1).rstrip("$")):
                words.add(match.group(1).rstrip("$"))
    return words


def test_every_fixed_word_under_papers_is_reserved():
    words = fixed_words_after_papers()
    assert "batch" in words
    assert words <= RESERVED_SLUGS


def test_a_paper_titled_batch_gets_a_slug_the_api_can_reach(editor_api):
    created = editor_api.post("/api/v1/papers/", {"title": "Batch", "byline": "Lab"}, format="json")
    assert created.status_code == 201, created.json()
    slug = created.json()["slug"]
    assert slug == "batch-paper"
    assert editor_api.get(f"/api/v1/papers/{slug}/").status_code == 200
    changed = editor_api.patch(f"/api/v1/papers/{slug}/", {"byline": "Other"}, format="json")
    assert changed.status_code == 200


@pytest.mark.parametrize("slug", ["batch", "by-arxiv", "Batch"])
def test_a_reserved_slug_typed_in_is_a_400_and_nothing_changes(editor_api, slug):
    answer = editor_api.post("/api/v1/papers/", {"title": "Anything", "slug": slug}, format="json")
    assert answer.status_code == 400
    assert "slug" in answer.json()["errors"]
    assert not Paper.objects.filter(title="Anything").exists()
