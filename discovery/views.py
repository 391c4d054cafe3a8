"""A paper's neighbourhood graph: the page, and its JSON and GraphML downloads."""

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from citations.models import Paper
from discovery.graph import NeighbourhoodGraph
from pagecache.caching import reads_query


def published_paper(slug):
    return get_object_or_404(Paper.objects.published(), slug=slug)


@reads_query()
@require_safe
def paper_graph(request, slug):
    paper = published_paper(slug)
    graph = NeighbourhoodGraph.for_paper(paper)
    return render(
        request, "discovery/graph.html", {"nav": "research", "paper": paper, "graph": graph}
    )


@reads_query()
@require_safe
def paper_graph_json(request, slug):
    graph = NeighbourhoodGraph.for_paper(published_paper(slug))
    response = JsonResponse(graph.as_data(), json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="{slug}-graph.json"'
    return response


@reads_query()
@require_safe
def paper_graph_graphml(request, slug):
    graph = NeighbourhoodGraph.for_paper(published_paper(slug))
    response = HttpResponse(
        graph.as_graphml(), content_type="application/graphml+xml; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{slug}-graph.graphml"'
    return response
