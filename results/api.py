"""The API over reported results: `/api/v1/benchmarks/`, `/api/v1/series/` (with their stored
fits) and `/api/v1/results/` (one row per reported point). Readers see public rows only: a
series is public with its benchmark and its paper, a point and a fit with their series.

Editors and contributors write them with a token as they write papers (`PublishableViewSet`:
the model permissions, drafts for contributors, the compare-and-swap on `version`), under the
model's own validation (`full_clean`, as the admin and the CSV import apply it); many points
at once go through `POST /api/v1/results/import/` (a CSV)."""

import copy

import django_filters
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as ModelValidationError
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from apikit.concurrency import PUBLISHING_FIELDS, VersionedModelSerializer
from apikit.errors import ErrorSerializer, error_response
from apikit.facets import Facet, GroupByMixin, choice_label
from apikit.fields import ApiUrlField, HtmlUrlField
from apikit.filters import PublishableFilterSet, slug_choice
from apikit.pagination import KeysetWithDeprecatedPagesPagination
from apikit.params import StrictQueryParametersMixin
from apikit.parsers import PlainTextParser
from apikit.viewsets import PublishableViewSet
from bottlenecks.models import Layer
from bottlenecks.setting import ModelSize, RewardType, TaskFamily
from citations.models import Paper
from publishing.models import GOING_PUBLIC
from publishing.permissions import LIVE_CHANGE_REFUSED, may_change_live
from results.importer import (
    BadUpload,
    apply_now,
    in_background,
    may_import,
    plan_text,
    read_upload,
    start_run,
)
from results.models import (
    COMPUTE_UNITS,
    Benchmark,
    Fit,
    LocationKind,
    Result,
    ResultsImportRun,
    Series,
)
from tags.models import Tag


class ModelRulesMixin:
    """The model's own validation (`full_clean`: its fields and `clean()`), the rule the admin
    and the CSV import apply, run after the serializer's checks; its messages are given under
    the API's field names. Uniqueness is left to the serializer's own validators."""

    def validate(self, attrs):
        attrs = super().validate(attrs)
        relations = set(getattr(self.Meta, "relations", ()))
        row = copy.copy(self.instance) if self.instance is not None else self.Meta.model()
        for name, value in attrs.items():
            if name not in relations:
                setattr(row, name, value)
        self.prepare_for_rules(row)
        try:
            row.full_clean(validate_unique=False)
        except ModelValidationError as error:
            names = {field.source: name for name, field in self.fields.items()}
            names[NON_FIELD_ERRORS] = "non_field_errors"
            raise ValidationError(
                {names.get(name, name): messages for name, messages in error.message_dict.items()}
            ) from None
        return attrs

    def prepare_for_rules(self, row):
        """Set what the save sets before the rules read it; nothing by default."""


class BenchmarkSerializer(ModelRulesMixin, VersionedModelSerializer):
    api_url = ApiUrlField("api:benchmark-detail")
    html_url = HtmlUrlField(help_text="The benchmark's page: its chart and table.")

    class Meta:
        model = Benchmark
        fields = [
            "api_url",
            "html_url",
            "slug",
            "name",
            "task_family",
            "metric",
            "unit",
            "higher_is_better",
            "description",
            "url",
            *PUBLISHING_FIELDS,
        ]


@extend_schema_field({"type": "object", "additionalProperties": True})
class JSONObjectField(serializers.JSONField):
    """A stored JSON object, typed as one in the schema (clients generated from it)."""


@extend_schema_field({"type": "array", "items": {"type": "number"}})
class NumberListField(serializers.JSONField):
    """A stored JSON list of numbers, typed as one in the schema."""


class FitSerializer(serializers.ModelSerializer):
    refused = serializers.BooleanField(read_only=True, help_text="True when no fit was accepted.")
    params = JSONObjectField(
        read_only=True,
        help_text="Sigmoid: R0, A, B, C_mid (and prediction_10x, an extrapolation); power "
        "law: a, b.",
    )
    intervals = JSONObjectField(read_only=True, help_text="90% intervals, {name: [low, high]}.")
    residuals = NumberListField(read_only=True, help_text="Observed minus fitted, per point.")
    compute_range = NumberListField(read_only=True, help_text="[min, max] compute fitted.")

    class Meta:
        model = Fit
        fields = [
            "kind",
            "axis",
            "params",
            "intervals",
            "r_squared",
            "residuals",
            "compute_range",
            "points_count",
            "refused",
            "reason_refused",
            "fitted_at",
        ]
        # Fits are computed by the worker, never written through the API: no request shape.
        read_only_fields = fields


def slug_reference(model, noun, help_text, **kwargs):
    return serializers.SlugRelatedField(
        slug_field="slug",
        queryset=model.objects.all(),
        error_messages={"does_not_exist": f"No {noun} has the slug “{{value}}”."},
        help_text=help_text,
        **kwargs,
    )


class SeriesSerializer(ModelRulesMixin, VersionedModelSerializer):
    api_url = ApiUrlField("api:series-detail")
    html_url = HtmlUrlField(help_text="The series on its benchmark's page.")
    benchmark = slug_reference(Benchmark, "benchmark", "The benchmark's slug.")
    paper = slug_reference(Paper, "paper", "The slug of the paper the run is from.")
    model = serializers.CharField(
        source="model_name", required=False, allow_blank=True, max_length=200
    )
    recipe_tags = slug_reference(Tag, "tag", "Recipe tag slugs.", many=True, required=False)
    fits = FitSerializer(many=True, read_only=True)

    class Meta:
        model = Series
        fields = [
            "api_url",
            "html_url",
            "slug",
            "name",
            "benchmark",
            "paper",
            "model",
            "model_params_b",
            "base_model",
            "recipe",
            "recipe_tags",
            "task_family",
            "model_size",
            "reward_type",
            "source_location",
            "checked_at",
            "fits",
            *PUBLISHING_FIELDS,
        ]
        read_only_fields = ["checked_at"]
        relations = ["recipe_tags"]

    def create(self, validated_data):
        # Provenance: who entered the run, as the admin and the CSV import record it.
        user = getattr(self.context.get("request"), "user", None)
        if user is not None and user.is_authenticated:
            validated_data["entered_by"] = user
        return super().create(validated_data)


class ResultSerializer(ModelRulesMixin, VersionedModelSerializer):
    api_url = ApiUrlField("api:result-detail", lookup_field="pk")
    series = slug_reference(Series, "series", "The slug of the run the point belongs to.")
    benchmark = serializers.CharField(source="series.benchmark.slug", read_only=True)
    paper = serializers.CharField(source="series.paper.slug", read_only=True, allow_null=True)
    compute_axis = serializers.CharField(read_only=True, allow_null=True)
    conversion = serializers.CharField(
        read_only=True, help_text="How the reported compute was normalised."
    )

    class Meta:
        model = Result
        fields = [
            "api_url",
            "id",
            "series",
            "benchmark",
            "paper",
            "location_kind",
            "location",
            "value",
            "uncertainty",
            "compute_reported",
            "compute_unit",
            "compute_axis",
            "gpu_hours",
            "flops",
            "conversion",
            "steps",
            "note",
        ]
        read_only_fields = ["gpu_hours", "flops"]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        point = self.instance
        if point is None or any(getattr(point, name) != value for name, value in attrs.items()):
            refuse_live_points(self.context["request"].user, point, attrs.get("series"))
        return attrs

    def prepare_for_rules(self, row):
        row.normalise_compute()


def refuse_live_points(user, point, series=None):
    """A 403 unless `user` may change what readers see or every run the write touches (the
    point's run, and the one it moves to) is not going public: the import's rule
    (`Plan.refusal`), a point being public with its run."""
    if may_change_live(user, Series):
        return
    runs = [run for run in (getattr(point, "series", None), series) if run is not None]
    if any(run.status in GOING_PUBLIC for run in runs):
        raise PermissionDenied(LIVE_CHANGE_REFUSED)


class BenchmarkFilterSet(PublishableFilterSet):
    task_family = django_filters.ChoiceFilter(choices=TaskFamily.choices)

    class Meta:
        model = Benchmark
        fields = []


def _choice(field_name, choices):
    return django_filters.ChoiceFilter(field_name=field_name, choices=choices)


@extend_schema_field(OpenApiTypes.STR)
class LayerSlugFilter(django_filters.ModelChoiceFilter):
    """A published layer by its slug, matched by the filter set's `filter_layer` (declared as a
    string: the schema cannot read a type from a filter that works through a method)."""


def _layer():
    return LayerSlugFilter(
        method="filter_layer",
        to_field_name="slug",
        queryset=Layer.objects.published(),
        help_text="Layer slug: runs from papers on the layer, or whose points carry a "
        "published claim on it (the diagnosis' rule).",
    )


def _tag(field_name):
    return django_filters.ModelChoiceFilter(
        field_name=field_name,
        to_field_name="slug",
        queryset=Tag.objects.all(),
        help_text="Recipe tag slug.",
    )


class SeriesFilterSet(PublishableFilterSet):
    benchmark = slug_choice(Benchmark, field_name="benchmark", help_text="Benchmark slug.")
    paper = slug_choice(Paper, field_name="paper", help_text="Paper slug.")
    task_family = _choice("task_family", TaskFamily.choices)
    model_size = _choice("model_size", ModelSize.choices)
    reward_type = _choice("reward_type", RewardType.choices)
    tag = _tag("recipe_tags")
    layer = _layer()

    class Meta:
        model = Series
        fields = []

    def filter_layer(self, queryset, name, layer):
        return queryset.on_layer(layer)


class ResultFilterSet(django_filters.FilterSet):
    series = slug_choice(Series, field_name="series", help_text="Series slug.")
    benchmark = slug_choice(Benchmark, field_name="series__benchmark", help_text="Benchmark slug.")
    paper = slug_choice(Paper, field_name="series__paper", help_text="Paper slug.")
    task_family = _choice("series__task_family", TaskFamily.choices)
    model_size = _choice("series__model_size", ModelSize.choices)
    reward_type = _choice("series__reward_type", RewardType.choices)
    tag = _tag("series__recipe_tags")
    layer = _layer()
    compute_axis = django_filters.ChoiceFilter(
        method="filter_axis",
        choices=[("gpu_hours", "gpu_hours"), ("flops", "flops")],
        help_text="Only points whose compute is on this axis.",
    )

    class Meta:
        model = Result
        fields = []

    def filter_layer(self, queryset, name, layer):
        return queryset.on_layer(layer)

    def filter_axis(self, queryset, name, value):
        units = [unit for unit, (axis, _, _) in COMPUTE_UNITS.items() if axis == value]
        return queryset.filter(compute_unit__in=units)


class BenchmarkViewSet(PublishableViewSet):
    """What results are measured on: name, metric, unit and direction."""

    queryset = Benchmark.objects.all()
    serializer_class = BenchmarkSerializer
    filterset_class = BenchmarkFilterSet
    search_fields = ["name", "metric", "description"]
    ordering_fields = ["name", "updated_at"]
    ordering = ["name", "pk"]


class SeriesViewSet(PublishableViewSet):
    """Runs measured as RL compute grows, each with its stored fits (the ScaleRL sigmoid and a
    power law, with 90% bootstrap intervals, or the reason a fit was refused)."""

    queryset = Series.objects.all()
    serializer_class = SeriesSerializer
    filterset_class = SeriesFilterSet
    search_fields = ["name", "model_name", "recipe"]
    ordering_fields = ["name", "updated_at"]
    ordering = ["benchmark__name", "name", "pk"]

    def decorate(self, queryset):
        # Not the chart's band, which no answer shows: a fitted run's is ~3 KB of JSON.
        return queryset.select_related("benchmark", "paper").prefetch_related(
            "recipe_tags", Prefetch("fits", queryset=Fit.objects.defer("band"))
        )


# Every grouping of the points needs one of these filters, which bound it by one benchmark's or
# one paper's runs: grouping every point of the corpus is unbounded (docs/decisions/0023).
NARROWING_FILTERS = ("benchmark", "paper", "series")


def setting_facet(name, choices):
    path = f"series__{name}"
    missing = f"without a {name.replace('_', ' ')}"
    return Facet(path, choice_label(path, choices), missing=missing, requires=NARROWING_FILTERS)


class ResultViewSet(GroupByMixin, PublishableViewSet):
    """Reported points: the value as the paper reports it, where in the paper, and the RL
    compute normalised to GPU-hours or FLOPs (never one into the other). `group_by=` counts
    the points of one benchmark, paper or series (`benchmark=`, `paper=` or `series=` is
    needed) by benchmark, series, paper, setting or where in the paper they are reported.

    Paged by cursor: follow `next`; a walk sees every row once while rows are added. `page=`
    still answers, deprecated (Deprecation and Sunset headers)."""

    queryset = Result.objects.all()
    pagination_class = KeysetWithDeprecatedPagesPagination
    serializer_class = ResultSerializer
    filterset_class = ResultFilterSet
    search_fields = ["location", "note", "series__name"]
    ordering_fields = ["value", "compute_sort", "steps"]
    ordering = ["series__benchmark__name", "series__name", "series_id", "compute_sort", "pk"]
    lookup_field = "pk"
    lookup_value_regex = r"[0-9]+"
    group_by_noun = "results"
    # The rows are public only with their series, its benchmark and its paper, so the names
    # grouped by are never a draft's.
    group_by_fields = {
        "benchmark": Facet(
            "series__benchmark__slug", "series__benchmark__name", requires=NARROWING_FILTERS
        ),
        "series": Facet("series__slug", "series__name", requires=NARROWING_FILTERS),
        "paper": Facet(
            "series__paper__slug",
            "series__paper__title",
            missing="without a paper",
            requires=NARROWING_FILTERS,
        ),
        "task_family": setting_facet("task_family", TaskFamily.choices),
        "model_size": setting_facet("model_size", ModelSize.choices),
        "reward_type": setting_facet("reward_type", RewardType.choices),
        "location_kind": Facet(
            "location_kind",
            choice_label("location_kind", LocationKind.choices),
            requires=NARROWING_FILTERS,
        ),
    }

    def decorate(self, queryset):
        # The run's name too: the cursor holds the last row's value of every ordering term.
        return queryset.with_source("slug", "name")

    def submitted_version(self, request, instance):
        """A point has no version of its own (its run has): `If-Match` with the ETag read is
        its precondition (412 when the point changed)."""
        return None

    def destroy(self, request, *args, **kwargs):
        refuse_live_points(request.user, self.get_object())
        return super().destroy(request, *args, **kwargs)


# -- POST /api/v1/results/import/: the CSV import for API clients ---------------------------


class MayImportResults(permissions.BasePermission):
    """Editors and contributors who may add series and points (contributors' imports write
    drafts only: `Plan.refusal`)."""

    def has_permission(self, request, view):
        return may_import(request.user)


class ResultsImportRunSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField(help_text="Poll it while `state` is in progress.")
    counts = JSONObjectField(read_only=True, help_text="Rows per outcome.")

    class Meta:
        model = ResultsImportRun
        fields = [
            "id", "url", "name", "state", "rows", "summary", "counts", "written", "report",
            "created_at", "finished_at",
        ]  # fmt: skip

    def get_url(self, run) -> str:
        return reverse("api:results-import-run", args=[run.pk], request=self.context.get("request"))


class ImportRowSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    outcome = serializers.CharField(help_text="new point, changed: …, or unchanged.")


class ImportProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    column = serializers.CharField(allow_null=True, help_text="Null for the header's.")
    message = serializers.CharField()


class ImportPlanSerializer(serializers.Serializer):
    summary = serializers.CharField()
    counts = JSONObjectField()
    rows = ImportRowSerializer(many=True)
    errors = ImportProblemSerializer(many=True)


class ImportUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The CSV, in the template's columns.")


class ImportTextSerializer(serializers.Serializer):
    text = serializers.CharField(help_text="The CSV, in the template's columns.")


DRY_RUN = OpenApiParameter(
    "dry_run",
    OpenApiTypes.BOOL,
    description="`true` (the default): only the plan, nothing written. `false`: apply it.",
)


class ResultsImportView(StrictQueryParametersMixin, APIView):
    """Import reported results from a CSV (docs/results.md: one row per point), as the
    admin's import and `manage.py import_results` do. A dry run (the default) answers 200 with
    each row's outcome; `dry_run=false` applies it: 201 with the run, or, for a file of more
    than 2,000 rows, 202 with the run to poll (the worker plans and applies it). A bad row is
    a 400 naming its line and column (`errors.rows`), and nothing is written. Without the
    publish permission an import may add only to new (draft) series and series not going
    public: a 403 names the published series otherwise."""

    permission_classes = [MayImportResults]
    # JSON and multipart are declared (the bodies generated clients send, as for paper imports);
    # a text/csv body is read too, for curl.
    parser_classes = [JSONParser, PlainTextParser, MultiPartParser]
    cache_query_parameters = ("dry_run",)

    @extend_schema(
        operation_id="results_import",
        summary="Import results from a CSV (a dry run unless dry_run=false)",
        parameters=[DRY_RUN],
        request={
            "application/json": ImportTextSerializer,
            "multipart/form-data": ImportUploadSerializer,
        },
        responses={
            200: ImportPlanSerializer,
            201: ResultsImportRunSerializer,
            202: ResultsImportRunSerializer,
            400: ErrorSerializer,
        },
    )
    def post(self, request):
        dry = request.query_params.get("dry_run", "true")
        if dry not in ("true", "false"):
            raise ValidationError({"dry_run": ["Give “true” or “false”."]})
        apply = dry == "false"
        text, name = self.upload(request)
        answer = {"context": {"request": request}}
        if in_background(text):
            run, _ = start_run(text, name, request.user, apply=apply)
            return Response(
                ResultsImportRunSerializer(run, **answer).data, status=status.HTTP_202_ACCEPTED
            )
        plan = plan_text(text, request.user)
        if not plan.ok:
            return error_response(
                status.HTTP_400_BAD_REQUEST,
                "invalid",
                "The file has errors (see `errors.rows`: line, column, message); nothing was "
                "written.",
                {"rows": plan.problems},
            )
        if not apply:
            return Response(plan.as_dict(), status=status.HTTP_200_OK)
        if refusal := plan.refusal(request.user):
            raise PermissionDenied(refusal)
        run = apply_now(plan, text, name, request.user)
        return Response(
            ResultsImportRunSerializer(run, **answer).data, status=status.HTTP_201_CREATED
        )

    @staticmethod
    def upload(request):
        """The CSV text and its name, from a JSON `text`, a text/csv body or a multipart `file`."""
        if request.content_type.startswith("application/json"):
            source = request.data.get("text") if isinstance(request.data, dict) else None
            if not isinstance(source, str):
                raise ValidationError({"text": ["Send the CSV as a string in `text`."]})
            name, field = "API text", "text"
        elif isinstance(request.data, str) or request.content_type.startswith("text/csv"):
            # An empty body is parsed by no parser: no data at all.
            source = request.data if isinstance(request.data, str) else ""
            name, field = "API text", "body"
        else:
            source = request.data.get("file")
            name, field = getattr(source, "name", ""), "file"
            if source is None or isinstance(source, str):
                raise ValidationError(
                    {
                        "file": [
                            "Send the CSV as a JSON `text`, a text/csv body or a multipart `file`."
                        ]
                    }
                )
        try:
            return read_upload(source), name
        except BadUpload as error:
            raise ValidationError({field: [str(error)]}) from None


class ResultsImportRunView(StrictQueryParametersMixin, APIView):
    """A results import run: its state, what it would write or wrote, and each row's outcome
    (`report`); poll it while the worker has it (`checking`, `queued`, `running`)."""

    permission_classes = [MayImportResults]

    @extend_schema(summary="Read a results import run", responses=ResultsImportRunSerializer)
    def get(self, request, pk):
        run = get_object_or_404(ResultsImportRun, pk=pk)
        return Response(ResultsImportRunSerializer(run, context={"request": request}).data)
