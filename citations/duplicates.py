"""Possible duplicate papers, for editors to merge: the same identifier in another form, or
near-identical titles of the same year.

Titles are compared with rapidfuzz (a C implementation of edit-distance ratios, far faster than
difflib) within blocks of papers whose normalised titles start with the same two words, each
title against its nearest neighbours in sorted order, so a corpus of 100,000 papers is not
compared pair by pair.

At that size a run still takes seconds of CPU, so its pairs are stored (PossibleDuplicatePair,
one DuplicateScan per run): the admin page reads them and queues a run in the task queue when
papers changed since the last one; editors dismiss the pairs that are two papers."""

import dataclasses
import datetime

from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task
from rapidfuzz import fuzz

from citations.identifiers import arxiv_id_from_doi
from citations.importers.records import normalised_title
from citations.models import Paper

TITLE_SIMILARITY = 93  # rapidfuzz ratio (0-100) from which two titles count as the same
NEIGHBOURS = 25  # titles after each one (in sorted order, within its block) it is compared with
SCAN_TIMEOUT = datetime.timedelta(hours=1)  # a scan not finished by then lost its worker


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
        # Sorted by title, each title is compared with the NEIGHBOURS after it: near-identical
        # titles sort next to each other, and a big block (a common opening such as "scaling
        # laws") costs n × NEIGHBOURS comparisons, not n² (at 100k papers the page never
        # answered). A block of up to NEIGHBOURS + 1 titles is still compared pair by pair.
        block.sort(key=lambda entry: (entry[0], entry[1].pk))
        for i, (title_a, a) in enumerate(block):
            for title_b, b in block[i + 1 : i + 1 + NEIGHBOURS]:
                if a.arxiv_id and b.arxiv_id and a.arxiv_id != b.arxiv_id:
                    continue  # two arXiv ids: two papers, however alike the titles
                score = fuzz.ratio(title_a, title_b)
                if score >= TITLE_SIMILARITY and same_year(a, b):
                    add(a, b, "same title" if score == 100 else "near-identical title", score)
    return sorted(pairs, key=lambda pair: (-pair.score, pair.first.pk, pair.second.pk))


class DuplicateScan(models.Model):
    """One run of `possible_duplicates()` over every paper, whose pairs are stored as
    PossibleDuplicatePair rows: at 100k papers a run takes seconds of CPU, so the duplicates
    page reads the stored pairs and a run happens in the task queue."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    requested_at = models.DateTimeField(default=timezone.now)
    # Papers saved after this instant may hold pairs the run has not seen.
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    pairs = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]

    def __str__(self):
        return f"duplicate scan of {self.requested_at:%Y-%m-%d %H:%M}"

    @classmethod
    def latest_finished(cls):
        return cls.objects.exclude(finished_at=None).order_by("-started_at", "-id").first()

    @classmethod
    def pending(cls):
        """A run requested and not yet finished (one lost by its worker ends after an hour)."""
        recent = timezone.now() - SCAN_TIMEOUT
        return cls.objects.filter(finished_at=None, requested_at__gte=recent).first()

    @classmethod
    def is_stale(cls, latest=None):
        """No finished run, or a paper saved since the last one (`latest`) started."""
        latest = latest or cls.latest_finished()
        return latest is None or Paper.objects.filter(updated_at__gte=latest.started_at).exists()

    @classmethod
    def request(cls):
        """Queue a run unless one is already waiting or running; the scan waiting."""
        with transaction.atomic():
            waiting = cls.pending()
            if waiting:
                return waiting
            scan = cls.objects.create()
            transaction.on_commit(lambda: scan_for_duplicates.enqueue(scan.pk))
            return scan


class PossibleDuplicatePairQuerySet(models.QuerySet):
    def open(self):
        """The pairs no editor dismissed, strongest first."""
        return self.filter(dismissed_at=None).order_by("-score", "first_id", "second_id")


class PossibleDuplicatePair(models.Model):
    """Two papers a scan found alike (first.pk < second.pk). A dismissed pair ("not the same
    paper") stays dismissed through later scans; merging deletes one paper and so its pairs."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    first = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=300)
    score = models.FloatField(default=100.0)
    found_at = models.DateTimeField(default=timezone.now)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    dismissed_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = PossibleDuplicatePairQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["first", "second"], name="duplicate_pair_unique"),
        ]
        indexes = [
            models.Index(
                F("score").desc(),
                "first",
                "second",
                name="duplicate_pair_open",
                condition=Q(dismissed_at=None),
            ),
            models.Index(fields=["second"], name="duplicate_pair_second"),
        ]

    def __str__(self):
        return f"{self.first_id} ~ {self.second_id}: {self.reason}"

    def dismiss(self, user):
        self.dismissed_at, self.dismissed_by = timezone.now(), user
        self.save(update_fields=["dismissed_at", "dismissed_by"])


def store_possible_duplicates(scan=None):
    """Run `possible_duplicates()` and make the stored pairs match it: new pairs added, the
    reason and score of known ones brought up to date, pairs no longer found removed unless an
    editor dismissed them (so a dismissal outlives a title edited back and forth)."""
    scan = scan or DuplicateScan.objects.create()
    scan.started_at = timezone.now()
    scan.save(update_fields=["started_at"])
    found = {
        (pair.first.pk, pair.second.pk): (pair.reason[:300], pair.score)
        for pair in possible_duplicates()
    }
    with transaction.atomic():
        # Only what changed is written: a scan that finds what the last one found writes
        # nothing (rewriting 37k rows per scan left the table mostly dead rows).
        stored = {
            (first, second): (pk, reason, score, dismissed_at)
            for pk, first, second, reason, score, dismissed_at in (
                PossibleDuplicatePair.objects.values_list(
                    "pk", "first", "second", "reason", "score", "dismissed_at"
                )
            )
        }
        PossibleDuplicatePair.objects.bulk_create(
            [
                PossibleDuplicatePair(first_id=first, second_id=second, reason=reason, score=score)
                for (first, second), (reason, score) in found.items()
                if (first, second) not in stored
            ],
            batch_size=2000,
            ignore_conflicts=True,  # stored meanwhile by another scan
        )
        PossibleDuplicatePair.objects.bulk_update(
            [
                PossibleDuplicatePair(pk=stored[key][0], reason=reason, score=score)
                for key, (reason, score) in found.items()
                if key in stored and stored[key][1:3] != (reason, score)
            ],
            ["reason", "score"],
            batch_size=2000,
        )
        gone = [
            pk
            for key, (pk, _, _, dismissed_at) in stored.items()
            if key not in found and dismissed_at is None
        ]
        for start in range(0, len(gone), 2000):
            PossibleDuplicatePair.objects.filter(pk__in=gone[start : start + 2000]).delete()
        scan.finished_at, scan.pairs = timezone.now(), len(found)
        scan.save(update_fields=["finished_at", "pairs"])
    return scan


@task()
def scan_for_duplicates(scan_id):
    scan = DuplicateScan.objects.filter(pk=scan_id).first()
    return store_possible_duplicates(scan).pairs
