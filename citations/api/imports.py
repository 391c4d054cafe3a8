"""POST /api/v1/imports/: the importers for API clients (editors). The same one code path as the
admin and `manage.py import_papers`: a dry run first, then the same run confirmed."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from apikit.params import StrictQueryParametersMixin
from citations.importers import FORMATS, BadImportFile
from citations.importers.apply import (
    IMPORT_LARGE_REFUSED,
    IMPORT_PUBLISH_REFUSED,
    may_import_live,
    plan_refusal,
    run_refusal,
)
from citations.importers.runs import ImportRun


class MayImport(permissions.BasePermission):
    """Editors who may add papers and citations."""

    def has_permission(self, request, view):
        return request.user.is_authenticated and request.user.has_perms(
            ["citations.add_paper", "citations.add_citation", "citations.add_importrun"]
        )


class ImportRequestSerializer(serializers.Serializer):
    text = serializers.CharField(required=False, trim_whitespace=False, allow_blank=False)
    file = serializers.FileField(required=False)
    format = serializers.ChoiceField(
        choices=[*FORMATS, "arxiv-ids"],
        required=False,
        help_text="Guessed from the content when omitted: bibtex, arxiv (Atom), openalex, s2 "
        "(Semantic Scholar), csl (CSL-JSON), ris, arxiv-ids (one id per line).",
    )
    apply = serializers.BooleanField(
        default=False, help_text="Write at once; by default only the dry run is returned."
    )
    publish = serializers.BooleanField(default=False, help_text="New papers and edges published.")

    def validate(self, data):
        upload = data.pop("file", None)
        if upload is not None:
            if too_large := ImportRun.upload_too_large(upload):
                raise ValidationError({"file": [too_large]})
            # Read in pieces as it is stored (ImportRun.store), never whole.
            data["source"], data["name"] = upload, upload.name
        elif data.get("text"):
            data["source"], data["name"] = data.pop("text"), "API text"
        else:
            raise ValidationError({"text": ["Send the records as `text` or upload a `file`."]})
        return data


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
class CountsField(serializers.JSONField):
    """How many records would be (or were) created, updated, merged, skipped: a name to a count."""


class ImportRunSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    counts = CountsField(read_only=True)
    percent = serializers.IntegerField(read_only=True)
    format_name = serializers.CharField(
        read_only=True,
        help_text="The format by its name (“BibTeX”); a guessed format is named once the dry "
        "run has read the text.",
    )
    summary = serializers.CharField(
        read_only=True,
        help_text="What the run did, or its dry run says it would do, in sentences "
        "(“Created 4 papers and updated 1.”): `counts` in words.",
    )

    class Meta:
        model = ImportRun
        fields = [
            "id", "url", "name", "format", "format_name", "size", "state", "publish", "records",
            "processed", "percent",
            "counts", "summary", "dry_run", "report", "created_at", "finished_at",
        ]  # fmt: skip

    def get_url(self, run) -> str:
        return reverse("api:import-detail", args=[run.pk], request=self.context.get("request"))


class ImportListView(StrictQueryParametersMixin, APIView):
    """Import papers (and their citation edges) from BibTeX, arXiv API Atom, OpenAlex,
    Semantic Scholar, CSL-JSON, RIS or a list of arXiv ids. Without `apply` it is a dry run (the
    report of what would be created, updated, merged or skipped); `apply` writes it (a large
    file is dry-run, or applied, on the task queue: 202, follow its `url`)."""

    permission_classes = [MayImport]
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(
        operation_id="imports_create",
        summary="Import papers (a dry run first)",
        request=ImportRequestSerializer,
        responses={200: ImportRunSerializer, 201: ImportRunSerializer, 202: ImportRunSerializer},
    )
    def post(self, request):
        payload = ImportRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        field = "file" if "file" in request.data else "text"
        if data["publish"] and not may_import_live(request.user):
            raise PermissionDenied(IMPORT_PUBLISH_REFUSED)
        # Without the publish permission a run is applied only after its plan is judged.
        judged = data["apply"] and not may_import_live(request.user)
        try:
            run, plan = ImportRun.preview(
                data["source"],
                data.get("format"),
                data["name"],
                data["publish"],
                request.user,
                apply=data["apply"] and not judged,
            )
            if judged and plan is None:
                raise PermissionDenied(IMPORT_LARGE_REFUSED)
            if judged and (refusal := plan_refusal(request.user, plan)):
                raise PermissionDenied(refusal)
            if data["apply"] and plan is not None:
                run.confirm()
        except BadImportFile as error:
            raise ValidationError({field: [str(error)]}) from None
        run.refresh_from_db()
        answer = ImportRunSerializer(run, context={"request": request}).data
        if plan is None:  # on the task queue
            return Response(answer, status=status.HTTP_202_ACCEPTED)
        if not data["apply"]:
            return Response({**answer, "plan": plan.as_dict()}, status=status.HTTP_200_OK)
        code = status.HTTP_202_ACCEPTED if run.state == "queued" else status.HTTP_201_CREATED
        return Response(answer, status=code)


class ImportDetailView(StrictQueryParametersMixin, APIView):
    """An import run: its dry run, state, progress and final report. POST confirms (applies)
    a run that was only previewed."""

    permission_classes = [MayImport]

    @extend_schema(summary="Read an import run", responses=ImportRunSerializer)
    def get(self, request, pk):
        run = get_object_or_404(ImportRun, pk=pk)
        return Response(ImportRunSerializer(run, context={"request": request}).data)

    @extend_schema(
        operation_id="imports_confirm",
        summary="Confirm an import run",
        request=None,
        responses={201: ImportRunSerializer, 202: ImportRunSerializer},
    )
    def post(self, request, pk):
        run = get_object_or_404(ImportRun, pk=pk)
        if refusal := run_refusal(request.user, run):
            raise PermissionDenied(refusal)
        try:
            run.confirm()
        except BadImportFile as error:
            raise ValidationError({"state": [str(error)]}) from None
        run.refresh_from_db()
        code = status.HTTP_202_ACCEPTED if run.state == "queued" else status.HTTP_201_CREATED
        return Response(ImportRunSerializer(run, context={"request": request}).data, status=code)
