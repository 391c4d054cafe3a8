"""The API's neighbours of a paper: /papers/{slug}/neighbours/ (similar papers, prior and
derivative works, as the hub lists them) and /papers/{slug}/graph/ (the neighbourhood graph,
as its page draws it). Published papers only, anonymous or not."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response

from apikit.conditional import ConditionalGetMixin
from apikit.params import StrictQueryParametersMixin
from apikit.sparse import SparseFieldsetsMixin
from citations.models import Paper
from discovery.graph import NeighbourhoodGraph
from discovery.models import Neighbour


class NeighbourSerializer(serializers.Serializer):
    slug = serializers.CharField(source="other.slug")
    title = serializers.CharField(source="other.title")
    url = serializers.CharField(source="other.get_absolute_url")
    rank = serializers.IntegerField()
    score = serializers.FloatField(help_text="Similar papers: the summed cosine of both counts.")
    shared_references = serializers.IntegerField(help_text="References both papers cite.")
    co_citations = serializers.IntegerField(help_text="Papers citing both.")
    neighbourhood_links = serializers.IntegerField(
        help_text="Prior works: papers of the neighbourhood citing it; derivative works: "
        "papers of the neighbourhood it cites."
    )
    why = serializers.CharField(help_text="The same, in words, as the hub says it.")


class NeighboursSerializer(serializers.Serializer):
    paper = serializers.CharField(help_text="The paper's slug.")
    similar = NeighbourSerializer(many=True)
    prior = NeighbourSerializer(many=True, help_text="Most cited by the similar papers.")
    derivative = NeighbourSerializer(many=True, help_text="Citing most of the similar papers.")


class GraphNodeSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField()
    year = serializers.IntegerField(allow_null=True, help_text="Null when the date is unknown.")
    cited_by_count = serializers.IntegerField()
    relations = serializers.ListField(child=serializers.CharField())
    x = serializers.FloatField()
    y = serializers.FloatField()


class GraphEdgeSerializer(serializers.Serializer):
    source = serializers.CharField(help_text="The citing paper's slug (or the paper, if similar).")
    target = serializers.CharField()
    kind = serializers.ChoiceField(choices=["citation", "similar"])
    role = serializers.CharField(allow_null=True)
    polarity = serializers.CharField(allow_null=True)


class GraphSerializer(serializers.Serializer):
    paper = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    nodes = GraphNodeSerializer(many=True)
    edges = GraphEdgeSerializer(many=True)


class PaperDiscoveryView(
    StrictQueryParametersMixin, SparseFieldsetsMixin, ConditionalGetMixin, generics.GenericAPIView
):
    lookup_field = "slug"
    filter_backends = []
    pagination_class = None

    def get_queryset(self):
        return Paper.objects.published()


class PaperNeighboursView(PaperDiscoveryView):
    """A published paper's similar papers (bibliographic coupling and co-citation), prior
    works and derivative works, as stored by the last refresh: published papers only."""

    serializer_class = NeighboursSerializer

    @extend_schema(summary="A paper's similar, prior and derivative works")
    def get(self, request, *args, **kwargs):
        paper = self.get_object()
        lists = Neighbour.objects.lists_for(paper)
        data = {
            "paper": paper.slug,
            "similar": lists.similar,
            "prior": lists.prior,
            "derivative": lists.derivative,
        }
        return Response(self.get_serializer(data).data)


class PaperGraphView(PaperDiscoveryView):
    """A published paper's neighbourhood graph: nodes with their layout, edges with role and
    polarity, as /papers/{slug}/graph/ draws it."""

    serializer_class = GraphSerializer

    @extend_schema(summary="A paper's neighbourhood graph")
    def get(self, request, *args, **kwargs):
        graph = NeighbourhoodGraph.for_paper(self.get_object()).as_data()
        return Response(self.get_serializer(graph).data)
