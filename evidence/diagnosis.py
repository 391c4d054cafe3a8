"""The diagnosis: from the failure signals a team observes to ranked layers, the test that tells
the top ones apart, the claims that bear on them, and a plan that follows its own test.

Scoring (deterministic, explained on the page and in docs/diagnosis.md):
- Every published signal is linked to layers with a strength: 2 where it is the layer's own
  failure signal (primary), 1 where it is consistent with the layer too (supporting).
- A layer's score is the sum of the strengths of its links to the selected signals. Layers no
  selected signal points to are not ranked.
- Layers are ranked by score, then by the number of primary matches, then (only when the reader
  gives a setting) by the published claims and result series (runs) in that setting on the
  layer. Layers equal on all of these are tied: they share a rank and the page says so. The
  framework's order is only the order in which tied layers are listed, never a rank.
- The contenders are the top rank when it holds two or more layers, else the top layer and the
  rank after it.

Test choice: a test can point only to the layers its written outcomes name. The chosen test is
the cheapest one that points to at least two contenders; among equally cheap ones, the one
written for more of the selected signals, then the one pointing to more contenders, then to
fewer layers outside the ranking, then to fewer outside the contenders, then to higher-ranked
ones, then by title (TEST_CRITERIA, also the page's words). The plan gives each of its
outcomes with what to do, and relieves only a layer an outcome points to; when no written test
separates two contenders, it says so.

Evidence under a test: the claims and runs its editors linked (overrides, first), then the
published claims and public runs on the layers it can point to. A run bears on its paper's
layers and on those of the published claims its points carry.
"""

import copy
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django import forms
from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    Count,
    ExpressionWrapper,
    F,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, Collate, RowNumber

from bottlenecks.models import Layer
from citations.models import Paper
from evidence.models import (
    SETTING_FIELDS,
    Claim,
    DiscriminatingTest,
    EvidenceStatus,
    FailureSignal,
    SignalLayer,
    TestOutcome,
)
from results.models import Result, Series

EVIDENCE_PER_TEST = 5  # matched claims shown under a test, after the editors' own links
RUNS_PER_TEST = 5  # matched runs shown under a test, after the editors' own links
# Runs on the contenders listed on step 3, the closest first; every run on a layer is on the
# results page (`/results/?layer=`), so a layer with thousands of runs costs a page, not all.
RUNS_LISTED = 20
EVIDENCE_ORDER = [*EvidenceStatus.values]
# What the ranking and the test choice compare, in order, as the page states it ("How the
# ranking, ties and the test are decided"). The code builds its sort keys from the same names
# (RankedLayer.criteria, Diagnosis.test_criteria), and a test holds the two together.
RANKING_CRITERIA = (
    ("score", "the score: the sum of the weights of your signals' links to the layer"),
    (
        "primary_matches",
        "how many of your signals are the layer's own failure signal",
    ),
    (
        "setting_evidence",
        "only when you give a setting: how many published claims and runs in that setting bear "
        "on the layer (one counts when it matches at least one of your choices exactly and "
        "contradicts none)",
    ),
)
TEST_CRITERIA = (
    ("separates", "it can point to at least two contenders (the plan takes no other)"),
    ("cost", "it is cheaper (cheap, then moderate, then expensive)"),
    ("written_for", "it is written for more of the signals you picked"),
    ("contenders", "it can point to more contenders"),
    ("outside_ranking", "it can point to fewer layers outside the ranking"),
    ("outside_contenders", "it can point to fewer layers outside the contenders"),
    ("rank", "the contenders it can point to rank higher"),
    ("title", "its title, alphabetically"),
)
STEPS = [
    ("diagnose", "State the plateau"),
    ("diagnose-layers", "List competing bottlenecks"),
    ("diagnose-tests", "Choose a discriminating test"),
    ("diagnose-plan", "Change one pressure at a time"),
]


class SignalChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, signal):
        return signal.text

    def show_read(self, signals):
        """List `signals`, a queryset already read, as they are: the `queryset` setter would
        clone it (`.all()`) and read it again."""
        self._queryset = signals
        self.widget.choices = self.choices


class DiagnosisForm(forms.Form):
    """Step 1, as GET parameters: `signal` (repeatable, slugs) and the optional setting."""

    signal = SignalChoiceField(
        queryset=FailureSignal.objects.none(),
        required=False,
        to_field_name="slug",
        widget=forms.CheckboxSelectMultiple,
        label="What do you observe?",
        error_messages={
            "required": "Pick at least one signal you observe.",
            "invalid_choice": "“%(value)s” is not one of the signals.",
        },
    )
    task_family = forms.ChoiceField(required=False, label="Task family")
    model_size = forms.ChoiceField(required=False, label="Model size")
    reward_type = forms.ChoiceField(required=False, label="Reward type")

    layer = forms.ModelChoiceField(
        queryset=Layer.objects.none(),
        to_field_name="slug",
        required=False,
        widget=forms.HiddenInput,
        error_messages={"invalid_choice": "There is no such layer."},
    )

    def __init__(self, *args, require_signals=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.require_signals = require_signals
        layer_links = (
            SignalLayer.objects.filter(layer__in=Layer.objects.published())
            .select_related("layer")
            .order_by("-strength", "layer__order", "layer__name")
        )
        self.fields["signal"].queryset = FailureSignal.objects.published().prefetch_related(
            Prefetch("links", queryset=layer_links, to_attr="layer_links")
        )
        self.fields["layer"].queryset = Layer.objects.published()
        for name, choices in SETTING_FIELDS.items():
            self.fields[name].choices = [("", "Any"), *choices.choices]

    def clean(self):
        cleaned_data = super().clean()
        if self.require_signals and not cleaned_data.get("signal"):
            self.add_error("signal", self.fields["signal"].error_messages["required"])
        return cleaned_data

    def with_layer_signals(self):
        """Step 1 opened from a layer (`?layer=compute`, the home page's links): the same form
        with that layer's own failure signals ticked, when nothing else is."""
        layer = self.cleaned_data.get("layer")
        if layer is None or self.cleaned_data.get("signal"):
            return self
        signals = self.fields["signal"].queryset  # read here, and kept: the form shows them
        data = self.data.copy()
        data.setlist(
            "signal",
            [
                s.slug
                for s in signals
                if any(
                    link.layer_id == layer.pk and link.strength == SignalLayer.Strength.PRIMARY
                    for link in s.layer_links
                )
            ],
        )
        form = type(self)(data)
        form.fields["signal"].show_read(signals)
        return form


@dataclass
class RankedLayer:
    """A layer with its score and the signals that earned it, for "why it ranks here"."""

    layer: Layer
    score: int
    primary: list = field(default_factory=list)
    supporting: list = field(default_factory=list)
    setting_claims: int = 0  # published claims in the reader's setting on this layer
    setting_runs: int = 0  # public runs in the reader's setting on this layer
    rank: int = 0  # shared by tied layers
    tied: bool = False

    @property
    def setting_evidence(self):
        return self.setting_claims + self.setting_runs

    def criteria(self):
        """The values it is ranked by, named as in RANKING_CRITERIA, highest first."""
        return {
            "score": self.score,
            "primary_matches": len(self.primary),
            "setting_evidence": self.setting_evidence,
        }

    @property
    def key(self):
        return tuple(self.criteria().values())


@dataclass
class DescribedSignal:
    """A selected signal with the ranked layers it points to and the editors' why."""

    signal: FailureSignal
    primary: list = field(default_factory=list)
    supporting: list = field(default_factory=list)

    @property
    def why(self):
        return self.signal.why


@dataclass
class Tier:
    """Layers sharing one rank."""

    rank: int
    entries: list

    @property
    def tied(self):
        return len(self.entries) > 1

    @property
    def score(self):
        return self.entries[0].score

    @property
    def layers(self):
        return [entry.layer for entry in self.entries]


@dataclass
class Outcome:
    """One outcome of the chosen test, as the plan states it."""

    observation: str
    action: str
    layer: Layer | None = None
    contender: bool = False


def _names(layers):
    names = [layer.name for layer in layers]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _counted(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def runs_on_layers(layer_ids, runs=None):
    """{run id: the ids among `layer_ids` of the layers it bears on} for public runs (or
    those of `runs`, a Series queryset): a run bears on its paper's layers and on those of the
    published claims its points carry. One query."""
    runs = Series.objects.public() if runs is None else runs
    by_paper = runs.filter(paper__layers__in=layer_ids).values_list("pk", "paper__layers")
    on_layers = {}
    for run_id, layer_id in by_paper.order_by().union(carried_by_claims(layer_ids, runs)):
        if layer_id in layer_ids:
            on_layers.setdefault(run_id, set()).add(layer_id)
    return on_layers


def carried_by_claims(layer_ids, runs):
    """(run id, layer id) of the `runs` whose points a published claim on one of `layer_ids`
    carries, unordered, for a union."""
    return (
        Claim.objects.published()
        .filter(layers__in=layer_ids, results__series__in=runs.values("pk"))
        .values_list("results__series", "layers")
        .order_by()
    )


def setting_expressions(setting):
    """`setting_match` in SQL over a run's columns: (contradicts, closeness), or None when
    no setting field is chosen."""
    chosen = [(name, value) for name, value in setting.items() if value]
    if not chosen:
        return None
    contradicts, closeness = Q(), Value(0)
    for name, value in chosen:
        contradicts |= ~Q(**{name: value}) & ~Q(**{name: ""})
        closeness = closeness + Case(When(**{name: value}, then=Value(1)), default=Value(0))
    return ExpressionWrapper(contradicts, output_field=BooleanField()), closeness


def run_order(setting):
    """`Diagnosis._run_key` in SQL. Names compare by code point, as Python compares them."""
    points = Subquery(
        Result.objects.filter(series=OuterRef("pk"))
        .order_by()
        .values("series")
        .annotate(n=Count("pk"))
        .values("n")
    )
    name = Collate("name", "C") if connection.vendor == "postgresql" else F("name")
    order = [ExpressionWrapper(Q(checked_at__isnull=True), output_field=BooleanField()).asc()]
    if expressions := setting_expressions(setting):
        contradicts, closeness = expressions
        order = [contradicts.asc(), *order, closeness.desc()]
    return [*order, Coalesce(points, 0).desc(), name.asc(), F("pk").asc()]


def first_runs_on_layers(layer_ids, setting, per_layer):
    """{run id: the ids among `layer_ids` of the layers it is read for}: on each layer, the
    first `per_layer` public runs whose paper is on it, in the evidence order, and every public
    run a published claim on it carries. One query, however many runs a layer has.

    The order does not depend on the layer, so the first runs on any set of these layers are
    among those read, each with at least one of its layers in the set."""
    public = Series.objects.public()
    first = (
        public.filter(paper__layers__in=layer_ids)
        .annotate(
            place=Window(RowNumber(), partition_by=F("paper__layers"), order_by=run_order(setting))
        )
        .filter(place__lte=per_layer)
        .values_list("pk", "paper__layers")
        .order_by()
    )
    on_layers = {}
    for run_id, layer_id in first.union(carried_by_claims(layer_ids, public)):
        if layer_id in layer_ids:
            on_layers.setdefault(run_id, set()).add(layer_id)
    return on_layers


def _tiers(entries, key):
    tiers = []
    for entry in entries:
        if tiers and key(tiers[-1].entries[0]) == key(entry):
            tiers[-1].entries.append(entry)
        else:
            tiers.append(Tier(len(tiers) + 1, [entry]))
    return tiers


def setting_match(finding, setting):
    """(contradicts, closeness): whether a chosen setting field is set otherwise on the finding
    (a claim or a run), and how many chosen fields it matches exactly."""
    contradicts, closeness = False, 0
    for name, value in setting.items():
        if not value:
            continue
        own = getattr(finding, name)
        if own == value:
            closeness += 1
        elif own:
            contradicts = True
    return contradicts, closeness


class Diagnosis:
    """One reader's selection (signals and setting) and everything computed from it."""

    ranking_criteria = RANKING_CRITERIA
    test_criteria_text = TEST_CRITERIA

    def __init__(self, signals, setting=None):
        self.signals = list(signals)
        self.setting = {name: (setting or {}).get(name, "") for name in SETTING_FIELDS}

    @classmethod
    def from_form(cls, form):
        """The diagnosis of a valid DiagnosisForm, its signals in the order they are listed."""
        signals = form.cleaned_data["signal"] or []  # ordered as listed (Meta.ordering)
        return cls(signals, {name: form.cleaned_data[name] for name in SETTING_FIELDS})

    @property
    def has_setting(self):
        return any(self.setting.values())

    # -- the stable URL ------------------------------------------------------------------

    def query_string(self):
        """The selection as a query string: signals in listing order, then the setting in a
        fixed order, empty values left out. Step 1's GET form produces the same string."""
        pairs = [("signal", signal.slug) for signal in self.signals]
        pairs += [(name, value) for name, value in self.setting.items() if value]
        return urlencode(pairs)

    def setting_labels(self):
        return [
            (SETTING_FIELDS[name](value).label) for name, value in self.setting.items() if value
        ]

    # -- step 2 ------------------------------------------------------------------------

    def ranked_layers(self):
        if not hasattr(self, "_ranked"):
            self._ranked = self._rank()
        return self._ranked

    def _rank(self):
        chosen = Q(signal_links__signal__in=self.signals)
        layers = (
            Layer.objects.published()
            .filter(chosen)
            .annotate(score=Sum("signal_links__strength", filter=chosen))
            .order_by("-score", "order", "name")
        )
        ranked = [RankedLayer(layer, layer.score) for layer in layers]
        by_layer = {entry.layer.pk: entry for entry in ranked}
        described = {signal.pk: DescribedSignal(signal) for signal in self.signals}
        links = SignalLayer.objects.filter(signal__in=self.signals, layer__in=list(by_layer))
        for link in links.order_by("signal__order", "signal__text", "layer__order", "layer__name"):
            entry = by_layer[link.layer_id]
            signal = described[link.signal_id]
            if link.strength == SignalLayer.Strength.PRIMARY:
                entry.primary.append(signal.signal)
                signal.primary.append(entry.layer)
            else:
                entry.supporting.append(signal.signal)
                signal.supporting.append(entry.layer)
        self._described = list(described.values())
        if self.has_setting and ranked:
            for layer_id, count in self._setting_claim_counts(list(by_layer)).items():
                by_layer[layer_id].setting_claims = count
            for layer_id, count in self._setting_run_counts(set(by_layer)).items():
                by_layer[layer_id].setting_runs = count
        # Stable sort: within equal keys the framework's order only lists them.
        ranked.sort(key=lambda entry: entry.key, reverse=True)
        for tier in _tiers(ranked, lambda entry: entry.key):
            for entry in tier.entries:
                entry.rank, entry.tied = tier.rank, tier.tied
        return ranked

    def _setting_claim_counts(self, layer_ids):
        """Published claims per layer that match at least one chosen setting field exactly
        and contradict none: the evidence in the reader's setting."""
        exact = Q()
        for name, value in self.setting.items():
            if value:
                exact |= Q(**{name: value})
        rows = (
            Claim.objects.published()
            .in_setting(**self.setting)
            .filter(exact, layers__in=layer_ids)
            .values("layers")
            .annotate(n=Count("id", distinct=True))
            .order_by()
        )
        return {row["layers"]: row["n"] for row in rows}

    def _setting_run_counts(self, layer_ids):
        """Public runs per layer that match at least one chosen setting field exactly and
        contradict none, counted as claims are (`_setting_claim_counts`)."""
        contradicts, closeness = setting_expressions(self.setting)
        in_setting = (
            Series.objects.public()
            .alias(contradicts=contradicts, closeness=closeness)
            .filter(contradicts=False, closeness__gt=0)
        )
        on_layers = runs_on_layers(layer_ids, in_setting)
        counts = {}
        for layers in on_layers.values():
            for layer_id in layers:
                counts[layer_id] = counts.get(layer_id, 0) + 1
        return counts

    def described_signals(self):
        """The selected signals, each with the published layers it points to (its own failure
        signal first, then those it is consistent with) and why, read with the ranking."""
        self.ranked_layers()
        return self._described

    def tiers(self):
        return _tiers(self.ranked_layers(), lambda entry: entry.rank)

    def top_tier(self):
        tiers = self.tiers()
        return tiers[0] if tiers else None

    def setting_effect(self):
        """How the setting changed the ranking: for each group of layers tied on the signals
        that the claims in the setting split, a sentence saying so. Empty when it changed
        nothing."""
        if not self.has_setting:
            return []
        sentences = []
        by_signals = _tiers(self.ranked_layers(), lambda entry: entry.key[:2])
        for group in by_signals:
            counts = {entry.setting_evidence for entry in group.entries}
            if len(counts) < 2:
                continue
            parts = [
                f"{entry.layer.name} {_counted(entry.setting_claims, 'claim')} and "
                f"{_counted(entry.setting_runs, 'run')}"
                for entry in group.entries
            ]
            listed = sorted(group.layers, key=lambda layer: (layer.order, layer.name))
            sentences.append(
                f"On your signals alone, {_names(listed)} are tied at score "
                f"{group.score}. Your setting ranks them by the published claims and runs "
                f"in it: {', '.join(parts)}."
            )
        return sentences

    def top_layers(self):
        """The contenders steps 3 and 4 work with: the top rank when it is a tie, else the
        top layer and the rank after it."""
        tiers = self.tiers()
        if not tiers:
            return []
        contenders = list(tiers[0].layers)
        if len(contenders) == 1 and len(tiers) > 1:
            contenders += tiers[1].layers
        return contenders

    # -- step 3 ------------------------------------------------------------------------

    def tests(self):
        """Published tests that point to a contender, ordered by TEST_CRITERIA: those that
        separate two or more contenders first, the plan's test among them."""
        if not hasattr(self, "_tests"):
            self._tests = self._find_tests()
        return self._tests

    def _find_tests(self):
        top = self.top_layers()
        if not top:
            return []
        top_ids = [layer.pk for layer in top]
        tests = list(
            DiscriminatingTest.objects.published()
            .filter(
                pk__in=DiscriminatingTest.objects.filter(
                    Q(layers__in=top_ids) | Q(outcomes__layer__in=top_ids)
                ).values("pk")
            )
            .annotate(
                written_for=Count("signals", filter=Q(signals__in=self.signals), distinct=True)
            )
            .prefetch_related(
                Prefetch(
                    "outcomes",
                    queryset=TestOutcome.objects.filter(
                        Q(layer__isnull=True) | Q(layer__in=Layer.objects.published())
                    ).select_related("layer"),
                    to_attr="all_outcomes",
                ),
                Prefetch("papers", queryset=Paper.objects.published(), to_attr="linked_papers"),
            )
        )
        for test in tests:
            test.points_to = [o.layer for o in test.all_outcomes if o.layer is not None]
            test.points_to = list({layer.pk: layer for layer in test.points_to}.values())
            test.separates = [layer for layer in top if layer in test.points_to]
        tests.sort(key=lambda test: tuple(self.test_criteria(test).values()))
        self._attach_evidence(tests)
        return tests

    def test_criteria(self, test):
        """What a test is ordered by, named as in TEST_CRITERIA, smallest first."""
        top_ids = [layer.pk for layer in self.top_layers()]
        ranked = {entry.layer.pk for entry in self.ranked_layers()}
        return {
            "separates": len(test.separates) < 2,
            "cost": test.cost,
            "written_for": -test.written_for,
            "contenders": -len(test.separates),
            "outside_ranking": len([x for x in test.points_to if x.pk not in ranked]),
            "outside_contenders": len(test.points_to) - len(test.separates),
            "rank": [top_ids.index(layer.pk) for layer in test.separates],
            "title": test.title,
        }

    def _load_claims(self, layer_ids, extra_ids=()):
        """Published claims on `layer_ids` (and those in `extra_ids`), ready for display, each
        with the set of its layers (`layer_ids`) among those asked for. One query reads which
        claims are on which layers; `for_display()` reads the rest."""
        through = Claim.layers.through.objects.filter(layer_id__in=layer_ids)
        on_layers = {}
        for claim_id, layer_id in through.values_list("claim_id", "layer_id"):
            on_layers.setdefault(claim_id, set()).add(layer_id)
        claims = list(Claim.objects.for_display().filter(pk__in={*on_layers, *extra_ids}))
        for claim in claims:
            claim.layer_ids = on_layers.get(claim.pk, set())
        return claims

    def _load_runs(self, layer_ids, extra_ids=(), per_layer=RUNS_LISTED):
        """The runs `first_runs_on_layers` reads, and those in `extra_ids`, ready for display,
        each with the set of its layers it was read for: a bounded number of rows, in two
        queries, however many runs there are."""
        on_layers = first_runs_on_layers(set(layer_ids), self.setting, per_layer)
        own = [field.name for field in Series._meta.concrete_fields]
        runs = list(
            Series.objects.public()
            .filter(pk__in={*on_layers, *extra_ids})
            .select_related("benchmark", "paper")
            .only(
                *own,
                "benchmark__slug",
                "benchmark__name",
                *(f"paper__{name}" for name in ("slug", "title", "arxiv_id", "doi", "url")),
            )
            .annotate(points_count=Count("points"))
            .order_by("pk")
        )
        for run in runs:
            run.layer_ids = on_layers.get(run.pk, set())
            run.has_source_on_record = run.paper.has_source
        return runs

    def _attach_evidence(self, tests):
        """Each test's evidence: the claims and runs its editors linked (kept as overrides,
        first), then the published claims and public runs on the layers it can point to, in
        the reader's setting first, then strongest and closest. The contenders' claims and
        runs (step 3) are read in the same go."""
        layer_ids = {layer.pk for test in tests for layer in test.points_to}
        layer_ids |= {layer.pk for layer in self.top_layers()}
        self._attach_runs(tests, layer_ids)
        links = DiscriminatingTest.claims.through.objects.filter(
            discriminatingtest_id__in=[test.pk for test in tests]
        ).values_list("discriminatingtest_id", "claim_id")
        linked_ids = {}
        for test_id, claim_id in links:
            linked_ids.setdefault(test_id, []).append(claim_id)
        claims = self._load_claims(layer_ids, {c for ids in linked_ids.values() for c in ids})
        self._read_claims = claims
        by_pk = {claim.pk: claim for claim in claims}
        for test in tests:
            pointed = {layer.pk for layer in test.points_to}
            ids = [pk for pk in linked_ids.get(test.pk, []) if pk in by_pk]
            linked = sorted((self._place(by_pk[pk]) for pk in ids), key=self._evidence_key)
            found = sorted(
                (
                    self._place(claim)
                    for claim in claims
                    if claim.layer_ids & pointed and claim.pk not in ids
                ),
                key=self._evidence_key,
            )[:EVIDENCE_PER_TEST]
            # Copies: the same claim can be an editors' link under one test and not another.
            test.evidence = [copy.copy(claim) for claim in linked + found]
            for claim in test.evidence[: len(linked)]:
                claim.linked_by_editors = True

    def _attach_runs(self, tests, layer_ids):
        """Each test's runs, as its claims: the editors' links first, then the runs on the
        layers it can point to, in the reader's setting first, then those checked against
        their paper, then the closest setting, then those with more points."""
        links = DiscriminatingTest.series.through.objects.filter(
            discriminatingtest_id__in=[test.pk for test in tests]
        ).values_list("discriminatingtest_id", "series_id")
        linked_ids = {}
        for test_id, run_id in links:
            linked_ids.setdefault(test_id, []).append(run_id)
        # A test's first runs leave out its editors' links, so each layer gives as many more.
        most_linked = max((len(ids) for ids in linked_ids.values()), default=0)
        runs = self._load_runs(
            layer_ids,
            {r for ids in linked_ids.values() for r in ids},
            per_layer=max(RUNS_LISTED, RUNS_PER_TEST + most_linked),
        )
        self._read_runs = runs
        by_pk = {run.pk: run for run in runs}
        for test in tests:
            pointed = {layer.pk for layer in test.points_to}
            ids = [pk for pk in linked_ids.get(test.pk, []) if pk in by_pk]
            linked = sorted((self._place(by_pk[pk]) for pk in ids), key=self._run_key)
            found = sorted(
                (self._place(run) for run in runs if run.layer_ids & pointed and run.pk not in ids),
                key=self._run_key,
            )[:RUNS_PER_TEST]
            test.runs = [copy.copy(run) for run in linked + found]
            for run in test.runs[: len(linked)]:
                run.linked_by_editors = True

    def _place(self, finding):
        """Mark a claim or a run with how it stands to the reader's setting."""
        contradicts, closeness = setting_match(finding, self.setting)
        finding.in_setting = (not contradicts) if self.has_setting else None
        finding.closeness = closeness
        finding.linked_by_editors = False
        return finding

    @staticmethod
    def _run_key(run):
        return (
            run.in_setting is False,
            run.checked_at is None,
            -run.closeness,
            -run.points_count,
            run.name,
            run.pk,
        )

    @staticmethod
    def _evidence_key(claim):
        return (
            claim.in_setting is False,
            EVIDENCE_ORDER.index(claim.evidence_status),
            -claim.closeness,
            -(claim.reported_on.toordinal() if claim.reported_on else 0),
            claim.pk,
        )

    def claims(self):
        """Published claims on the contenders, those in the reader's setting first, then
        strongest evidence, then closest setting."""
        if not hasattr(self, "_claims"):
            top = {layer.pk for layer in self.top_layers()}
            self.tests()  # reads the contenders' claims with the tests' evidence
            read = getattr(self, "_read_claims", None)
            if read is None:
                read = self._load_claims(top)
            self._claims = sorted(
                (self._place(claim) for claim in read if claim.layer_ids & top),
                key=self._evidence_key,
            )
        return self._claims

    def runs(self):
        """The first RUNS_LISTED public runs on the contenders, ordered as a test's runs
        (`_attach_runs`)."""
        if not hasattr(self, "_runs"):
            top = {layer.pk for layer in self.top_layers()}
            self.tests()  # reads the contenders' runs with the tests' evidence
            read = getattr(self, "_read_runs", None)
            if read is None:
                read = self._load_runs(top)
            self._runs = sorted(
                (self._place(run) for run in read if run.layer_ids & top), key=self._run_key
            )[:RUNS_LISTED]
        return self._runs

    # -- step 4 ------------------------------------------------------------------------

    def first_test(self):
        """The plan's test: the cheapest that separates two or more contenders, or None."""
        tests = self.tests()
        if tests and len(tests[0].separates) >= 2:
            return tests[0]
        return None

    def no_test_reason(self):
        """Why the plan has no test, in a sentence; empty when it has one."""
        top = self.top_layers()
        if self.first_test() is not None or not top:
            return ""
        if len(top) == 1:
            return (
                f"Only {top[0].name} is ranked, so there is nothing to tell apart: confirm it "
                "with its diagnostic question before changing it."
            )
        return f"No written test separates {_names(top)}: no test here can point to two of them."

    def outcomes(self):
        """The chosen test's outcomes, each with what to do; then, if the test cannot point
        to every contender, what its outcomes leave open."""
        test = self.first_test()
        if test is None:
            return []
        contenders = {layer.pk for layer in self.top_layers()}
        outcomes = [
            Outcome(
                outcome.observation, outcome.action, outcome.layer, outcome.layer_id in contenders
            )
            for outcome in test.all_outcomes
        ]
        return outcomes

    def relieve(self):
        """The layers the plan may tell the team to relieve: those the test can point to."""
        return [outcome.layer for outcome in self.outcomes() if outcome.layer is not None]

    def untested(self):
        """Contenders the chosen test cannot point to, and the next test that separates them
        (None when no written test does)."""
        test = self.first_test()
        if test is None:
            return [], None
        pointed = {layer.pk for layer in test.points_to}
        left = [layer for layer in self.top_layers() if layer.pk not in pointed]
        if len(left) < 2:
            return left, None
        left_ids = {layer.pk for layer in left}
        for other in self.tests():
            if other is not test and len([x for x in other.points_to if x.pk in left_ids]) >= 2:
                return left, other
        return left, None

    def plan_claims(self, limit=5):
        test = self.first_test()
        if test is not None:
            return test.evidence[:limit]
        return self.claims()[:limit]

    def plan_runs(self, limit=RUNS_PER_TEST):
        test = self.first_test()
        if test is not None:
            return test.runs[:limit]
        return self.runs()[:limit]

    # -- export ------------------------------------------------------------------------

    def as_data(self, absolute):
        """The plan as plain data for the JSON export; `absolute` turns a path into a URL."""

        def layer_data(layer):
            return {
                "slug": layer.slug,
                "name": layer.name,
                "url": absolute(layer.get_absolute_url()),
            }

        def claim_data(claim):
            return {
                "statement": claim.statement,
                "figure": claim.figure,
                "unit": claim.unit,
                "evidence_status": claim.evidence_status,
                "setups": claim.setup_count,
                "url": absolute(claim.get_absolute_url()),
                "in_setting": claim.in_setting,
                "linked_by_editors": claim.linked_by_editors,
                "source_on_record": claim.has_source_on_record,
                "papers": [
                    {
                        "title": paper.title,
                        "url": absolute(paper.get_absolute_url()),
                        "arxiv_id": paper.arxiv_id or None,
                        "doi": paper.doi or None,
                        "source_url": paper.url or None,
                    }
                    for paper in claim.published_papers
                ],
            }

        def run_data(run):
            return {
                "name": run.name,
                "url": absolute(run.get_absolute_url()),
                "benchmark": {
                    "name": run.benchmark.name,
                    "url": absolute(run.benchmark.get_absolute_url()),
                },
                "setting": {name: getattr(run, name) or None for name in SETTING_FIELDS},
                "points": run.points_count,
                "checked_against_paper": run.checked_at is not None,
                "in_setting": run.in_setting,
                "linked_by_editors": run.linked_by_editors,
                "source_on_record": run.has_source_on_record,
                "paper": {
                    "title": run.paper.title,
                    "url": absolute(run.paper.get_absolute_url()),
                    "arxiv_id": run.paper.arxiv_id or None,
                    "doi": run.paper.doi or None,
                    "source_url": run.paper.url or None,
                },
            }

        test = self.first_test()
        left, next_test = self.untested()
        return {
            "signals": [
                {
                    "slug": described.signal.slug,
                    "text": described.signal.text,
                    "primary": [layer.slug for layer in described.primary],
                    "supporting": [layer.slug for layer in described.supporting],
                    "why": described.why or None,
                }
                for described in self.described_signals()
            ],
            "setting": {name: value or None for name, value in self.setting.items()},
            "ranking": [
                {
                    **layer_data(entry.layer),
                    "rank": entry.rank,
                    "tied": entry.tied,
                    "score": entry.score,
                    "primary_matches": len(entry.primary),
                    "setting_claims": entry.setting_claims if self.has_setting else None,
                    "setting_runs": entry.setting_runs if self.has_setting else None,
                    "diagnostic_question": entry.layer.diagnostic_question,
                }
                for entry in self.ranked_layers()
            ],
            "top_tied": bool(self.top_tier() and self.top_tier().tied),
            "contenders": [layer.slug for layer in self.top_layers()],
            "setting_effect": self.setting_effect(),
            "test": None
            if test is None
            else {
                "slug": test.slug,
                "title": test.title,
                "cost": test.get_cost_display(),
                "procedure": test.procedure,
                "points_to": [layer.slug for layer in test.points_to],
                "outcomes": [
                    {
                        "if": outcome.observation,
                        "points_to": outcome.layer.slug if outcome.layer else None,
                        "then": outcome.action,
                    }
                    for outcome in self.outcomes()
                ],
                "not_tested": [layer.slug for layer in left],
                "next_test": next_test.slug if next_test else None,
            },
            "no_test_reason": self.no_test_reason() or None,
            "relieve_only_one_of": [layer.slug for layer in self.relieve()],
            "evidence": [claim_data(claim) for claim in self.plan_claims()],
            "runs": [run_data(run) for run in self.plan_runs()],
        }
