from django.db import models
from django.urls import reverse
from simple_history.models import HistoricalRecords

from publishing.models import Publishable, PublishableQuerySet


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
    pass


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

    # Recorded with each history entry and restored on revert (publishing/history.py).
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
