"""Possible duplicate papers, for editors to merge: the same identifier in another form, or
near-identical titles of the same year.

Titles are compared with rapidfuzz (a C implementation of edit-distance ratios, far faster than
difflib) within blocks of papers whose normalised titles start with the same two words, so a
corpus of 100,000 papers is not compared pair by pair."""

import dataclasses

from rapidfuzz import fuzz

from .identifiers import arxiv_id_from_doi
from .importers.records import normalised_title
from .models import Paper

TITLE_SIMILARITY = 93  # rapidfuzz ratio (0-100) from which two titles count as the same


@dataclasses.dataclass
class PossibleDuplicate:
    first: Paper
    second: Paper
    reason: str
    score: float = 100.0


def same_year(a, b):
    return not (a.publication_date and b.publication_date) or (
        a.publication_date.year == b.publication_date.year
    )


def possible_duplicates(queryset=None):
    """Pairs of papers that look like one paper, strongest evidence first."""
    papers = list(
        (queryset or Paper.objects.all())
        .only("pk", "slug", "title", "arxiv_id", "doi", "publication_date", "status")
        .order_by("pk")
    )
    pairs, seen = [], set()

    def add(a, b, reason, score=100.0):
        key = (min(a.pk, b.pk), max(a.pk, b.pk))
        if key not in seen:
            seen.add(key)
            pairs.append(PossibleDuplicate(*sorted((a, b), key=lambda p: p.pk), reason, score))

    by_arxiv = {p.arxiv_id: p for p in papers if p.arxiv_id}
    for paper in papers:
        arxiv_id = arxiv_id_from_doi(paper.doi)
        if arxiv_id and arxiv_id in by_arxiv and by_arxiv[arxiv_id].pk != paper.pk:
            add(by_arxiv[arxiv_id], paper, f"arXiv id {arxiv_id} and its DOI {paper.doi}")

    blocks = {}
    for paper in papers:
        words = normalised_title(paper.title).split()
        blocks.setdefault(tuple(words[:2]), []).append((" ".join(words), paper))
    for block in blocks.values():
        for i, (title_a, a) in enumerate(block):
            for title_b, b in block[i + 1 :]:
                if a.arxiv_id and b.arxiv_id and a.arxiv_id != b.arxiv_id:
                    continue  # two arXiv ids: two papers, however alike the titles
                score = fuzz.ratio(title_a, title_b)
                if score >= TITLE_SIMILARITY and same_year(a, b):
                    add(a, b, "same title" if score == 100 else "near-identical title", score)
    return sorted(pairs, key=lambda pair: (-pair.score, pair.first.pk, pair.second.pk))
