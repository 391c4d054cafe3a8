"""The API over research notes, community posts and questions."""

import django_filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from apikit.concurrency import PUBLISHING_FIELDS, VersionedModelSerializer
from apikit.fields import ApiUrlField, HtmlUrlField, TagListField, slug_references
from apikit.filters import (
    PublishableFilterSet,
    StrictBooleanFilter,
    VisibleReferenceFilter,
    YearFilter,
    published_at_range,
    slug_choice,
)
from apikit.viewsets import PublishableViewSet
from bottlenecks.models import Layer
from citations.models import Paper
from notes.models import CommunityPost, Question, ResearchNote


class NoteFigureSerializer(serializers.Serializer):
    """A figure the note reports: the figure of one of its published claims, in the shape
    figures had before they were claims."""

    value = serializers.CharField(help_text='The number as shown, e.g. "2.29×" (claim.figure).')
    label = serializers.CharField(help_text="What it measures (claim.unit).")
    order = serializers.IntegerField(help_text="Its place on the note, from 1.")
    claim = serializers.SlugField(help_text="The slug of the claim it is the figure of.")


class ResearchNoteSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:researchnote-detail")
    html_url = HtmlUrlField(help_text="The note's page on the site.")
    summary = serializers.CharField(source="dek", help_text="Standfirst shown on cards and feeds.")
    papers = slug_references(Paper, "Slugs of the papers the note is about.")
    layers = slug_references(Layer, "Slugs of the layers it bears on.")
    tags = TagListField(100, help_text="Tag names.")
    figures = serializers.SerializerMethodField(
        help_text="The figures of the note's published claims, in the note's order."
    )

    class Meta:
        model = ResearchNote
        fields = [
            "api_url",
            "html_url",
            "slug",
            "title",
            "summary",
            "body",
            "why_it_matters",
            "caveat",
            "is_featured",
            "papers",
            "layers",
            "tags",
            "figures",
            *PUBLISHING_FIELDS,
        ]
        relations = ["papers", "layers", "tags"]

    @extend_schema_field(NoteFigureSerializer(many=True))
    def get_figures(self, note):
        figures = [
            {"value": claim.figure, "label": claim.unit, "order": n, "claim": claim.slug}
            for n, claim in enumerate(note.figures, start=1)
        ]
        return NoteFigureSerializer(figures, many=True).data


class CommunityPostSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:communitypost-detail")
    url_opens_search = serializers.BooleanField(
        source="links_to_search",
        read_only=True,
        help_text="`url` opens a search on the source for the post, not the post itself.",
    )

    class Meta:
        model = CommunityPost
        fields = [
            "api_url",
            "slug",
            "title",
            "author",
            "source",
            "url",
            "url_opens_search",
            "summary",
            "year",
            "order",
            *PUBLISHING_FIELDS,
        ]


class QuestionSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:question-detail", lookup_field="pk")

    class Meta:
        model = Question
        fields = ["id", "api_url", "kind", "question", "answer", "order", *PUBLISHING_FIELDS]
        validators = []  # the (kind, question) constraint is checked below, on `question`

    def validate(self, attrs):
        kind = attrs.get("kind", getattr(self.instance, "kind", None))
        question = attrs.get("question", getattr(self.instance, "question", None))
        same = Question.objects.filter(kind=kind, question=question)
        if self.instance is not None:
            same = same.exclude(pk=self.instance.pk)
        if same.exists():
            raise ValidationError({"question": ["This question is already asked in this kind."]})
        return attrs


class ResearchNoteFilterSet(PublishableFilterSet):
    tag = django_filters.CharFilter(field_name="tags__slug", help_text="A tag slug.")
    layer = slug_choice(Layer, field_name="layers", help_text="Layer slug.")
    paper = VisibleReferenceFilter(Paper, field_name="papers", help_text="A paper slug.")
    is_featured = StrictBooleanFilter()
    published_at = published_at_range()

    class Meta:
        model = ResearchNote
        fields = []


class CommunityPostFilterSet(PublishableFilterSet):
    year = YearFilter(lookup_expr="exact")
    source = django_filters.CharFilter(lookup_expr="iexact", help_text="e.g. LessWrong.")

    class Meta:
        model = CommunityPost
        fields = []


class QuestionFilterSet(PublishableFilterSet):
    kind = django_filters.ChoiceFilter(choices=Question.Kind.choices)

    class Meta:
        model = Question
        fields = []


class ResearchNoteViewSet(PublishableViewSet):
    """Editorial notes on one paper or several: what they found and why it matters."""

    queryset = ResearchNote.objects.all()
    serializer_class = ResearchNoteSerializer
    filterset_class = ResearchNoteFilterSet
    # `figures` reads the note's claims (ResearchNote.figures_prefetch).
    field_prefetches = {"figures": ("claims",)}
    search_fields = ["title", "dek", "body", "why_it_matters"]
    ordering_fields = ["published_at", "title", "updated_at"]
    ordering = ["-published_at"]

    def decorate(self, queryset):
        return queryset.for_display()


class CommunityPostViewSet(PublishableViewSet):
    """Outside discussion worth reading, linked out."""

    queryset = CommunityPost.objects.all()
    serializer_class = CommunityPostSerializer
    filterset_class = CommunityPostFilterSet
    search_fields = ["title", "author", "summary"]
    ordering_fields = ["order", "year", "title", "updated_at"]
    ordering = ["order", "-published_at"]


class QuestionViewSet(PublishableViewSet):
    """Questions for AI teams and frequently asked questions, with their answers."""

    queryset = Question.objects.all()
    serializer_class = QuestionSerializer
    filterset_class = QuestionFilterSet
    search_fields = ["question", "answer"]
    ordering_fields = ["kind", "order", "updated_at"]
    ordering = ["kind", "order"]
    lookup_field = "pk"
    lookup_value_regex = r"[0-9]+"
