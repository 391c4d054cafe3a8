"""The relevance test set (tests/fixtures/search_relevance.json): each query goes through
/search/ as a reader's would (papers only) and its first five papers are compared with the
papers the set expects. Precision at 5: the expected papers among those shown, over the number
shown (at most five; none shown counts 0). Recall at 5: the expected papers shown, over the
number expected (at most five). Measured on both databases in docs/decisions/0021."""

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.urls import resolve

from citations.models import Paper

pytestmark = pytest.mark.django_db

SET = json.loads(
    (Path(__file__).resolve().parent.parent / "fixtures" / "search_relevance.json").read_text()
)
QUERIES = SET["queries"]
TOP = 5
# The overall floors the engine reaches on both databases (docs/decisions/0021: SQLite 0.82
# and 0.88, PostgreSQL 0.79 and 0.90): a change that lowers them makes search worse.
PRECISION_FLOOR = 0.78
RECALL_FLOOR = 0.85
# Queries whose expected papers must all be among the first five, on both databases.
MUST_FIND = {
    "verifer",
    "reward hackng",
    "overoptimisation",
    "proximal polcy optimization",
    "straggler awre",
    "curiculum",
    "reward hacking",
    "scaling laws",
    "scaling law",
    "self-play",
    "larger batch",
    "sparse reward",
    '"on-policy distillation"',
    "2210.10760",
    "2210.10760v2",
    "arXiv:1707.06347",
    "https://arxiv.org/abs/2503.14476",
    "10.48550/arXiv.2501.12599",
    "https://doi.org/10.48550/arXiv.1912.06680",
    "John Schulman",
    "Schulman",
    "Ziniu Li",
    "Maciej Besta",
    "sakan fugu",
}


def first_papers(client, text):
    """The slugs of the first papers /search/ shows for `text` (the paper itself when the
    text names one and the page redirects to it)."""
    response = client.get("/search/", {"q": text, "kind": "papers"})
    if response.status_code == 302:
        return [resolve(urlsplit(response["Location"]).path).kwargs["slug"]]
    assert response.status_code == 200, text
    groups = response.context["groups"]
    return [hit.item.slug for group in groups for hit in group.hits][:TOP]


def measure(client):
    rows = []
    for entry in QUERIES:
        shown = first_papers(client, entry["q"])
        expected = entry["expected"]
        found = [slug for slug in shown if slug in expected]
        precision = len(found) / len(shown) if shown else 0.0
        recall = len(found) / min(TOP, len(expected))
        rows.append((entry, shown, precision, recall))
    return rows


def test_the_relevance_set_is_found(client, demo):
    rows = measure(client)
    precision = sum(row[2] for row in rows) / len(rows)
    recall = sum(row[3] for row in rows) / len(rows)
    print(f"\n{'query':<45} {'kind':<10} {'P@5':>5} {'R@5':>5} shown")
    for entry, shown, p, r in rows:
        print(f"{entry['q'][:45]:<45} {entry['kind']:<10} {p:5.2f} {r:5.2f} {len(shown)}")
    print(f"{'overall':<45} {'':<10} {precision:5.2f} {recall:5.2f} ({len(rows)} queries)")
    missed = [entry["q"] for entry, _, _, r in rows if entry["q"] in MUST_FIND and r < 1]
    assert not missed
    assert precision >= PRECISION_FLOOR
    assert recall >= RECALL_FLOOR


def test_the_set_is_large_and_names_demo_papers(demo):
    slugs = set(Paper.objects.published().values_list("slug", flat=True))
    assert len(QUERIES) >= 30
    assert {slug for entry in QUERIES for slug in entry["expected"]} <= slugs
