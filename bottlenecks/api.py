"""The API over the framework: dimensions, loop stages, layers and the Bottleneck Map."""

from django.db.models import Prefetch
from rest_framework import serializers

from bottlenecks.models import Analysis, AnalysisStep, Dimension, Layer, LoopStage
from rlscaling.api.concurrency import PUBLISHING_FIELDS, VersionedModelSerializer
from rlscaling.api.fields import ApiUrlField, HtmlUrlField
from rlscaling.api.filters import PublishableFilterSet
from rlscaling.api.viewsets import PublishableViewSet, ReadOnlyViewSet

ITEM_FIELDS = ["api_url", "slug", "name", "description", "order", *PUBLISHING_FIELDS]


class DimensionSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:dimension-detail")

    class Meta:
        model = Dimension
        fields = ITEM_FIELDS
        read_only_fields = ["created_at", "updated_at"]


class LoopStageSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:loopstage-detail")

    class Meta:
        model = LoopStage
        fields = ITEM_FIELDS
        read_only_fields = ["created_at", "updated_at"]


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
        read_only_fields = ["created_at", "updated_at"]


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


class DimensionFilterSet(PublishableFilterSet):
    class Meta:
        model = Dimension
        fields = []


class LoopStageFilterSet(PublishableFilterSet):
    class Meta:
        model = LoopStage
        fields = []


class LayerFilterSet(PublishableFilterSet):
    class Meta:
        model = Layer
        fields = []


class FrameworkViewSet(PublishableViewSet):
    search_fields = ["name", "description"]
    ordering_fields = ["order", "name", "updated_at"]
    ordering = ["order", "name"]


class DimensionViewSet(FrameworkViewSet):
    """The coupled dimensions along which an RL system grows."""

    queryset = Dimension.objects.all()
    serializer_class = DimensionSerializer
    filterset_class = DimensionFilterSet


class LoopStageViewSet(FrameworkViewSet):
    """The stages of the learning loop, in order."""

    queryset = LoopStage.objects.all()
    serializer_class = LoopStageSerializer
    filterset_class = LoopStageFilterSet


class LayerViewSet(FrameworkViewSet):
    """Where scaling breaks: each layer, how it fails, and what to ask first."""

    queryset = Layer.objects.all()
    serializer_class = LayerSerializer
    filterset_class = LayerFilterSet
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
