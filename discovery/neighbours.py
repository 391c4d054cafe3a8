"""Similar papers, prior works and derivative works, computed from the public citation graph
(published edges whose two papers are published) and stored per paper (`Neighbour`).

- **Similar papers** are found by bibliographic coupling (the references two papers both
  cite) and co-citation (the papers that cite both). Each count is normalised by the two
  papers' sizes (Salton's cosine: shared / sqrt(size of one x size of the other)) so that a
  paper with a thousand references is not similar to everything; the two cosines are added
  up. Readers are shown the raw counts ("shares 12 references", "co-cited 8 times").
- The graph's other nodes: the paper's **most cited references and citers** (GRAPH_KEPT of
  each, by their stored citing count), so that a hub's graph never sorts its citers in the
  request.
- The **neighbourhood** is the paper and its similar papers. **Prior works** are the papers
  most cited by the neighbourhood, **derivative works** the papers citing most of it, each
  linked to at least MIN_LINKS of its papers and never one of them.

`refresh(ids)` recomputes the lists of the given papers; `papers_touched()` says which papers
an edge change reaches (discovery/receivers.py, through the task queue: discovery/tasks.py);
`manage.py refresh_neighbours` recomputes every paper."""

import math

from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from citations.models import Citation, CitationCount, Paper
from discovery.models import Neighbour, NeighboursComputed, Relation

# Stored per paper: the graph page draws up to SIMILAR_KEPT similar papers; the hub lists the
# first few of each list.
SIMILAR_KEPT = 20
LINEAGE_KEPT = 10
GRAPH_KEPT = 12  # references, and citers, the graph draws
# The most strongly coupled or co-cited papers ranked by the normalised score; the long tail
# of papers sharing one reference with a hub's citers never reaches the top anyway.
CANDIDATES = 200
MIN_LINKS = 2
COUPLING_FANOUT = 1000
# An edge change reaches the papers whose coupling or co-citation counts it moves: the citing
# paper's other references and the cited paper's other citers. Up to this many are refreshed
# with the edge; past it (an edge into a hub with thousands of citers) only the two papers and
# those that list them are, and the rest wait for `manage.py refresh_neighbours`.
RING_LIMIT = 500
BATCH = 500


def public_edges(hidden=None):
    """The public edges: published, between published papers. `hidden`: the papers not
    public, when the caller read them already; checked against that short list instead of
    joining every edge to both of its papers."""
    if hidden is None:
        hidden = list(Paper.objects.hidden_pks().values_list("pk", flat=True))
    # Not `status = 'published'`: SQLite then walks the status index through every edge
    # instead of the foreign key's index (70 ms a query at 50,000 edges, 1 ms this way).
    edges = Citation.objects.exclude(pk__in=Citation.objects.hidden_pks()).order_by()
    if hidden:
        edges = edges.exclude(citing_paper__in=hidden).exclude(cited_paper__in=hidden)
    return edges


def _counts(queryset, field):
    return dict(queryset.values_list(field).annotate(n=Count("*")).order_by())


def similar_papers(paper_id, edges=None):
    """[(other id, score, shared references, co-citations)], best first, at most SIMILAR_KEPT.
    References cited by more than COUPLING_FANOUT papers couple nobody: sharing a hub says
    little (as a common word does in a text search), and walking its citers for every paper
    citing it was most of the work (15 minutes for 5,000 papers on SQLite)."""
    edges = public_edges() if edges is None else edges
    own_references = list(edges.filter(citing_paper=paper_id).values_list("cited_paper", flat=True))
    own_citers = edges.filter(cited_paper=paper_id).count()
    narrow = list(
        CitationCount.objects.filter(
            paper__in=own_references, total__lte=COUPLING_FANOUT
        ).values_list("paper", flat=True)
    )
    coupled = _counts(
        edges.filter(cited_paper__in=narrow).exclude(citing_paper=paper_id), "citing_paper"
    )
    cocited = (
        _counts(
            edges.filter(
                citing_paper__in=edges.filter(cited_paper=paper_id).values("citing_paper")
            ).exclude(cited_paper=paper_id),
            "cited_paper",
        )
        if own_citers
        else {}
    )
    raw = {pk: coupled.get(pk, 0) + cocited.get(pk, 0) for pk in coupled.keys() | cocited.keys()}
    candidates = sorted(raw, key=lambda pk: (-raw[pk], pk))[:CANDIDATES]
    if not candidates:
        return []
    own_references = len(own_references)
    reference_counts = (
        _counts(edges.filter(citing_paper__in=candidates), "citing_paper") if coupled else {}
    )
    # The stored citing counts (citations/stats/counts.py): public edges from published papers.
    citer_counts = (
        dict(CitationCount.objects.filter(paper__in=candidates).values_list("paper", "total"))
        if cocited
        else {}
    )

    def cosine(shared, one, other):
        return shared / math.sqrt(one * other) if shared and one and other else 0.0

    scored = []
    for pk in candidates:
        shared, together = coupled.get(pk, 0), cocited.get(pk, 0)
        score = cosine(shared, own_references, reference_counts.get(pk, 0)) + cosine(
            together, own_citers, citer_counts.get(pk, 0)
        )
        scored.append((pk, round(score, 6), shared, together))
    scored.sort(key=lambda row: (-row[1], -(row[2] + row[3]), row[0]))
    return scored[:SIMILAR_KEPT]


def lineage(paper_id, similar_ids, edges=None):
    """(prior works, derivative works) of the neighbourhood of `paper_id` and its similar
    papers: [(other id, links)], most linked first, at most LINEAGE_KEPT each."""
    hood = [paper_id, *similar_ids]
    if len(hood) < 2:
        return [], []
    edges = public_edges() if edges is None else edges

    def ranked(queryset, field):
        rows = (
            queryset.exclude(**{f"{field}__in": hood})
            .values_list(field)
            .annotate(n=Count("*"))
            .filter(n__gte=MIN_LINKS)
            .order_by("-n", field)
        )
        return list(rows[:LINEAGE_KEPT])

    prior = ranked(edges.filter(citing_paper__in=hood), "cited_paper")
    derivative = ranked(edges.filter(cited_paper__in=hood), "citing_paper")
    return prior, derivative


def most_cited_ends(paper_id, edges=None):
    """(references, citers) of `paper_id` the graph draws: [(other id, citing count)], the
    most cited first (the stored citing counts), published papers only, GRAPH_KEPT each."""
    edges = public_edges() if edges is None else edges
    by_citing_count = (F("citation_count__total").desc(nulls_last=True), "pk")

    def ranked(ends):
        rows = (
            Paper.objects.published()
            .filter(pk__in=ends)
            .order_by(*by_citing_count)
            .values_list("pk", "citation_count__total")
        )
        return [(pk, total or 0) for pk, total in rows[:GRAPH_KEPT]]

    return (
        ranked(edges.filter(citing_paper=paper_id).values("cited_paper")),
        ranked(edges.filter(cited_paper=paper_id).values("citing_paper")),
    )


def neighbours_of(paper_id, now=None, edges=None):
    """The unsaved Neighbour rows of one (published) paper."""
    now = now or timezone.now()
    edges = public_edges() if edges is None else edges
    similar = similar_papers(paper_id, edges)
    prior, derivative = lineage(paper_id, [row[0] for row in similar], edges)
    rows = [
        Neighbour(
            paper_id=paper_id,
            other_id=other,
            relation=Relation.SIMILAR,
            rank=rank,
            score=score,
            shared_references=shared,
            co_citations=together,
            computed_at=now,
        )
        for rank, (other, score, shared, together) in enumerate(similar, start=1)
    ]
    references, citers = most_cited_ends(paper_id, edges)
    for relation, found in (
        (Relation.PRIOR, prior),
        (Relation.DERIVATIVE, derivative),
        (Relation.REFERENCE, references),
        (Relation.CITER, citers),
    ):
        rows.extend(
            Neighbour(
                paper_id=paper_id,
                other_id=other,
                relation=relation,
                rank=rank,
                score=links,
                neighbourhood_links=links,
                computed_at=now,
            )
            for rank, (other, links) in enumerate(found, start=1)
        )
    return rows


def refresh(paper_ids):
    """Recompute and store the lists of these papers (a paper not published gets none); the
    number of papers refreshed."""
    ids = sorted({pk for pk in paper_ids if pk is not None})
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        published = set(Paper.objects.published().filter(pk__in=chunk).values_list("pk", flat=True))
        now = timezone.now()
        edges = public_edges()
        rows = [row for pk in chunk if pk in published for row in neighbours_of(pk, now, edges)]
        with transaction.atomic():
            for model in (Neighbour, NeighboursComputed):
                stale = model.objects.filter(paper__in=chunk)
                stale._raw_delete(stale.db)
            Neighbour.objects.bulk_create(rows, batch_size=BATCH)
            NeighboursComputed.objects.bulk_create(
                [NeighboursComputed(paper_id=pk, computed_at=now) for pk in sorted(published)],
                batch_size=BATCH,
            )
    return len(ids)


def papers_touched(citing_ids, cited_ids):
    """The papers whose lists a change of edges from `citing_ids` to `cited_ids` (or of those
    papers' publication) may move: the papers themselves, the papers that list them, and,
    when there are at most RING_LIMIT of them, the citing papers' references and the cited
    papers' citers, whose coupling or co-citation counts moved."""
    citing_ids = sorted({pk for pk in citing_ids if pk is not None})
    cited_ids = sorted({pk for pk in cited_ids if pk is not None})
    base = set(citing_ids) | set(cited_ids)
    touched = set(base)
    ordered = sorted(base)
    for start in range(0, len(ordered), BATCH):  # within SQLite's limit of query parameters
        listing = Neighbour.objects.filter(other__in=ordered[start : start + BATCH])
        touched |= set(listing.values_list("paper", flat=True).distinct())
    if len(base) > RING_LIMIT:  # a bulk change: the ring waits for refresh_neighbours
        return touched
    edges = public_edges()
    ring = set(
        edges.filter(citing_paper__in=citing_ids).values_list("cited_paper", flat=True)[
            : RING_LIMIT + 1
        ]
    )
    if len(ring) <= RING_LIMIT:
        citers = edges.filter(cited_paper__in=cited_ids).values_list("citing_paper", flat=True)
        ring |= set(citers[: RING_LIMIT + 1 - len(ring)])
    if len(ring) <= RING_LIMIT:
        touched |= ring
    return touched
