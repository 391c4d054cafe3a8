"""The diagnosis: from the failure signals a team observes to ranked layers, the tests that tell
them apart, the claims that bear on them, and a plan that changes one pressure at a time.

Scoring (deterministic, and explained on the page):
- Every published signal is linked to layers with a strength: 2 where it is the layer's own
  failure signal (primary), 1 where it is consistent with the layer too (supporting).
- A layer's score is the sum of the strengths of its links to the selected signals.
- Layers with a score are ranked by score, then by the number of primary matches, then in the
  framework's own order (Layer.order, then name). Layers no selected signal points to are not
  ranked.
- The setting (task family, model size, reward type) never changes the ranking: it orders the
  claims shown in step 3, those whose setup matches (or leaves the field open) first within
  each evidence status, and marks the others "different setup".
"""

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django import forms
from django.db.models import BooleanField, Case, Count, Prefetch, Q, Sum, Value, When

from citations.models import Paper

from .evidence import (
    SETTING_FIELDS,
    Claim,
    DiscriminatingTest,
    FailureSignal,
    SignalLayer,
)
from .models import Layer

TOP_LAYERS = 3  # how many competing bottlenecks steps 3 and 4 work with
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
        primary_links = SignalLayer.objects.filter(
            strength=SignalLayer.Strength.PRIMARY, layer__in=Layer.objects.published()
        ).select_related("layer")
        self.fields["signal"].queryset = FailureSignal.objects.published().prefetch_related(
            Prefetch("links", queryset=primary_links, to_attr="primary_links")
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
            [s.slug for s in signals if any(link.layer_id == layer.pk for link in s.primary_links)],
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


class Diagnosis:
    """One reader's selection (signals and setting) and everything computed from it."""

    def __init__(self, signals, setting=None):
        self.signals = list(signals)
        self.setting = {name: (setting or {}).get(name, "") for name in SETTING_FIELDS}

    @classmethod
    def from_form(cls, form):
        """The diagnosis of a valid DiagnosisForm, its signals in the order they are listed."""
        signals = form.cleaned_data["signal"] or []  # ordered as listed (Meta.ordering)
        return cls(signals, {name: form.cleaned_data[name] for name in SETTING_FIELDS})

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
            .annotate(
                score=Sum("signal_links__strength", filter=chosen),
                primary_matches=Count(
                    "signal_links",
                    filter=chosen & Q(signal_links__strength=SignalLayer.Strength.PRIMARY),
                ),
            )
            .order_by("-score", "-primary_matches", "order", "name")
        )
        ranked = [RankedLayer(layer, layer.score) for layer in layers]
        by_layer = {entry.layer.pk: entry for entry in ranked}
        links = SignalLayer.objects.filter(signal__in=self.signals, layer__in=list(by_layer))
        for link in links.order_by("signal__order", "signal__text"):
            entry = by_layer[link.layer_id]
            signal = next(signal for signal in self.signals if signal.pk == link.signal_id)
            if link.strength == SignalLayer.Strength.PRIMARY:
                entry.primary.append(signal)
            else:
                entry.supporting.append(signal)
        return ranked

    def top_layers(self):
        return [entry.layer for entry in self.ranked_layers()[:TOP_LAYERS]]

    # -- step 3 ------------------------------------------------------------------------

    def tests(self):
        """Published tests for the top layers: those that tell most of them apart first, then
        the cheapest."""
        if not hasattr(self, "_tests"):
            self._tests = self._find_tests()
        return self._tests

    def _find_tests(self):
        top = self.top_layers()
        return list(
            DiscriminatingTest.objects.published()
            .filter(pk__in=DiscriminatingTest.objects.filter(layers__in=top).values("pk"))
            .annotate(covered=Count("layers", filter=Q(layers__in=top), distinct=True))
            .order_by("-covered", "cost", "title")
            .prefetch_related(
                Prefetch("layers", queryset=Layer.objects.published()),
                Prefetch("claims", queryset=Claim.objects.published().by_evidence()),
                Prefetch("papers", queryset=Paper.objects.published()),
            )
        )

    def claims(self):
        """Published claims on the top layers, strongest evidence first; within a status,
        those whose setup matches the reader's setting first."""
        if not hasattr(self, "_claims"):
            top = self.top_layers()
            claims = Claim.objects.for_display().filter(
                pk__in=Claim.objects.filter(layers__in=top).values("pk")
            )
            if any(self.setting.values()):
                in_setting = Claim.objects.in_setting(**self.setting).values("pk")
                claims = claims.annotate(
                    in_setting=Case(
                        When(pk__in=in_setting, then=Value(True)),
                        default=Value(False),
                        output_field=BooleanField(),
                    )
                ).by_evidence("-in_setting")
            self._claims = list(claims)
        return self._claims

    # -- step 4 ------------------------------------------------------------------------

    def first_test(self):
        tests = self.tests()
        return tests[0] if tests else None

    def pressure(self):
        """The one layer to relieve first: the top-ranked one."""
        ranked = self.ranked_layers()
        return ranked[0] if ranked else None

    def fallbacks(self):
        """The other top layers, in order: where to look if relieving the first changes nothing."""
        return self.ranked_layers()[1:TOP_LAYERS]

    def plan_claims(self, limit=5):
        return self.claims()[:limit]
