"""The API over claims: `/api/v1/claims/`, filterable by layer, paper and evidence status.
Read-only: editors write claims in the admin. Nested lists (layers, papers, notes, contrasting
citations, the superseding claim) name published rows only, for everyone."""

import datetime

import django_filters
from django.db.models import Value
from django.db.models.functions import Coalesce
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apikit.concurrency import PUBLISHING_FIELDS
from apikit.fields import ApiUrlField, HtmlUrlField
from apikit.filters import PublishableFilterSet, slug_choice
from apikit.viewsets import ReadOnlyViewSet
from bottlenecks.models import Layer
from citations.models import Paper
from evidence.models import Claim, EvidenceStatus


def slugs(help_text):
    return serializers.SlugRelatedField(
        many=True, read_only=True, slug_field="slug", help_text=help_text
    )


@extend_schema_field({"type": "string", "nullable": True})
class PublishedSlugField(serializers.Field):
    """The slug of a related claim, or null when there is none or it is not published."""

    def to_representation(self, claim):
        return claim.slug if claim.is_published else None


class ClaimSerializer(serializers.ModelSerializer):
    api_url = ApiUrlField("api:claim-detail")
    html_url = HtmlUrlField(help_text="The claim on the site's claims page.")
    model = serializers.CharField(source="model_name", help_text="The model it was found with.")
    layers = slugs("Slugs of the layers it speaks to.")
    papers = slugs("Slugs of the papers it comes from.")
    notes = slugs("Slugs of the research notes on it.")
    contrasting_citations = serializers.PrimaryKeyRelatedField(
        many=True, read_only=True, help_text="Ids of the citations that contest it."
    )
    results = serializers.PrimaryKeyRelatedField(
        many=True,
        read_only=True,
        help_text="Ids of the public results that carry its figure (/api/v1/results/{id}/).",
    )
    superseded_by = PublishedSlugField(
        read_only=True, help_text="Slug of the claim that replaces it."
    )
    version = serializers.IntegerField(read_only=True)
    reported_on = serializers.DateField(
        source="known_reported_on",
        read_only=True,
        allow_null=True,
        help_text="When the source reported it, as far as `reported_on_precision` says; null "
        "when not known.",
    )

    class Meta:
        model = Claim
        fields = [
            "api_url",
            "html_url",
            "slug",
            "statement",
            "figure",
            "unit",
            "direction",
            "model",
            "model_size",
            "task_family",
            "reward_type",
            "budget",
            "setup",
            "reported_on",
            "reported_on_precision",
            "evidence_status",
            "reproduced_by",
            "reproduction_url",
            "contrasting_citations",
            "superseded_by",
            "last_reviewed",
            "review_due",
            "layers",
            "papers",
            "notes",
            "results",
            "tolerance",
            *PUBLISHING_FIELDS,
        ]


class ClaimFilterSet(PublishableFilterSet):
    layer = slug_choice(Layer, field_name="layers", help_text="Layer slug.")
    paper = slug_choice(Paper, field_name="papers", help_text="Paper slug.")
    evidence_status = django_filters.ChoiceFilter(
        choices=EvidenceStatus.choices, help_text="How well the claim stands up."
    )

    class Meta:
        model = Claim
        fields = []


class ClaimViewSet(ReadOnlyViewSet):
    """Findings with their setup, layers, sources and evidence status: reproduced first, then
    reported, contested and superseded."""

    queryset = Claim.objects.all()
    serializer_class = ClaimSerializer
    filterset_class = ClaimFilterSet
    search_fields = ["statement", "figure", "unit", "setup"]
    ordering_fields = ["reported_on", "updated_at", "slug"]
    # Undated claims sort as the oldest on every database.
    ordering_aliases = {"reported_on": "reported_sort_date"}
    ordering = ["evidence_rank", "-reported_sort_date", "pk"]

    def get_queryset(self):
        return (
            Claim.objects.visible_to(self.request.user)
            .for_api()
            .annotate(reported_sort_date=Coalesce("reported_on", Value(datetime.date.min)))
        )
