"""The Bottleneck Map: the analysis with its steps, and one page per layer."""

from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from citations.facet_counts import LAYER, PUBLIC, stored_count
from citations.models import Paper
from notes.models import ResearchNote
from rlscaling.caching import reads_query
from rlscaling.pagination import paginate
from rlscaling.publishing.preview import render_item

from .models import Analysis, Layer

LAYER_PAGE_SIZE = 20


@reads_query()
@require_safe
def index(request):
    context = {
        "nav": "bottlenecks",
        "analysis": Analysis.objects.published().prefetch_related("steps").first(),
        "layers": Layer.objects.published().with_public_counts(),
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
