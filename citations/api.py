"""The API over papers, citation edges, their vocabularies and tags."""

import datetime
import functools

import django_filters
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count, Max, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404
from django.urls import NoReverseMatch
from django.utils.text import slugify
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import generics, serializers
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from taggit.models import Tag, TaggedItem

from bottlenecks.models import Layer
from citations.models import Author, Authorship, Citation, CitationPolarity, CitationRole, Paper
from rlscaling.api import (
    ApiUrlField,
    ConditionalGetMixin,
    CursorPagination,
    EditorsWrite,
    IsoDateTimeFromToRangeFilter,
    PublishableFilterSet,
    PublishableViewSet,
    ReadOnlyViewSet,
    SlugReferenceField,
    StrictBooleanFilter,
    VersionedModelSerializer,
    YearFilter,
    normalise_arxiv_id,
    normalise_doi,
)

extend_schema_field(OpenApiTypes.BOOL)(StrictBooleanFilter)

# ---- Serializers


def html_url(instance, request=None):
    """The public page of a row, or None while that page is not wired up."""
    try:
        path = instance.get_absolute_url()
    except NoReverseMatch:
        return None
    return request.build_absolute_uri(path) if request else path


class NameListField(serializers.ListField):
    """An ordered list of distinct names (authors, tags)."""

    def __init__(self, max_length, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(child=serializers.CharField(max_length=max_length), **kwargs)

    def to_internal_value(self, data):
        names = super().to_internal_value(data)
        if len({name.casefold() for name in names}) != len(names):
            raise ValidationError("Each name may appear only once.")
        return names


class TagListField(NameListField):
    def get_attribute(self, instance):
        return sorted(tag.name for tag in instance.tags.all())


class CitingCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Published papers citing this one.")
    by_role = serializers.DictField(
        child=serializers.IntegerField(), help_text="Citation role slug → count."
    )
    by_polarity = serializers.DictField(
        child=serializers.IntegerField(), help_text="Citation polarity slug → count."
    )


class PaperSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:paper-detail")
    html_url = serializers.SerializerMethodField(help_text="The paper's hub page on the site.")
    slug = serializers.SlugField(
        max_length=200, required=False, help_text="Made from the title when left out."
    )
    authors = NameListField(200, source="author_names", help_text="Author names, in byline order.")
    tags = TagListField(100, help_text="Tag names.")
    layers = SlugReferenceField(
        many=True,
        required=False,
        slug_field="slug",
        queryset=Layer.objects.all(),
        help_text="Slugs of the bottleneck layers it bears on.",
    )
    arxiv_url = serializers.CharField(read_only=True)
    doi_url = serializers.CharField(read_only=True)
    citing_counts = serializers.SerializerMethodField()

    class Meta:
        model = Paper
        fields = [
            "api_url",
            "html_url",
            "slug",
            "title",
            "byline",
            "authors",
            "institution",
            "publication_date",
            "arxiv_id",
            "arxiv_url",
            "doi",
            "doi_url",
            "url",
            "abstract",
            "summary",
            "is_canonical_reference",
            "in_research_index",
            "tags",
            "layers",
            "citing_counts",
            "status",
            "published_at",
            "created_at",
            "updated_at",
            "version",
        ]
        read_only_fields = ["created_at", "updated_at"]
        relations = ["layers", "tags", "author_names"]
        validators = []  # the identifier constraints are checked field by field below

    def get_html_url(self, paper) -> str | None:
        return html_url(paper, self.context.get("request"))

    @extend_schema_field(CitingCountsSerializer)
    def get_citing_counts(self, paper):
        roles, polarities = self.context["vocabulary"]
        return {
            "total": paper.cited_by_count,
            "by_role": {role.slug: getattr(paper, f"cited_by_role_{role.pk}") for role in roles},
            "by_polarity": {
                p.slug: getattr(paper, f"cited_by_polarity_{p.pk}") for p in polarities
            },
        }

    def _unique(self, field, value, label):
        others = Paper.objects.filter(**{f"{field}__iexact": value})
        if self.instance is not None:
            others = others.exclude(pk=self.instance.pk)
        other = others.only("slug").first()
        if other is not None:
            raise ValidationError(f"The paper “{other.slug}” already has this {label}.")
        return value

    def validate_slug(self, slug):
        return self._unique("slug", slug, "slug")

    def _unique_identifier(self, field, value, normalise, label):
        """An optional identifier in its canonical form, refused if malformed or taken."""
        if not value:
            return ""
        try:
            value = normalise(value)
        except DjangoValidationError as error:
            raise ValidationError(error.messages) from None
        return self._unique(field, value, label)

    def validate_arxiv_id(self, value):
        return self._unique_identifier("arxiv_id", value, normalise_arxiv_id, "arXiv id")

    def validate_doi(self, value):
        return self._unique_identifier("doi", value, normalise_doi, "DOI")

    def validate_tags(self, names):
        for name in names:
            if not slugify(name):
                raise ValidationError(f"“{name}” has no letters or digits to make a tag of.")
        return names

    def validate(self, attrs):
        if self.instance is None and not attrs.get("slug"):
            slug = slugify(attrs.get("title", ""))[:200].strip("-")
            if not slug:
                raise ValidationError({"slug": ["Give a slug: none can be made from the title."]})
            try:
                attrs["slug"] = self._unique("slug", slug, "slug")
            except ValidationError as error:
                raise ValidationError({"slug": error.detail}) from None
        return attrs

    def save_many_to_many(self, paper, values):
        names = values.pop("author_names", None)
        super().save_many_to_many(paper, values)
        if names is not None:
            paper.authorships.all().delete()
            authors = {author.name: author for author in Author.objects.filter(name__in=names)}
            for name in names:
                if name not in authors:
                    authors[name], _ = Author.objects.get_or_create(name=name)
            Authorship.objects.bulk_create(
                Authorship(paper=paper, author=authors[name], position=position)
                for position, name in enumerate(names)
            )


class VocabularySerializer(serializers.ModelSerializer):
    class Meta:
        fields = ["slug", "name", "description", "order"]


class CitationRoleSerializer(VocabularySerializer):
    api_url = ApiUrlField("api:citationrole-detail")

    class Meta(VocabularySerializer.Meta):
        model = CitationRole
        fields = ["api_url", *VocabularySerializer.Meta.fields]


class CitationPolaritySerializer(VocabularySerializer):
    api_url = ApiUrlField("api:citationpolarity-detail")

    class Meta(VocabularySerializer.Meta):
        model = CitationPolarity
        fields = ["api_url", *VocabularySerializer.Meta.fields]


def vocabulary_field(model, label):
    return SlugReferenceField(
        slug_field="slug",
        queryset=model.objects.all(),
        allow_null=True,
        required=False,
        error_messages={"does_not_exist": f"No citation {label} has the slug “{{value}}”."},
        help_text=f"Citation {label} slug, or null when unclassified.",
    )


def paper_field(help_text):
    return SlugReferenceField(
        slug_field="slug",
        queryset=Paper.objects.all(),
        error_messages={"does_not_exist": "No paper has the slug “{value}”."},
        help_text=help_text,
    )


class CitationSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:citation-detail", lookup_field="pk")
    citing_paper = paper_field("Slug of the paper that cites.")
    citing_title = serializers.CharField(source="citing_paper.title", read_only=True)
    cited_paper = paper_field("Slug of the paper that is cited.")
    cited_title = serializers.CharField(source="cited_paper.title", read_only=True)
    role = vocabulary_field(CitationRole, "role")
    polarity = vocabulary_field(CitationPolarity, "polarity")

    class Meta:
        model = Citation
        fields = [
            "id",
            "api_url",
            "citing_paper",
            "citing_title",
            "cited_paper",
            "cited_title",
            "role",
            "polarity",
            "context",
            "is_representative",
            "status",
            "published_at",
            "created_at",
            "updated_at",
            "version",
        ]
        read_only_fields = ["created_at", "updated_at"]
        # The edge constraints are checked in validate() with field-level messages.
        validators = []

    def validate(self, attrs):
        def current(name):
            if name in attrs:
                return attrs[name]
            return getattr(self.instance, name, None)

        citing, cited = current("citing_paper"), current("cited_paper")
        if citing is not None and cited is not None:
            if citing.pk == cited.pk:
                raise ValidationError({"cited_paper": ["A paper cannot cite itself."]})
            existing = Citation.objects.filter(citing_paper=citing, cited_paper=cited)
            if self.instance is not None:
                existing = existing.exclude(pk=self.instance.pk)
            if existing.exists():
                raise ValidationError(
                    {"cited_paper": [f"“{citing.slug}” already cites “{cited.slug}”."]}
                )
        return attrs


class CitingPaperSerializer(serializers.ModelSerializer):
    api_url = ApiUrlField("api:paper-detail")
    html_url = serializers.SerializerMethodField()

    class Meta:
        model = Paper
        fields = ["api_url", "html_url", "slug", "title", "byline", "publication_date", "arxiv_id"]

    def get_html_url(self, paper) -> str | None:
        return html_url(paper, self.context.get("request"))


class HubCitationSerializer(serializers.ModelSerializer):
    """One edge into the hub paper, with the citing paper."""

    citing_paper = CitingPaperSerializer()
    role = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    polarity = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Citation
        fields = ["id", "citing_paper", "role", "polarity", "context", "is_representative"]


class SummaryRowSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    count = serializers.IntegerField()
    percent = serializers.IntegerField(help_text="Share of the classified citing papers.")


class CitationSummarySerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Published papers citing it.")
    classified = serializers.IntegerField(help_text="Of those, how many have a role.")
    roles = SummaryRowSerializer(many=True)
    polarities = SummaryRowSerializer(many=True)


class TagSerializer(serializers.ModelSerializer):
    api_url = ApiUrlField("api:tag-detail")
    # taggit's slugs keep letters such as ø, which the JSON Schema pattern of a SlugField
    # (ECMA-262 `\w`, ASCII only) would refuse.
    slug = serializers.CharField(read_only=True)
    paper_count = serializers.IntegerField(read_only=True)
    note_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Tag
        fields = ["api_url", "slug", "name", "paper_count", "note_count"]


# ---- Filters


def visible_layers(request):
    return Layer.objects.visible_to(request.user) if request else Layer.objects.none()


class PaperFilterSet(PublishableFilterSet):
    tag = django_filters.CharFilter(field_name="tags__slug", help_text="A tag slug, e.g. `grpo`.")
    layer = django_filters.ModelChoiceFilter(
        field_name="layers",
        to_field_name="slug",
        queryset=visible_layers,
        help_text="A layer slug, e.g. `rollouts`.",
    )
    year = YearFilter(field_name="publication_date", help_text="Publication year.")
    publication_date = django_filters.DateFromToRangeFilter(
        help_text="Publication date range: `publication_date_after`, `publication_date_before`."
    )
    is_canonical_reference = StrictBooleanFilter()
    in_research_index = StrictBooleanFilter()
    arxiv_id = django_filters.CharFilter(
        method="filter_arxiv_id",
        validators=[normalise_arxiv_id],
        help_text="An arXiv id such as 2510.13786 (400 if malformed).",
    )
    doi = django_filters.CharFilter(
        method="filter_doi",
        validators=[normalise_doi],
        help_text="A DOI such as 10.48550/arXiv.2510.13786 (400 if malformed).",
    )
    cited_by = django_filters.CharFilter(
        method="filter_cited_by", help_text="Slug of a paper: only the papers it cites."
    )
    cites = django_filters.CharFilter(
        method="filter_cites", help_text="Slug of a paper: only the papers citing it."
    )

    class Meta:
        model = Paper
        fields = []

    def filter_arxiv_id(self, queryset, name, value):
        return queryset.filter(arxiv_id=normalise_arxiv_id(value))

    def filter_doi(self, queryset, name, value):
        return queryset.filter(doi__iexact=normalise_doi(value))

    def filter_cited_by(self, queryset, name, value):
        edges = Citation.objects.visible_to(self.request.user).filter(citing_paper__slug=value)
        return queryset.filter(pk__in=edges.values("cited_paper"))

    def filter_cites(self, queryset, name, value):
        edges = Citation.objects.visible_to(self.request.user).filter(cited_paper__slug=value)
        return queryset.filter(pk__in=edges.values("citing_paper"))


class CitationFilterSet(PublishableFilterSet):
    citing = django_filters.CharFilter(
        field_name="citing_paper__slug", help_text="Citing paper slug."
    )
    cited = django_filters.CharFilter(field_name="cited_paper__slug", help_text="Cited paper slug.")
    role = django_filters.ModelChoiceFilter(
        to_field_name="slug", queryset=CitationRole.objects.all(), help_text="Role slug."
    )
    polarity = django_filters.ModelChoiceFilter(
        to_field_name="slug", queryset=CitationPolarity.objects.all(), help_text="Polarity slug."
    )
    is_representative = StrictBooleanFilter()
    published_at = IsoDateTimeFromToRangeFilter(
        help_text="Publication time range: `published_at_after`, `published_at_before`."
    )

    class Meta:
        model = Citation
        fields = []


class HubFilterSet(django_filters.FilterSet):
    role = django_filters.ModelChoiceFilter(
        to_field_name="slug", queryset=CitationRole.objects.all(), help_text="Role slug."
    )
    polarity = django_filters.ModelChoiceFilter(
        to_field_name="slug", queryset=CitationPolarity.objects.all(), help_text="Polarity slug."
    )
    is_representative = StrictBooleanFilter()

    class Meta:
        model = Citation
        fields = []


# ---- Views


class PaperViewSet(PublishableViewSet):
    """Papers, with authors, identifiers, tags, layers and counts of the papers citing them.

    Cursor-paginated, newest publication first. Look one up by slug, by arXiv id
    (`by-arxiv/<id>/`) or by DOI (`by-doi/<doi>/`).
    """

    queryset = Paper.objects.all()
    serializer_class = PaperSerializer
    pagination_class = CursorPagination
    filterset_class = PaperFilterSet
    ordering_fields = ["publication_date", "title", "cited_by_count", "created_at", "updated_at"]
    ordering_aliases = {"publication_date": "publication_sort_date"}
    ordering = ["-publication_date"]
    search_fields = ["title", "byline", "institution", "summary", "abstract"]

    @functools.cached_property
    def vocabulary(self):
        return list(CitationRole.objects.all()), list(CitationPolarity.objects.all())

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "vocabulary": self.vocabulary}

    def decorate(self, queryset):
        roles, polarities = self.vocabulary
        return (
            queryset.for_listing()
            .with_citation_counts(roles, polarities)
            # Undated papers sort as the oldest, so the cursor has a value to compare.
            .annotate(publication_sort_date=Coalesce("publication_date", Value(datetime.date.min)))
        )

    def get_last_modified(self, paper):
        latest_edge = paper.public_citations_received().aggregate(latest=Max("updated_at"))
        return max(filter(None, [paper.updated_at, latest_edge["latest"]]))

    def detail_for(self, **lookup):
        self.kwargs.update(lookup)
        self.lookup_field = self.lookup_url_kwarg = next(iter(lookup))
        return self.retrieve(self.request)

    @extend_schema(summary="A paper by its arXiv id", responses=PaperSerializer)
    @action(detail=False, url_path=r"by-arxiv/(?P<arxiv_id>.+)", filter_backends=[])
    def by_arxiv(self, request, arxiv_id):
        try:
            arxiv_id = normalise_arxiv_id(arxiv_id)
        except DjangoValidationError as error:
            raise ValidationError({"arxiv_id": error.messages}) from None
        return self.detail_for(arxiv_id=arxiv_id)

    @extend_schema(summary="A paper by its DOI", responses=PaperSerializer)
    @action(detail=False, url_path=r"by-doi/(?P<doi>.+)", filter_backends=[])
    def by_doi(self, request, doi):
        try:
            doi = normalise_doi(doi)
        except DjangoValidationError as error:
            raise ValidationError({"doi": error.messages}) from None
        return self.detail_for(doi__iexact=doi)


class HubCursorPagination(CursorPagination):
    # Newest citing papers first, as on the hub page.
    ordering = ("-citing_sort_date", "pk")


class PaperCitationsView(ConditionalGetMixin, generics.ListAPIView):
    """A paper's hub: counts of citing papers by role and polarity, and the citing papers
    themselves (cursor-paginated, newest first, filterable by role and polarity). The same
    public figures the hub page shows."""

    serializer_class = HubCitationSerializer
    pagination_class = HubCursorPagination
    filter_backends = [DjangoFilterBackend]
    filterset_class = HubFilterSet
    permission_classes = [EditorsWrite]

    @functools.cached_property
    def paper(self):
        return get_object_or_404(
            Paper.objects.visible_to(self.request.user), slug=self.kwargs["slug"]
        )

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Citation.objects.none()
        return self.paper.citing_citations().annotate(
            citing_sort_date=Coalesce("citing_paper__publication_date", Value(datetime.date.min))
        )

    @extend_schema(
        responses=inline_serializer(
            "PaperHub",
            {
                "paper": CitingPaperSerializer(),
                "summary": CitationSummarySerializer(),
                "next": serializers.URLField(allow_null=True),
                "previous": serializers.URLField(allow_null=True),
                "results": HubCitationSerializer(many=True),
            },
        )
    )
    def get(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        summary = self.paper.citation_summary()
        response.data = {
            "paper": CitingPaperSerializer(self.paper, context=self.get_serializer_context()).data,
            "summary": CitationSummarySerializer(summary).data,
            **response.data,
        }
        return response


class CitationViewSet(PublishableViewSet):
    """Citation edges: `citing_paper` cites `cited_paper`, in a role, with a polarity.
    Cursor-paginated, newest edges first."""

    queryset = Citation.objects.all()
    serializer_class = CitationSerializer
    pagination_class = CursorPagination
    filterset_class = CitationFilterSet
    search_fields = ["context", "citing_paper__title", "cited_paper__title"]
    ordering_fields = ["id", "created_at", "updated_at"]
    ordering = ["-id"]
    lookup_field = "pk"
    lookup_value_regex = r"[0-9]+"

    def decorate(self, queryset):
        return queryset.select_related("citing_paper", "cited_paper", "role", "polarity")


class CitationRoleViewSet(ReadOnlyViewSet):
    """Why a paper is cited: background, method, comparison, extension."""

    queryset = CitationRole.objects.all()
    serializer_class = CitationRoleSerializer
    search_fields = ["name", "description"]
    ordering_fields = ["order", "name"]
    ordering = ["order", "name"]


class CitationPolarityViewSet(ReadOnlyViewSet):
    """How the citing paper stands towards the cited one."""

    queryset = CitationPolarity.objects.all()
    serializer_class = CitationPolaritySerializer
    search_fields = ["name", "description"]
    ordering_fields = ["order", "name"]
    ordering = ["order", "name"]


def tagged_count(model, user):
    """Per tag, how many rows of `model` visible to `user` carry it (a correlated subquery)."""
    items = (
        TaggedItem.objects.filter(
            tag=OuterRef("pk"),
            content_type=ContentType.objects.get_for_model(model),
            object_id__in=model.objects.visible_to(user).values("pk"),
        )
        .order_by()
        .values("tag")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(items), 0)


class TagViewSet(ReadOnlyViewSet):
    """Tags on papers and research notes, with how many of each carry them."""

    queryset = Tag.objects.all()
    serializer_class = TagSerializer
    lookup_value_regex = r"[-\w]+"  # taggit keeps letters such as ø in slugs
    search_fields = ["name"]
    ordering_fields = ["name", "paper_count", "note_count"]
    ordering = ["name"]

    def get_queryset(self):
        from notes.models import ResearchNote

        user = self.request.user
        return (
            Tag.objects.annotate(
                paper_count=tagged_count(Paper, user), note_count=tagged_count(ResearchNote, user)
            )
            .exclude(paper_count=0, note_count=0)
            .order_by("name")
        )
