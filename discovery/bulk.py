"""Every published paper's neighbours at once, from the public graph held in memory.

`discovery.neighbours` computes one paper's lists with a few grouped queries each, which is
right for the task queue (the few papers an edge change reaches) and far too slow for all of
them at 100k papers / 1M citations (about 8 queries a paper). Here the public edges are read
once into two compressed adjacency arrays (citing -> cited and cited -> citing, numpy) and
each paper's lists are counted from them: the same rules, constants, tie-breaks and rounding
as `neighbours_of()` (tests/discovery/test_bulk_neighbours.py compares the two on random
graphs), so a bulk refresh stores what the tasks would have stored.

Memory is the two arrays (16 bytes an edge each way) and one paper's counts at a time; the
rows are streamed to the database (COPY on PostgreSQL)."""

import numpy as np
from django.db import transaction
from django.utils import timezone

from citations.bulkwrite import write_rows
from citations.models import CitationCount, Paper
from discovery.models import Neighbour, NeighboursComputed, Relation
from discovery.neighbours import (
    CANDIDATES,
    COUPLING_FANOUT,
    GRAPH_KEPT,
    LINEAGE_KEPT,
    MIN_LINKS,
    SIMILAR_KEPT,
    public_edges,
)

EDGE_CHUNK = 50_000
NEIGHBOUR_FIELDS = [
    "paper",
    "other",
    "relation",
    "rank",
    "score",
    "shared_references",
    "co_citations",
    "neighbourhood_links",
    "computed_at",
]


def _adjacency(rows, cols, size):
    """(pointers, columns) of a compressed sparse row matrix, columns ascending per row."""
    order = np.lexsort((cols, rows))
    pointers = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=size), out=pointers[1:])
    return pointers, cols[order]


def _gather(pointers, columns, rows):
    """The columns of all `rows`, concatenated (with repeats)."""
    starts = pointers[rows]
    lengths = pointers[rows + 1] - starts
    total = int(lengths.sum())
    if not total:
        return np.empty(0, dtype=columns.dtype)
    offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return columns[offsets + np.arange(total)]


def _ranked_counts(elements, excluded):
    """(ids, counts) of `elements` not in `excluded`, counted, most first then by id."""
    elements = elements[~np.isin(elements, excluded)]
    ids, counts = np.unique(elements, return_counts=True)
    order = np.lexsort((ids, -counts))
    return ids[order], counts[order]


class PublicGraph:
    """The public citation graph (published edges between published papers) in memory, with
    the stored citing counts; papers are numbered 0..n-1 in primary-key order."""

    def __init__(self):
        hidden = list(Paper.objects.hidden_pks().values_list("pk", flat=True))
        self.pks = np.fromiter(
            Paper.objects.published().order_by("pk").values_list("pk", flat=True), dtype=np.int64
        )
        size = len(self.pks)
        pairs = public_edges(hidden).values_list("citing_paper", "cited_paper")
        flat = np.fromiter(
            (pk for pair in pairs.iterator(chunk_size=EDGE_CHUNK) for pk in pair), dtype=np.int64
        ).reshape(-1, 2)
        citing = np.searchsorted(self.pks, flat[:, 0])
        cited = np.searchsorted(self.pks, flat[:, 1])
        del flat
        self.out_ptr, self.out = _adjacency(citing, cited, size)
        self.in_ptr, self.into = _adjacency(cited, citing, size)
        del citing, cited
        self.out_degree = np.diff(self.out_ptr)
        self.in_degree = np.diff(self.in_ptr)
        # The stored citing counts; -1: no row (never narrow, sorted last as NULL).
        self.total = np.full(size, -1, dtype=np.int64)
        for pk, total in CitationCount.objects.filter(paper__status="published").values_list(
            "paper", "total"
        ):
            index = np.searchsorted(self.pks, pk)
            if index < size and self.pks[index] == pk:
                self.total[index] = total

    def __len__(self):
        return len(self.pks)

    def similar(self, p):
        """As `similar_papers()`: (indices, scores, shared references, co-citations)."""
        references = self.out[self.out_ptr[p] : self.out_ptr[p + 1]]
        totals = self.total[references]
        narrow = references[(totals >= 0) & (totals <= COUPLING_FANOUT)]
        coupled = _gather(self.in_ptr, self.into, narrow)
        coupled = coupled[coupled != p]
        cocited = np.empty(0, dtype=np.int64)
        if self.in_degree[p]:
            citers = self.into[self.in_ptr[p] : self.in_ptr[p + 1]]
            cocited = _gather(self.out_ptr, self.out, citers)
            cocited = cocited[cocited != p]
        if not len(coupled) and not len(cocited):
            return []
        ids, inverse = np.unique(np.concatenate([coupled, cocited]), return_inverse=True)
        shared = np.bincount(inverse[: len(coupled)], minlength=len(ids))
        together = np.bincount(inverse[len(coupled) :], minlength=len(ids))
        order = np.lexsort((ids, -(shared + together)))[:CANDIDATES]
        ids, shared, together = ids[order], shared[order], together[order]
        own_references, own_citers = int(self.out_degree[p]), int(self.in_degree[p])
        reference_counts = self.out_degree[ids] if len(coupled) else np.zeros(len(ids), np.int64)
        citer_counts = np.maximum(self.total[ids], 0) if len(cocited) else np.zeros_like(ids)
        with np.errstate(divide="ignore", invalid="ignore"):
            coupling = np.where(
                (shared > 0) & (reference_counts > 0) & (own_references > 0),
                shared / np.sqrt((own_references * reference_counts).astype(np.float64)),
                0.0,
            )
            cocitation = np.where(
                (together > 0) & (citer_counts > 0) & (own_citers > 0),
                together / np.sqrt((own_citers * citer_counts).astype(np.float64)),
                0.0,
            )
        # Python's round(), as the per-paper refresh stores it (numpy's rounds differently).
        scores = np.array([round(score, 6) for score in (coupling + cocitation).tolist()])
        top = np.lexsort((ids, -(shared + together), -scores))[:SIMILAR_KEPT]
        return list(
            zip(
                ids[top].tolist(),
                scores[top].tolist(),
                shared[top].tolist(),
                together[top].tolist(),
                strict=True,
            )
        )

    def lineage(self, p, similar):
        """As `lineage()`: (prior works, derivative works), [(index, links)] each."""
        hood = np.array([p, *similar], dtype=np.int64)
        if len(hood) < 2:
            return [], []

        def ranked(pointers, columns):
            ids, counts = _ranked_counts(_gather(pointers, columns, hood), hood)
            kept = counts >= MIN_LINKS
            ids, counts = ids[kept][:LINEAGE_KEPT], counts[kept][:LINEAGE_KEPT]
            return list(zip(ids.tolist(), counts.tolist(), strict=True))

        return ranked(self.out_ptr, self.out), ranked(self.in_ptr, self.into)

    def most_cited(self, ends):
        """As `most_cited_ends()`: the GRAPH_KEPT most cited of `ends`, [(index, total)]."""
        totals = self.total[ends]
        order = np.lexsort((ends, totals < 0, -totals))[:GRAPH_KEPT]
        return list(zip(ends[order].tolist(), np.maximum(totals[order], 0).tolist(), strict=True))

    def rows_of(self, p, now):
        """The Neighbour rows of paper `p`, as tuples in NEIGHBOUR_FIELDS order."""
        pks = self.pks
        paper = int(pks[p])
        similar = self.similar(p)
        prior, derivative = self.lineage(p, [row[0] for row in similar])
        for rank, (other, score, shared, together) in enumerate(similar, start=1):
            other = int(pks[other])
            yield (paper, other, Relation.SIMILAR.value, rank, score, shared, together, 0, now)
        references = self.most_cited(self.out[self.out_ptr[p] : self.out_ptr[p + 1]])
        citers = self.most_cited(self.into[self.in_ptr[p] : self.in_ptr[p + 1]])
        for relation, found in (
            (Relation.PRIOR, prior),
            (Relation.DERIVATIVE, derivative),
            (Relation.REFERENCE, references),
            (Relation.CITER, citers),
        ):
            for rank, (other, links) in enumerate(found, start=1):
                yield (paper, int(pks[other]), relation.value, rank, float(links), 0, 0, links, now)


def refresh_all(progress=None):
    """Recompute and store every published paper's lists (and drop every other paper's), in
    one transaction: the number of papers computed. `progress(done, total)` as it goes."""
    now = timezone.now()
    with transaction.atomic():
        graph = PublicGraph()
        size = len(graph)
        step = max(1, min(10_000, size // 10 or 1))

        def rows():
            for p in range(size):
                yield from graph.rows_of(p, now)
                if progress and ((p + 1) % step == 0 or p + 1 == size):
                    progress(p + 1, size)

        for model in (Neighbour, NeighboursComputed):
            stale = model.objects.all()
            stale._raw_delete(stale.db)
        write_rows(Neighbour, NEIGHBOUR_FIELDS, rows())
        write_rows(
            NeighboursComputed,
            ["paper", "computed_at"],
            ((pk, now) for pk in graph.pks.tolist()),
        )
    return size
