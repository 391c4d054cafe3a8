"""The API over the framework: dimensions, loop stages, layers and the Bottleneck Map."""

from django.db.models import Prefetch
from django_filters.filterset import filterset_factory
from rest_framework import serializers

from apikit.concurrency import PUBLISHING_FIELDS, VersionedModelSerializer
from apikit.fields import ApiUrlField, HtmlUrlField
from apikit.filters import PublishableFilterSet
from apikit.viewsets import PublishableViewSet, ReadOnlyViewSet
from bottlenecks.models import Analysis, AnalysisStep, Dimension, Layer, LoopStage

ITEM_FIELDS = ["api_url", "slug", "name", "description", "order", *PUBLISHING_FIELDS]


class FrameworkItemSerializer(VersionedModelSerializer):
    class Meta:
        fields = ITEM_FIELDS


class DimensionSerializer(FrameworkItemSerializer):
    api_url = ApiUrlField("api:dimension-detail")

    class Meta(FrameworkItemSerializer.Meta):
        model = Dimension


class LoopStageSerializer(FrameworkItemSerializer):
    api_url = ApiUrlField("api:loopstage-detail")

    class Meta(FrameworkItemSerializer.Meta):
        model = LoopStage


class LayerSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:layer-detail")
    html_url = HtmlUrlField(help_text="The layer's page on the site.")

    class Meta:
        model = Layer
        fields = [
            *ITEM_FIELDS[:3],
            "html_url",
            "failure_signal",
            "diagnostic_question",
            *ITEM_FIELDS[3:],
        ]


class AnalysisStepSerializer(serializers.ModelSerializer):
    class Meta:
        model = AnalysisStep
        fields = ["order", "title", "body"]


class AnalysisSerializer(serializers.ModelSerializer):
    api_url = ApiUrlField("api:analysis-detail")
    html_url = HtmlUrlField()
    steps = AnalysisStepSerializer(many=True, read_only=True)
    version = serializers.IntegerField(read_only=True)

    class Meta:
        model = Analysis
        fields = [
            "api_url",
            "html_url",
            "slug",
            "title",
            "eyebrow",
            "number",
            "dek",
            "body",
            "steps",
            *PUBLISHING_FIELDS,
        ]


class FrameworkViewSet(PublishableViewSet):
    search_fields = ["name", "description"]
    ordering_fields = ["order", "name", "updated_at"]
    ordering = ["order", "name"]


class DimensionViewSet(FrameworkViewSet):
    """The coupled dimensions along which an RL system grows."""

    queryset = Dimension.objects.all()
    serializer_class = DimensionSerializer
    filterset_class = filterset_factory(Dimension, PublishableFilterSet)


class LoopStageViewSet(FrameworkViewSet):
    """The stages of the learning loop, in order."""

    queryset = LoopStage.objects.all()
    serializer_class = LoopStageSerializer
    filterset_class = filterset_factory(LoopStage, PublishableFilterSet)


class LayerViewSet(FrameworkViewSet):
    """Where scaling breaks: each layer, how it fails, and what to ask first."""

    queryset = Layer.objects.all()
    serializer_class = LayerSerializer
    filterset_class = filterset_factory(Layer, PublishableFilterSet)
    search_fields = ["name", "description", "failure_signal", "diagnostic_question"]


class AnalysisViewSet(ReadOnlyViewSet):
    """Long-form analyses such as the RL Scaling Bottleneck Map, with their ordered steps."""

    queryset = Analysis.objects.all()
    serializer_class = AnalysisSerializer
    search_fields = ["title", "dek", "body"]
    ordering_fields = ["number", "title", "updated_at"]
    ordering = ["number", "title"]

    def get_queryset(self):
        return Analysis.objects.visible_to(self.request.user).prefetch_related(
            Prefetch("steps", queryset=AnalysisStep.objects.order_by("order", "id"))
        )
