from django.db import models
from django.db.models.functions import Coalesce
from django.urls import reverse
from simple_history.models import HistoricalRecords

from rlscaling.publishing import Publishable, PublishableQuerySet


class OrderedPublishable(Publishable):
    """A framework item shown in an editor-chosen order."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0, db_index=True)

    class Meta(Publishable.Meta):
        abstract = True
        ordering = ["order", "name"]

    def __str__(self):
        return self.name


class Dimension(OrderedPublishable):
    """One of the six coupled dimensions along which an RL system grows."""

    class Meta(OrderedPublishable.Meta):
        pass


class LoopStage(OrderedPublishable):
    """A stage of the learning loop: Environment, Rollouts, Rewards, Optimization, Evaluation."""

    class Meta(OrderedPublishable.Meta):
        verbose_name = "loop stage"


class LayerQuerySet(PublishableQuerySet):
    def with_public_counts(self):
        """`paper_count`, `claim_count` and `note_count`: the published ones on each layer
        (the papers' stored count: citations/facet_counts.py)."""
        from citations.facet_counts import LAYER, PUBLIC, PaperFacetCount
        from notes.models import ResearchNote

        def published_on_layer(model):
            rows = model.objects.published().filter(layers=models.OuterRef("pk")).order_by()
            counted = rows.values("layers").annotate(n=models.Count("pk")).values("n")
            return Coalesce(models.Subquery(counted), 0)

        stored = PaperFacetCount.objects.filter(
            scope=PUBLIC, dimension=LAYER, value=models.OuterRef("pk")
        )
        return self.annotate(
            paper_count=Coalesce(models.Subquery(stored.values("count")), 0),
            claim_count=published_on_layer(Claim),  # imported below the models
            note_count=published_on_layer(ResearchNote),
        )

    def publish(self):
        return self._recounting_papers(super().publish)

    def unpublish(self):
        return self._recounting_papers(super().unpublish)

    def _recounting_papers(self, change):
        """A layer that appears or disappears moves the stored "no layer" count of its papers."""
        from citations.facet_counts import recount_layer_papers

        layers = list(self.values_list("pk", flat=True))
        changed = change()
        recount_layer_papers(layers)
        return changed


class Layer(OrderedPublishable):
    """A row of "where scaling breaks": the layer, how it fails, and what to ask first."""

    failure_signal = models.TextField()
    diagnostic_question = models.TextField()

    objects = LayerQuerySet.as_manager()

    class Meta(OrderedPublishable.Meta):
        pass

    def get_absolute_url(self):
        return reverse("bottlenecks:layer-detail", kwargs={"slug": self.slug})


class Analysis(Publishable):
    """A long-form analysis such as "The RL Scaling Bottleneck Map", with ordered steps."""

    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    eyebrow = models.CharField(max_length=100, blank=True, help_text='e.g. "A working framework"')
    number = models.CharField(max_length=10, blank=True, help_text='Series number, e.g. "001"')
    dek = models.TextField(help_text="One-paragraph standfirst shown on cards.")
    body = models.TextField(blank=True, help_text="Markdown.")

    # Recorded with each history entry and restored on revert (rlscaling/publishing/history.py).
    history_children = ("steps",)

    class Meta(Publishable.Meta):
        verbose_name_plural = "analyses"
        ordering = ["number", "title"]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("bottlenecks:index")


class AnalysisStep(models.Model):
    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="steps")
    order = models.PositiveSmallIntegerField(default=0)
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True, help_text="Markdown.")

    history = HistoricalRecords()

    class Meta:
        ordering = ["order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["analysis", "order"], name="unique_step_order")
        ]

    def __str__(self):
        return f"{self.order:02d} {self.title}"


# Claims, failure signals and discriminating tests live in their own module.
from bottlenecks.evidence import (  # noqa: E402, F401
    Claim,
    DiscriminatingTest,
    FailureSignal,
    SignalLayer,
)
