"""Claims with their evidence status, and the pieces of the diagnosis built on them:
failure signals readers observe, and discriminating tests that tell layers apart."""

import datetime
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Case, IntegerField, Prefetch, Q, Value, When
from django.db.models.functions import TruncDate, TruncQuarter
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from simple_history.models import HistoricalRecords

from bottlenecks.models import Layer
from bottlenecks.setting import ModelSize, RewardType, TaskFamily
from citations.dates import (
    DatePrecision,
    date_display,
    date_iso,
    known_date,
    known_date_q,
    known_quarter_q,
)
from citations.models import Citation, Paper
from citations.stats.facet_counts import layer_quarters_and_total
from notes.models import ResearchNote
from publishing.models import Publishable, PublishableQuerySet
from results.models import Result


def relative_difference(own, other):
    """How far `other` is from `own`, in % of `own` (0 or infinity when `own` is 0)."""
    if own == 0:
        return 0.0 if other == 0 else float("inf")
    return abs(other - own) / abs(own) * 100


def comparable_results(own, other):
    """Whether two results measure the same thing closely enough to compare their values: the
    same benchmark, no setting field that both give and differ on, and RL compute on the same
    axis within a factor of two (or neither with compute)."""
    mine, theirs = own.series, other.series
    if mine.benchmark_id != theirs.benchmark_id:
        return False
    for field in SETTING_FIELDS:
        if (
            getattr(mine, field)
            and getattr(theirs, field)
            and getattr(mine, field) != getattr(theirs, field)
        ):
            return False
    if own.compute_sort is None or other.compute_sort is None:
        return own.compute_sort is None and other.compute_sort is None
    return (
        own.compute_axis == other.compute_axis and 0.5 <= other.compute_sort / own.compute_sort <= 2
    )


class EvidenceStatus(models.TextChoices):
    """How far a finding has travelled beyond the setup that produced it. The order of the
    members is the order in which evidence is shown: strongest first."""

    REPRODUCED = "reproduced", "Reproduced"
    # Not reproduced by anyone else: how many setups the source itself measured it in is a
    # separate fact, `Claim.setup_count`, never implied by the status.
    REPORTED = "reported", "Reported (not reproduced)"
    CONTESTED = "contested", "Contested"
    SUPERSEDED = "superseded", "Superseded"

    @classmethod
    def rank(cls):
        """An expression giving each status its place in `EvidenceStatus` (0 = strongest)."""
        return Case(
            *[When(evidence_status=value, then=Value(i)) for i, value in enumerate(cls.values)],
            default=Value(len(cls.values)),
            output_field=IntegerField(),
        )


class Direction(models.TextChoices):
    INCREASE = "increase", "Increase"
    DECREASE = "decrease", "Decrease"
    NONE = "", "Not applicable"


# A claim's date and its precision, as the date helpers (citations/dates.py) name them.
CLAIM_DATE = ("reported_on", "reported_on_precision")

SETTING_FIELDS = {"task_family": TaskFamily, "model_size": ModelSize, "reward_type": RewardType}


def placeholder_error(reported_on, papers):
    """Why a claim may not give `reported_on`: it is the placeholder of `papers`, whose date
    is not known."""
    titles = "; ".join(f"“{paper.title}”" for paper in papers)
    return (
        f"{reported_on:%Y-%m-%d} is the placeholder date of {titles}, whose date is not known: "
        "give the source's own date (a year or a month will do) or leave it empty."
    )


class ClaimQuerySet(PublishableQuerySet):
    def by_evidence(self, *within_status):
        """Strongest evidence first (reproduced, reported, contested, superseded); within a
        status by `within_status`, then the newest finding, then the statement, so the order
        is the same on every database."""
        ranked = self
        if "evidence_rank" not in self.query.annotations:
            ranked = self.annotate(evidence_rank=EvidenceStatus.rank())
        return ranked.order_by(
            "evidence_rank",
            *within_status,
            models.F("reported_on").desc(nulls_last=True),
            "id",
        )

    def for_display(self):
        """Published claims in evidence order, with what a claim's list item
        (bottlenecks/includes/claim.html) shows beyond its row: the claim superseding it, its
        published papers and the public citations contesting it, into lists (to_attr: no
        queryset is built per claim to hold them)."""
        return (
            self.published()
            .by_evidence()
            .select_related("superseded_by")
            .prefetch_related(
                Prefetch(
                    "papers",
                    queryset=Paper.objects.published().only(
                        "slug", "title", "arxiv_id", "doi", "url"
                    ),
                    to_attr="published_papers",
                ),
                Prefetch(
                    "contrasting_citations",
                    queryset=Citation.objects.public().select_related("citing_paper"),
                    to_attr="public_contrasting_citations",
                ),
                Prefetch(
                    "results",
                    queryset=Result.objects.public().select_related(
                        "series__benchmark", "series__paper"
                    ),
                    to_attr="public_results",
                ),
            )
        )

    def for_api(self):
        """Evidence order, with every nested list limited to published rows."""
        return (
            self.by_evidence()
            .select_related("superseded_by")
            .prefetch_related(
                Prefetch("layers", queryset=Layer.objects.published()),
                Prefetch("papers", queryset=Paper.objects.published()),
                Prefetch("notes", queryset=ResearchNote.objects.published()),
                Prefetch("contrasting_citations", queryset=Citation.objects.public()),
                Prefetch("results", queryset=Result.objects.public().only("pk", "series_id")),
            )
        )

    def without_source(self):
        """Claims none of whose published papers has an arXiv id, DOI or URL on record."""
        sourced = Paper.objects.published().filter(~Q(arxiv_id="") | ~Q(doi="") | ~Q(url=""))
        return self.exclude(pk__in=Claim.objects.filter(papers__in=sourced).values("pk"))

    def evidence_changed_since_review(self):
        """Claims whose evidence changed after their last review (or never reviewed)."""
        return self.filter(evidence_changed_at__isnull=False).filter(
            Q(last_reviewed__isnull=True) | Q(last_reviewed__lt=TruncDate("evidence_changed_at"))
        )

    def with_known_date(self):
        """Claims whose `reported_on` is a fact, to a day, a month or a year."""
        return self.filter(known_date_q("", *CLAIM_DATE))

    def in_setting(self, **setting):
        """Claims whose setup matches each chosen setting, or leaves that field open."""
        query = Q()
        for field, value in setting.items():
            if value:
                query &= Q(**{field: value}) | Q(**{field: ""})
        return self.filter(query)


class Claim(Publishable):
    """One finding from a paper or note ("up to 2.29× higher generation throughput"), the setup
    it holds in, the layers it speaks to, and how well it stands up (its evidence status)."""

    slug = models.SlugField(max_length=200, unique=True)
    statement = models.TextField(help_text="The finding in one sentence, as the source states it.")
    figure = models.CharField(
        max_length=40, blank=True, help_text='The headline number as shown, e.g. "2.29×" or "67%".'
    )
    unit = models.CharField(
        max_length=200,
        blank=True,
        help_text='What the figure measures, e.g. "generation throughput".',
    )
    direction = models.CharField(max_length=10, choices=Direction, blank=True)
    # The setup the finding holds in.
    model_name = models.CharField("model", max_length=200, blank=True)
    model_size = models.CharField(max_length=10, choices=ModelSize, blank=True)
    task_family = models.CharField(max_length=20, choices=TaskFamily, blank=True)
    reward_type = models.CharField(max_length=20, choices=RewardType, blank=True)
    budget = models.CharField(max_length=200, blank=True, help_text='e.g. "100,000 GPU-hours".')
    setup = models.TextField(blank=True, help_text="Anything else about the setup that matters.")
    reported_on = models.DateField(
        null=True, blank=True, help_text="When the finding was first reported (the source's date)."
    )
    # The same rule as a paper's date (citations/dates.py): the date is a fact only as far as
    # its precision says, and a date of precision "unknown" is shown nowhere.
    reported_on_precision = models.CharField(
        "precision of the date",
        max_length=10,
        choices=DatePrecision,
        default=DatePrecision.DAY,
        db_default=DatePrecision.DAY,
        help_text="How much of the date the source states: a day, a month or a year.",
    )
    setup_count = models.PositiveSmallIntegerField(
        "setups",
        null=True,
        blank=True,
        help_text="In how many setups (models, training setups or benchmarks) the source "
        "measured it, as the source says; empty when the source does not say.",
    )

    evidence_status = models.CharField(
        max_length=12,
        choices=EvidenceStatus,
        default=EvidenceStatus.REPORTED,
        db_index=True,
    )
    reproduced_by = models.CharField(
        max_length=300, blank=True, help_text="Who reproduced it (for status reproduced)."
    )
    reproduction_url = models.URLField("reproduction link", max_length=500, blank=True)
    contrasting_citations = models.ManyToManyField(
        "citations.Citation",
        blank=True,
        related_name="contested_claims",
        help_text="The citations that contest it (for status contested).",
    )
    # Database defaults: an earlier data migration (notes 0008) inserts claims through the
    # historical model, which has no such column.
    contested_by = models.TextField(
        blank=True,
        default="",
        db_default="",
        help_text="What contests it, when no contrasting citation on record says so: a result, "
        "a reproduction that failed, a paper not in the database (for status contested).",
    )
    superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="supersedes",
        help_text="The claim that replaces it (for status superseded).",
    )
    last_reviewed = models.DateField(null=True, blank=True)
    review_due = models.DateField(null=True, blank=True)
    # Set by the evidence around the claim, never by a reader: a contrasting citation of one
    # of its papers proposes "contested"; an editor accepts or clears the proposal on review.
    proposed_status = models.CharField(
        max_length=12,
        choices=EvidenceStatus,
        blank=True,
        default="",
        db_default="",
        editable=False,
    )
    proposal_reason = models.CharField(
        max_length=500, blank=True, default="", db_default="", editable=False
    )
    evidence_changed_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        db_index=True,
        help_text="When the evidence around it (its papers' citations) last changed.",
    )

    # The reported numbers that carry its figure, and how far another paper's comparable
    # result may be from them and still agree (`results_verdict`).
    results = models.ManyToManyField(
        "results.Result",
        blank=True,
        related_name="claims",
        help_text="The results (points of a series) that carry its figure.",
    )
    tolerance = models.FloatField(
        "tolerance (%)",
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="How far, relative to its own result, another paper's comparable result may "
        "be and still agree with it. Empty: results propose no status.",
    )

    layers = models.ManyToManyField("bottlenecks.Layer", blank=True, related_name="claims")
    papers = models.ManyToManyField("citations.Paper", blank=True, related_name="claims")
    notes = models.ManyToManyField("notes.ResearchNote", blank=True, related_name="claims")

    objects = ClaimQuerySet.as_manager()

    class Meta(Publishable.Meta):
        app_label = "bottlenecks"  # its tables were created there (no table moved)
        ordering = ["statement", "id"]

    def __str__(self):
        return f"{self.figure} {self.unit}".strip() if self.figure else self.statement[:80]

    def get_absolute_url(self):
        return f"{reverse('evidence:claims')}#claim-{self.slug}"

    @cached_property
    def published_papers(self):
        """The published papers the claim is from (`for_display()` loads them)."""
        return list(self.papers.published())

    @cached_property
    def public_results(self):
        """The public results that carry its figure (`for_display()` loads them)."""
        rows = self.results.public().select_related("series__benchmark", "series__paper")
        return list(rows)

    @cached_property
    def public_contrasting_citations(self):
        """The public citations that contest the claim (`for_display()` loads them)."""
        return list(self.contrasting_citations.public().select_related("citing_paper"))

    def clean(self):
        super().clean()
        errors = {}
        if self.evidence_status == EvidenceStatus.REPRODUCED and not self.reproduced_by:
            errors["reproduced_by"] = "Say who reproduced it."
        if (
            self.evidence_status == EvidenceStatus.CONTESTED
            and not self.contested_by.strip()
            and not self.contesting_on_record()
        ):
            errors["contested_by"] = (
                "Say what contests it: choose a contrasting citation or describe the result."
            )
        if self.evidence_status == EvidenceStatus.SUPERSEDED and not self.superseded_by_id:
            errors["superseded_by"] = "Choose the claim that supersedes it."
        if self.superseded_by_id and self.superseded_by_id == self.pk:
            errors["superseded_by"] = "A claim cannot supersede itself."
        if self.last_reviewed and self.review_due and self.review_due < self.last_reviewed:
            errors["review_due"] = "The review is due after the last review, not before."
        placeholders = self.placeholder_papers()
        if placeholders:
            errors["reported_on"] = placeholder_error(self.reported_on, placeholders)
        if errors:
            raise ValidationError(errors)

    def placeholder_papers(self, papers=None):
        """The claim's papers whose date is not known and whose placeholder is the claim's
        `reported_on`: such a date is the seed's ordering, not the source's date. The admin
        form checks the papers being chosen (`papers_chosen`) before they are saved."""
        if self.reported_on is None:
            return []
        if papers is None:
            papers = getattr(self, "papers_chosen", None)
        if papers is None:
            papers = self.papers.all() if self.pk else []
        return [
            paper
            for paper in papers
            if paper.publication_date == self.reported_on and paper.known_publication_date is None
        ]

    @property
    def known_reported_on(self):
        """`reported_on` where it is a fact, else None (citations/dates.py holds the rule)."""
        return known_date(self.reported_on, self.reported_on_precision)

    @property
    def reported_on_iso(self):
        return date_iso(self.reported_on, self.reported_on_precision)

    @property
    def reported_on_display(self):
        return date_display(self.reported_on, self.reported_on_precision)

    def save(self, *args, **kwargs):
        if self.proposed_status and self._proposal_settled():
            self.proposed_status, self.proposal_reason = "", ""
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "proposed_status"}
                kwargs["update_fields"].add("proposal_reason")
        super().save(*args, **kwargs)

    def _proposal_settled(self):
        """An editor took the proposed status, or reviewed the claim after the change."""
        if self.evidence_status == self.proposed_status:
            return True
        return bool(self.last_reviewed) and not self.evidence_changed_since_review

    def contesting_on_record(self):
        """Whether a saved contrasting citation names what contests it. The admin form checks
        the citations being chosen (`contesting_chosen`) before they are saved."""
        chosen = getattr(self, "contesting_chosen", None)
        if chosen is not None:
            return bool(chosen)
        return bool(self.pk) and self.contrasting_citations.exists()

    @property
    def setups_text(self):
        """ "2 setups", "1 setup", or "" when the source does not say."""
        if self.setup_count is None:
            return ""
        return f"{self.setup_count} setup{'' if self.setup_count == 1 else 's'}"

    @property
    def status_text(self):
        """The status with the number of setups the data records, e.g. "Reported (not
        reproduced) · 2 setups"."""
        parts = [self.get_evidence_status_display(), self.setups_text]
        return " · ".join(part for part in parts if part)

    @property
    def has_source_on_record(self):
        """Whether one of its published papers has an arXiv id, DOI or URL to check it by."""
        return any(paper.has_source for paper in self.published_papers)

    @property
    def evidence_changed_since_review(self):
        if self.evidence_changed_at is None:
            return False
        changed = timezone.localdate(self.evidence_changed_at)
        return self.last_reviewed is None or changed > self.last_reviewed

    def propose(self, status, reason, when=None):
        """Record that the evidence changed and, with `status`, the status it now suggests;
        the claim is due for review at once. The public status is left to an editor."""
        when = when or timezone.now()
        self.evidence_changed_at = when
        fields = ["evidence_changed_at"]
        if status and status != self.evidence_status:
            self.proposed_status, self.proposal_reason = status, reason[:500]
            fields += ["proposed_status", "proposal_reason"]
        today = timezone.localdate(when)
        if self.review_due is None or self.review_due > today:
            self.review_due = today
            fields.append("review_due")
        Claim.objects.filter(pk=self.pk).update(**{name: getattr(self, name) for name in fields})

    def results_verdict(self):
        """What other papers' results say of the claim's own: (status, reason, agreeing,
        contradicting), the last two lists of (own result, other result). Compared are results
        on the same benchmark, in no different setting (task family, model size, reward type
        where both say), at RL compute within a factor of two (or both without compute), from
        a paper the claim is not from. Within `tolerance` % of the own value they agree; beyond
        it they contradict. One contradiction proposes "contested", else one agreement
        "reproduced"; no tolerance or nothing comparable proposes nothing."""
        own = [result for result in self.results.select_related("series") if result.series.paper_id]
        if self.tolerance is None or not own:
            return "", "", [], []
        sources = {*self.papers.values_list("pk", flat=True), *(r.series.paper_id for r in own)}
        others = (
            Result.objects.public()
            .filter(series__benchmark__in={result.series.benchmark_id for result in own})
            .exclude(series__paper__in=sources)
            .select_related("series__paper", "series__benchmark")
        )
        agreeing, contradicting = [], []
        for other in others:
            for result in own:
                if not comparable_results(result, other):
                    continue
                apart = relative_difference(result.value, other.value)
                (agreeing if apart <= self.tolerance else contradicting).append((result, other))
        if contradicting:
            status, pairs, verb = EvidenceStatus.CONTESTED, contradicting, "contradicts"
        elif agreeing:
            status, pairs, verb = EvidenceStatus.REPRODUCED, agreeing, "agrees with"
        else:
            return "", "", [], []
        result, other = pairs[0]
        reason = (
            f"{other.value:g} on {other.series.benchmark.name} in “{other.series.paper}” {verb} "
            f"{result.value:g} (tolerance {self.tolerance:g}%)"
        )
        if len(pairs) > 1:
            reason += f", and {len(pairs) - 1} more"
        return status, reason + ".", agreeing, contradicting

    def review_against_results(self):
        """Propose what the results say (`results_verdict`) when it is news: a status other
        than the public one and other than the proposal already standing."""
        status, reason, _, _ = self.results_verdict()
        standing = (self.proposed_status, self.proposal_reason)
        if status and status != self.evidence_status and (status, reason[:500]) != standing:
            self.propose(status, reason)

    @property
    def setting(self):
        """The setup as a short list of labels, e.g. ["Math and logical reasoning", "8B"]."""
        parts = [self.model_name, self.get_model_size_display() if self.model_size else ""]
        parts += [self.get_task_family_display() if self.task_family else ""]
        parts += [self.get_reward_type_display() if self.reward_type else "", self.budget]
        return [part for part in parts if part]

    @property
    def is_review_overdue(self):
        return bool(self.review_due and self.review_due < timezone.localdate())


class FailureSignal(Publishable):
    """Something a team observes when its run stops improving, and the layers it points to."""

    slug = models.SlugField(max_length=100, unique=True)
    text = models.CharField(max_length=300, help_text="What the reader observes, in their words.")
    order = models.PositiveSmallIntegerField(default=0, db_index=True)
    layers = models.ManyToManyField(
        "bottlenecks.Layer", through="SignalLayer", related_name="signals"
    )
    why = models.TextField(
        blank=True,
        help_text="Why it points to its layers: what in each layer could give this "
        "observation. Shown to readers beside the signal's layers.",
    )

    # Recorded with each history entry and restored on revert (publishing/history.py).
    history_children = ("links",)

    class Meta(Publishable.Meta):
        app_label = "bottlenecks"  # its tables were created there (no table moved)
        ordering = ["order", "text"]
        verbose_name = "failure signal"

    def __str__(self):
        return self.text


class SignalLayer(models.Model):
    """How strongly a signal points to a layer: the weights the diagnosis adds up."""

    class Strength(models.IntegerChoices):
        PRIMARY = 2, "Primary: the layer's own failure signal"
        SUPPORTING = 1, "Supporting: consistent with this layer too"

    signal = models.ForeignKey(FailureSignal, on_delete=models.CASCADE, related_name="links")
    layer = models.ForeignKey(
        "bottlenecks.Layer", on_delete=models.CASCADE, related_name="signal_links"
    )
    strength = models.PositiveSmallIntegerField(choices=Strength.choices, default=Strength.PRIMARY)

    history = HistoricalRecords()

    class Meta:
        app_label = "bottlenecks"  # its tables were created there (no table moved)
        ordering = ["-strength", "layer__order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["signal", "layer"], name="unique_signal_layer")
        ]

    def __str__(self):
        return f"{self.signal} → {self.layer} ({self.get_strength_display()})"


class DiscriminatingTest(Publishable):
    """The cheapest experiment whose outcome differs depending on which layer binds: written for
    one layer, or for a pair it tells apart."""

    class Cost(models.IntegerChoices):
        CHEAP = 1, "Cheap: hours, existing runs"
        MODERATE = 2, "Moderate: a short extra run"
        EXPENSIVE = 3, "Expensive: new runs at scale"

    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    procedure = models.TextField(help_text="How to run it.")
    interpretation = models.TextField(help_text="What each outcome says about the layers.")
    cost = models.PositiveSmallIntegerField(choices=Cost.choices, default=Cost.MODERATE)
    layers = models.ManyToManyField("bottlenecks.Layer", related_name="discriminating_tests")
    claims = models.ManyToManyField(Claim, blank=True, related_name="discriminating_tests")
    papers = models.ManyToManyField(
        "citations.Paper", blank=True, related_name="discriminating_tests"
    )
    series = models.ManyToManyField(
        "results.Series",
        blank=True,
        related_name="discriminating_tests",
        verbose_name="runs",
        help_text="Runs (result series) the editors choose as evidence for it: listed first "
        "under the test, whatever their layer or setting.",
    )
    signals = models.ManyToManyField(
        FailureSignal,
        blank=True,
        related_name="discriminating_tests",
        help_text="The signals it is written for: among equally cheap tests that tell the "
        "reader's contenders apart, one written for a signal they picked comes first.",
    )

    # Recorded with each history entry and restored on revert (publishing/history.py).
    history_children = ("outcomes",)

    class Meta(Publishable.Meta):
        app_label = "bottlenecks"  # its tables were created there (no table moved)
        ordering = ["cost", "title"]
        verbose_name = "discriminating test"

    def __str__(self):
        return self.title


class TestOutcome(models.Model):
    """One outcome of a discriminating test: what the team sees, the layer it points to (none:
    the test rules its layers out) and what to do then. The plan names only these layers."""

    test = models.ForeignKey(DiscriminatingTest, on_delete=models.CASCADE, related_name="outcomes")
    layer = models.ForeignKey(
        "bottlenecks.Layer",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="test_outcomes",
        help_text="The layer this outcome points to; empty when it points away from the "
        "test's layers.",
    )
    observation = models.CharField(max_length=300, help_text="If you see this ...")
    action = models.TextField(help_text="... do this (relieve the layer, or look elsewhere).")
    order = models.PositiveSmallIntegerField(default=0)

    history = HistoricalRecords()

    __test__ = False  # its name starts with "Test": pytest must not collect it

    class Meta:
        app_label = "bottlenecks"
        ordering = ["order", "id"]

    def __str__(self):
        return self.observation


NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def number_word(n):
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)


class EvidenceCaveat:
    """The caution under a set of notes, worded from their data: how many items there are, the
    evidence status of their claims, and the caveats their authors state."""

    def __init__(self, notes, status_counts, multi_setup=0):
        self.notes = list(notes)
        self.status_counts = status_counts  # {"reported": 4, ...}, published claims only
        # Claims their sources report from more than one setup: counted from `setup_count`.
        self.multi_setup = multi_setup
        self.caveated = [note for note in self.notes if note.caveat]

    @classmethod
    def for_notes(cls, notes):
        notes = list(notes)
        rows = (
            Claim.objects.published()
            .filter(notes__in=notes)
            .values("evidence_status")
            .annotate(
                n=models.Count("id", distinct=True),
                multi=models.Count("id", filter=Q(setup_count__gt=1), distinct=True),
            )
        )
        rows = list(rows)
        return cls(
            notes,
            {row["evidence_status"]: row["n"] for row in rows},
            sum(row["multi"] for row in rows),
        )

    @property
    def items(self):
        """ "All three items", "Both items", "The one item"."""
        count = len(self.notes)
        if count == 1:
            return "The one item"
        if count == 2:
            return "Both items"
        return f"All {number_word(count)} items"

    @property
    def claim_count(self):
        return sum(self.status_counts.values())

    @property
    def reported(self):
        return self.status_counts.get(EvidenceStatus.REPORTED, 0)

    @property
    def reproduced(self):
        return self.status_counts.get(EvidenceStatus.REPRODUCED, 0)

    @property
    def contested(self):
        return self.status_counts.get(EvidenceStatus.CONTESTED, 0) + self.status_counts.get(
            EvidenceStatus.SUPERSEDED, 0
        )

    @property
    def all_reported(self):
        return bool(self.claim_count) and self.reported == self.claim_count


@dataclass
class QuarterBar:
    """One quarter of the evidence strip: its counts and the geometry of its two bars."""

    start: datetime.date
    claims: int
    papers: int
    x: int = 0
    claims_height: int = 0
    papers_height: int = 0
    baseline: int = 0

    @property
    def papers_x(self):
        return self.x + 1

    @property
    def claims_x(self):
        return self.x + 1 + EvidenceTimeline.BAR_WIDTH

    @property
    def papers_y(self):
        return self.baseline - self.papers_height

    @property
    def claims_y(self):
        return self.baseline - self.claims_height

    @property
    def label(self):
        return f"{self.start.year} Q{(self.start.month - 1) // 3 + 1}"


class EvidenceTimeline:
    """Claims (by the date they were reported) and papers (by publication date) on one layer,
    per quarter from the first quarter with either to the last, for a server-drawn SVG strip
    with the same figures as a table. The claims in one GROUP BY query, the papers from their
    stored counts (citations/stats/facet_counts.py); undated rows are counted apart."""

    BAR_WIDTH = 6
    QUARTER_WIDTH = 16
    HEIGHT = 64
    LABEL_SPACE = 14

    def __init__(self, claims_by_quarter, papers_by_quarter, undated_claims=0, undated_papers=0):
        self.undated_claims = undated_claims
        # Papers with no known quarter (a year alone, or no known date), counted apart.
        self.undated_papers = undated_papers
        quarters = sorted(set(claims_by_quarter) | set(papers_by_quarter))
        self.bars = []
        if quarters:
            current, last = quarters[0], quarters[-1]
            while current <= last:
                self.bars.append(
                    QuarterBar(
                        current,
                        claims_by_quarter.get(current, 0),
                        papers_by_quarter.get(current, 0),
                    )
                )
                month = current.month + 3
                current = datetime.date(current.year + (month > 12), (month - 1) % 12 + 1, 1)
        tallest = max([max(bar.claims, bar.papers) for bar in self.bars] or [0]) or 1
        for index, bar in enumerate(self.bars):
            bar.x = index * self.QUARTER_WIDTH
            bar.claims_height = round(bar.claims * self.HEIGHT / tallest)
            bar.papers_height = round(bar.papers * self.HEIGHT / tallest)
            bar.baseline = self.HEIGHT
        self.tallest = tallest

    @classmethod
    def for_layer(cls, layer):
        def per_quarter(queryset, quarter):
            rows = (
                queryset.annotate(quarter=quarter)
                .values("quarter")
                .annotate(n=models.Count("id", distinct=True))
                .order_by("quarter")
            )
            return {_as_date(row["quarter"]): row["n"] for row in rows}

        # A claim dated to a year alone, or not at all, has no quarter (citations/dates.py).
        claims = per_quarter(
            Claim.objects.published().filter(layers=layer),
            Case(
                When(known_quarter_q(*CLAIM_DATE), then=TruncQuarter("reported_on")),
                default=None,
                output_field=models.DateField(),
            ),
        )
        # Stored (citations/stats/facet_counts.py), with the layer's papers no quarter holds.
        papers, on_layer = layer_quarters_and_total(layer.pk)
        undated_claims = claims.pop(None, 0)
        undated_papers = on_layer - sum(papers.values())
        return cls(claims, papers, undated_claims=undated_claims, undated_papers=undated_papers)

    @property
    def width(self):
        return max(len(self.bars) * self.QUARTER_WIDTH, self.QUARTER_WIDTH)

    @property
    def view_height(self):
        return self.HEIGHT + self.LABEL_SPACE

    @property
    def total_claims(self):
        return sum(bar.claims for bar in self.bars)

    @property
    def total_papers(self):
        return sum(bar.papers for bar in self.bars)

    @property
    def year_marks(self):
        """The x of each year's first quarter, for the axis labels."""
        return [(bar.x, bar.start.year) for bar in self.bars if bar.start.month == 1]


def _as_date(value):
    return value.date() if isinstance(value, datetime.datetime) else value
