"""Stored counts of each paper's public citing edges.

Counting a hub's edges on every request cost seconds at 1M citations (the API's paper list
annotated a subquery per paper, role and polarity, and `ordering=-cited_by_count` counted every
paper before sorting). Each paper has one CitationCount row instead, written by
`recount_citations()`: the one function every path calls with the papers it touched. Single
edits reach it through citations/signals.py; bulk paths (publish()/unpublish() on querysets,
generate_corpus, importers) call it themselves.

A count covers published edges whose citing paper is published, as at the recount. An edge or
citing paper that appears or expires on schedule is saved by `manage.py publish_scheduled`,
so it moves the counts through the save receivers, as an editor's edit does
(`manage.py recount_citations` recounts everything).

The same recount keeps each paper's citing timeline (`CitingTimelineCount`: the public citing
papers per quarter of their date, date precision, role and polarity), from which the hub page,
its JSON-LD and the API read the timeline and the role x polarity summary: counting them per
request was a GROUP BY over every edge of a hub (0.14-0.5 s at 1M citations)."""

from django.db import models, transaction
from django.db.models import Count, F
from django.db.models.functions import TruncQuarter
from django.utils import timezone

from publishing.models import published_q

BATCH = 2000


class CitationCount(models.Model):
    # A stored figure: counted again when a deleted paper is recovered, never restored.
    recomputed = True

    paper = models.OneToOneField(
        "citations.Paper",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="citation_count",
    )
    total = models.PositiveIntegerField(default=0)
    # {role pk: count} and {polarity pk: count}, keys as strings (JSON objects).
    by_role = models.JSONField(default=dict)
    by_polarity = models.JSONField(default=dict)
    # When the paper's citing edges last changed (the last recount): the API detail's
    # Last-Modified, instead of a MAX(updated_at) over every edge of a hub.
    edges_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # `ordering=-cited_by_count` and its deep cursors: an index walk, not a sort.
            models.Index(fields=["-total", "-paper"], name="citation_count_total"),
        ]

    def __str__(self):
        return f"{self.paper_id}: {self.total}"


class CitingTimelineCount(models.Model):
    """One group of a paper's public citing edges: the quarter of the citing paper's date
    (NULL when it has none), that date's precision, the role and the polarity (NULL while
    unclassified). Written by `recount_citations()` only; a draft paper's rows are never
    read (`Paper.citing_groups`)."""

    recomputed = True  # counted again when a deleted paper is recovered, never restored

    paper = models.ForeignKey(
        "citations.Paper", on_delete=models.CASCADE, related_name="citing_timeline_counts"
    )
    quarter = models.DateField(null=True)
    date_precision = models.CharField(max_length=10)
    role = models.ForeignKey(
        "citations.CitationRole", null=True, on_delete=models.CASCADE, related_name="+"
    )
    polarity = models.ForeignKey(
        "citations.CitationPolarity", null=True, on_delete=models.CASCADE, related_name="+"
    )
    count = models.PositiveIntegerField()

    def __str__(self):
        return f"{self.paper_id} {self.quarter} {self.role_id} {self.polarity_id}: {self.count}"


def recount_citations(paper_ids=None, apps=None):
    """Recount the stored citing counts of the given papers (all papers when None). `apps`:
    a migration's app registry, when called from one."""
    if apps is None:
        from citations.models import Citation, Paper

        count_model, timeline_model = CitationCount, CitingTimelineCount
    else:
        Citation, Paper = apps.get_model("citations.Citation"), apps.get_model("citations.Paper")
        count_model = apps.get_model("citations.CitationCount")
        try:
            timeline_model = apps.get_model("citations.CitingTimelineCount")
        except LookupError:  # migrations before 0029 count without it
            timeline_model = None
    papers = Paper.objects.order_by("pk").values_list("pk", flat=True)
    if paper_ids is not None:
        papers = papers.filter(pk__in={pk for pk in paper_ids if pk is not None})
    ids = list(papers)
    now = timezone.now()
    public = Citation.objects.filter(published_q(), published_q("citing_paper__"))
    timeline_groups = {}
    if timeline_model is not None:
        timeline_groups = {
            "date_precision": F("citing_paper__date_precision"),
            "quarter": TruncQuarter("citing_paper__publication_date"),
        }
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        counts = {
            pk: count_model(paper_id=pk, by_role={}, by_polarity={}, edges_changed_at=now)
            for pk in chunk
        }
        groups = (
            public.filter(cited_paper__in=chunk)
            .values("cited_paper", "role", "polarity", **timeline_groups)
            .annotate(n=Count("*"))
            .order_by()
        )
        timeline = []
        for group in groups:
            cited, n = group["cited_paper"], group["n"]
            role, polarity = group["role"], group["polarity"]
            count = counts[cited]
            count.total += n
            for bucket, key in ((count.by_role, role), (count.by_polarity, polarity)):
                if key is not None:
                    bucket[str(key)] = bucket.get(str(key), 0) + n
            if timeline_model is not None:
                timeline.append(
                    timeline_model(
                        paper_id=cited,
                        quarter=group["quarter"],
                        date_precision=group["date_precision"],
                        role_id=role,
                        polarity_id=polarity,
                        count=n,
                    )
                )
        with transaction.atomic():
            # The upsert locks the papers' count rows: concurrent recounts of a paper take
            # turns, so its timeline rows are replaced once, never doubled.
            count_model.objects.bulk_create(
                counts.values(),
                update_conflicts=True,
                unique_fields=["paper"],
                update_fields=["total", "by_role", "by_polarity", "edges_changed_at"],
            )
            # A raw delete: a queryset's delete() would announce each row to the page cache
            # as a content change (pagecache/caching.py).
            if timeline_model is not None:
                stale = timeline_model.objects.filter(paper__in=chunk)
                stale._raw_delete(stale.db)
                timeline_model.objects.bulk_create(timeline, batch_size=BATCH)
    return len(ids)


# What of a paper the stored figures depend on: its publication, its date (the year and
# quarter it is counted in) and whether the research index lists it.
COUNTED_FIELDS = (
    "status",
    "published_at",
    "publication_date",
    "date_precision",
    "in_research_index",
)


def counted_fields(instance, names=COUNTED_FIELDS):
    """The fields as held by the instance (deferred ones left alone)."""
    return tuple(instance.__dict__.get(name) for name in names)
