"""The editor-managed terms an edge is classified with: citation roles and polarities."""

from django.db import models
from simple_history.models import HistoricalRecords


class Vocabulary(models.Model):
    """An editor-managed term such as a citation role or polarity."""

    name = models.CharField(max_length=60, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    description = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    history = HistoricalRecords(inherit=True)

    class Meta:
        abstract = True
        ordering = ["order", "name"]

    def __str__(self):
        return self.name


class CitationRole(Vocabulary):
    """Why a paper is cited: background, method, comparison, extension, ..."""

    class Meta(Vocabulary.Meta):
        verbose_name = "citation role"


class CitationPolarity(Vocabulary):
    """How the citing paper stands towards the cited one: supporting, contrasting, neutral."""

    class Meta(Vocabulary.Meta):
        verbose_name = "citation polarity"
        verbose_name_plural = "citation polarities"


def citation_vocabularies():
    """(roles, polarities): every term of both vocabularies, read in one query."""
    columns = ("axis", "pk", "name", "slug", "order")

    def terms(model, axis):
        return model.objects.annotate(axis=models.Value(axis)).values_list(*columns).order_by()

    roles, polarities = [], []
    rows = terms(CitationRole, "role").union(terms(CitationPolarity, "polarity"))
    for axis, pk, name, slug, order in sorted(rows, key=lambda row: (row[4], row[2])):
        if axis == "role":
            roles.append(CitationRole(pk=pk, name=name, slug=slug, order=order))
        else:
            polarities.append(CitationPolarity(pk=pk, name=name, slug=slug, order=order))
    return roles, polarities
