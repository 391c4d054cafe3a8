"""The stored neighbours of each paper: its most similar papers, its prior works and its
derivative works, and the references and citers its graph draws, each a short ranked list
written by `discovery.neighbours.refresh()`.

Counting co-citation and bibliographic coupling at request time reads every edge of a paper's
citers and references (tens of thousands on a hub at 1M citations), so a hub reads its few
stored rows instead: one query for all three lists."""

from django.db import models
from django.db.models import Q

from publishing.models import published_q


class Relation(models.TextChoices):
    SIMILAR = "similar", "Similar paper"
    PRIOR = "prior", "Prior work"
    DERIVATIVE = "derivative", "Derivative work"
    # The graph's other nodes: the paper's most cited references and citers.
    REFERENCE = "reference", "Reference drawn on the graph"
    CITER = "citer", "Citer drawn on the graph"


LISTED = (Relation.SIMILAR, Relation.PRIOR, Relation.DERIVATIVE)


class NeighbourQuerySet(models.QuerySet):
    def shown_for(self, paper):
        """The rows readers see for `paper`: the other paper published (a row computed while
        it was public stays stored until the next refresh, but never shows), ranked, with the
        other paper joined."""
        return (
            self.filter(published_q("other__"), paper=paper)
            .select_related("other")
            .order_by("relation", "rank")
        )

    def lists_for(self, paper, limit=None):
        """`NeighbourLists` of `paper`, read in one query; at most `limit` rows of each. The
        graph's rows are read too: any stored row says the lists were computed, so only a
        paper with none at all costs a second query (whether it was ever computed)."""
        rows = list(self.shown_for(paper))
        lists = NeighbourLists([row for row in rows if row.relation in LISTED], limit)
        if not rows:
            lists.computed = NeighboursComputed.objects.filter(paper=paper).exists()
        return lists


class NeighbourLists:
    """A paper's similar papers, prior works and derivative works, each a ranked list."""

    def __init__(self, rows, limit=None):
        self.similar, self.prior, self.derivative = [], [], []
        # False: the paper's lists were never computed (a database from before stored
        # neighbours, until `manage.py refresh_neighbours`), as opposed to computed and empty.
        self.computed = True
        for row in rows:
            found = getattr(self, row.relation)
            if limit is None or len(found) < limit:
                found.append(row)

    def __bool__(self):
        return bool(self.similar or self.prior or self.derivative)


class Neighbour(models.Model):
    """`other` is one of `paper`'s similar papers, prior works or derivative works (`relation`),
    at `rank` (1 first), with the counts that say why."""

    paper = models.ForeignKey("citations.Paper", on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey("citations.Paper", on_delete=models.CASCADE, related_name="+")
    relation = models.CharField(max_length=10, choices=Relation)
    rank = models.PositiveSmallIntegerField()
    score = models.FloatField()
    # Similar papers: the references both cite (bibliographic coupling) and the papers citing
    # both (co-citation).
    shared_references = models.PositiveIntegerField(default=0)
    co_citations = models.PositiveIntegerField(default=0)
    # Prior works: how many papers of the neighbourhood cite it; derivative works: how many of
    # them it cites. References and citers: their stored citing count, by which they rank.
    neighbourhood_links = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField()

    objects = NeighbourQuerySet.as_manager()

    class Meta:
        ordering = ["paper", "relation", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "relation", "other"], name="neighbour_unique"),
            models.CheckConstraint(
                condition=~Q(paper=models.F("other")), name="neighbour_not_self"
            ),
        ]
        indexes = [
            models.Index(fields=["paper", "relation", "rank"], name="neighbour_ranked"),
            # Which papers list a given paper: refreshed when its edges change.
            models.Index(fields=["other"], name="neighbour_other"),
        ]

    def __str__(self):
        return f"{self.paper_id} {self.relation} #{self.rank}: {self.other_id}"

    @property
    def why(self):
        """Why it is listed, in words: "shares 12 references · co-cited 8 times"."""
        if self.relation == Relation.SIMILAR:
            parts = []
            if self.shared_references:
                n = self.shared_references
                parts.append(f"shares {n} reference{'s' if n != 1 else ''}")
            if self.co_citations:
                n = self.co_citations
                parts.append(f"co-cited {n} time{'s' if n != 1 else ''}")
            return " · ".join(parts)
        if self.relation == Relation.REFERENCE:
            return "cited by it"
        if self.relation == Relation.CITER:
            return "cites it"
        n = self.neighbourhood_links
        if self.relation == Relation.PRIOR:
            return f"cited by {n} of these papers"
        return f"cites {n} of these papers"


class NeighboursComputed(models.Model):
    """`paper`'s lists were computed at `computed_at` (written with its Neighbour rows, even
    when there are none): without this row a paper with no rows shown could be either a
    paper with nothing around it or one never refreshed, and pages say which."""

    paper = models.OneToOneField(
        "citations.Paper", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "neighbours computed"

    def __str__(self):
        return f"{self.paper_id} computed at {self.computed_at:%Y-%m-%d %H:%M}"
