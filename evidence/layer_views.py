"""The Bottleneck Map: the analysis with its steps, and one page per layer."""

from django.db import models
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from bottlenecks.models import Analysis, Layer
from citations.models import Paper
from citations.stats.facet_counts import LAYER, PUBLIC, PaperFacetCount, stored_count
from core.pagination import paginate
from evidence.models import Claim
from notes.models import ResearchNote
from pagecache.caching import reads_query
from publishing.preview import render_item

LAYER_PAGE_SIZE = 20


def with_public_counts(layers):
    """`paper_count`, `claim_count` and `note_count`: the published ones on each layer (the
    papers' stored count: citations/stats/facet_counts.py)."""

    def published_on_layer(model):
        rows = model.objects.published().filter(layers=models.OuterRef("pk")).order_by()
        counted = rows.values("layers").annotate(n=models.Count("pk")).values("n")
        return Coalesce(models.Subquery(counted), 0)

    stored = PaperFacetCount.objects.filter(
        scope=PUBLIC, dimension=LAYER, value=models.OuterRef("pk")
    )
    return layers.annotate(
        paper_count=Coalesce(models.Subquery(stored.values("count")), 0),
        claim_count=published_on_layer(Claim),
        note_count=published_on_layer(ResearchNote),
    )


@reads_query()
@require_safe
def index(request):
    context = {
        "nav": "bottlenecks",
        "analysis": Analysis.objects.published().prefetch_related("steps").first(),
        "layers": with_public_counts(Layer.objects.published()),
    }
    return render(request, "bottlenecks/index.html", context)


@reads_query("page")
@require_safe
def layer_detail(request, slug):
    """A layer: how it fails, what to ask first, and the notes and papers that bear on it."""
    layer = get_object_or_404(Layer.objects.visible_to(request.user), slug=slug)
    context = {
        "nav": "bottlenecks",
        "layer": layer,
        "notes": ResearchNote.objects.published().filter(layers=layer),
        "page": paginate(
            request,
            Paper.objects.published().filter(layers=layer).newest_first(),
            LAYER_PAGE_SIZE,
            count=stored_count(PUBLIC, LAYER, layer.pk),
        ),
        "other_layers": Layer.objects.published().exclude(pk=layer.pk),
    }
    return render_item(request, "bottlenecks/layer_detail.html", context, layer)
