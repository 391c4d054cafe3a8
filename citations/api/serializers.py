import re

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.text import slugify
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from apikit.concurrency import PUBLISHING_FIELDS, VersionedModelSerializer
from apikit.fields import (
    ApiUrlField,
    HtmlUrlField,
    NameListField,
    SlugReferenceField,
    TagListField,
    slug_references,
)
from bottlenecks.models import Layer
from citations.identifiers import arxiv_versions_named
from citations.models import (
    Author,
    Authorship,
    Citation,
    CitationCount,
    CitationPolarity,
    CitationRole,
    CitationSource,
    Paper,
)
from citations.slugs import free_of_routes, is_reserved


class CitingCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Published papers citing this one.")
    by_role = serializers.DictField(
        child=serializers.IntegerField(), help_text="Citation role slug → count."
    )
    by_polarity = serializers.DictField(
        child=serializers.IntegerField(), help_text="Citation polarity slug → count."
    )


@extend_schema_field({"type": "array", "items": {"type": "string", "pattern": r"^v[1-9]\d{0,2}$"}})
class VersionListField(serializers.JSONField):
    """A JSON list of arXiv version names (validated by the serializer), typed as such in the
    schema: a bare JSONField has no type there."""


class PaperSerializer(VersionedModelSerializer):
    api_url = ApiUrlField("api:paper-detail")
    html_url = HtmlUrlField(help_text="The paper's hub page on the site.")
    slug = serializers.SlugField(
        max_length=200, required=False, help_text="Made from the title when left out."
    )
    authors = NameListField(200, source="author_names", help_text="Author names, in byline order.")
    tags = TagListField(100, help_text="Tag names.")
    layers = slug_references(Layer, "Slugs of the bottleneck layers it bears on.")
    # Typed forms (a prefix, a URL, a version suffix) are longer than the stored normal form.
    arxiv_id = serializers.CharField(
        required=False, allow_blank=True, max_length=300, help_text=Paper.arxiv_id.field.help_text
    )
    doi = serializers.CharField(
        required=False, allow_blank=True, max_length=300, help_text=Paper.doi.field.help_text
    )
    arxiv_versions = VersionListField(
        required=False, help_text=Paper.arxiv_versions.field.help_text
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
            "date_precision",
            "arxiv_id",
            "arxiv_versions",
            "arxiv_url",
            "doi",
            "doi_url",
            "url",
            "code_url",
            "abstract",
            "summary",
            "is_canonical_reference",
            "in_research_index",
            "tags",
            "layers",
            "citing_counts",
            *PUBLISHING_FIELDS,
        ]
        relations = ["layers", "tags", "author_names"]
        validators = []  # the identifier constraints are checked field by field in validate()

    @extend_schema_field(CitingCountsSerializer)
    def get_citing_counts(self, paper):
        roles, polarities = self.context["vocabulary"]
        # The stored counts (citations/stats/counts.py); a paper just created has none yet.
        counts = getattr(paper, "citation_count", None) or CitationCount(paper=paper)
        return {
            "total": counts.total,
            "by_role": {role.slug: counts.by_role.get(str(role.pk), 0) for role in roles},
            "by_polarity": {p.slug: counts.by_polarity.get(str(p.pk), 0) for p in polarities},
        }

    def _unique(self, field, value, label):
        others = Paper.objects.filter(**{f"{field}__iexact": value})
        if self.instance is not None:
            others = others.exclude(pk=self.instance.pk)
        other = others.only("title").first()
        if other is not None:
            raise ValidationError(f"The paper “{other.title}” already has this {label}.")
        return value

    def validate_slug(self, slug):
        if is_reserved(slug):
            raise ValidationError(
                f"“{slug}” is a word of the API's addresses (/api/v1/papers/{slug}/): "
                "choose another slug."
            )
        return self._unique("slug", slug, "slug")

    def validate_tags(self, names):
        for name in names:
            if not slugify(name):
                raise ValidationError(f"“{name}” has no letters or digits to make a tag of.")
        return names

    def validate(self, attrs):
        attrs = self.validate_identifiers(attrs)
        if self.instance is None and not attrs.get("slug"):
            slug = free_of_routes(slugify(attrs.get("title", ""))[:190].strip("-"))
            if not slug:
                raise ValidationError({"slug": ["Give a slug: none can be made from the title."]})
            try:
                attrs["slug"] = self._unique("slug", slug, "slug")
            except ValidationError as error:
                raise ValidationError({"slug": error.detail}) from None
        return attrs

    def validate_arxiv_id(self, value):
        return self._normal_form("arxiv_id", value)

    def validate_arxiv_versions(self, versions):
        # A multipart form's "null" (or any non-list) arrives here as None or text.
        if not isinstance(versions, list) or not all(
            isinstance(v, str) and re.fullmatch(r"v[1-9]\d{0,2}", v) for v in versions
        ):
            raise ValidationError('A list of versions such as ["v1", "v2"].')
        return versions

    def to_representation(self, paper):
        data = super().to_representation(paper)
        if "publication_date" in data and paper.known_publication_date is None:
            data["publication_date"] = None  # a placeholder that only orders the lists
        return data

    def validate_doi(self, value):
        return self._normal_form("doi", value)

    def _normal_form(self, name, value):
        """The identifier as the model field stores it; malformed ones refused field by field."""
        try:
            return Paper._meta.get_field(name).clean(value, None)
        except DjangoValidationError as error:
            raise ValidationError(error.messages) from None

    def validate_identifiers(self, attrs):
        """The model's rule (`Paper.clean_identifiers`), as the admin applies it: an identifier
        another paper holds, or a DataCite DOI naming another arXiv paper, is refused."""
        if not {"arxiv_id", "doi"} & attrs.keys():
            return attrs
        current = self.instance
        paper = Paper(
            pk=getattr(current, "pk", None),
            arxiv_id=attrs.get("arxiv_id", getattr(current, "arxiv_id", "")),
            doi=attrs.get("doi", getattr(current, "doi", "")),
        )
        try:
            paper.clean_identifiers()
        except DjangoValidationError as error:
            raise ValidationError(error.message_dict) from None
        typed_versions = arxiv_versions_named(self.initial_data.get("arxiv_id"))
        if typed_versions:  # `2510.13786v2` adds v1 and v2 to the versions seen
            paper.arxiv_versions = attrs.get(
                "arxiv_versions", getattr(current, "arxiv_versions", None) or []
            )
            paper.add_arxiv_versions(typed_versions)
            attrs["arxiv_versions"] = paper.arxiv_versions
        return {**attrs, "arxiv_id": paper.arxiv_id, "doi": paper.doi}

    def check_publishing(self, instance, relations, changed):
        # A new paper's cite key is assigned on its first save, which comes before its
        # authors are written: from the first of the authors it is created with.
        if instance.pk is None and relations.get("author_names"):
            instance.cite_key_author = relations["author_names"][0]
        super().check_publishing(instance, relations, changed)

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
            paper.forget_authorships()


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


class ProvenanceFieldsMixin(serializers.Serializer):
    """Who classified an edge and how, read-only: setting the role or polarity records it."""

    provenance = serializers.ChoiceField(
        source="source",
        choices=CitationSource.choices,
        read_only=True,
        help_text="Who classified it: editor, reader_suggestion (an editor, on a reader's "
        "suggestion), author, or the citation index it was imported from (pith: the seed's "
        "classifier); empty when nobody has classified it.",
    )
    provenance_label = serializers.CharField(
        read_only=True, help_text="The same in words, as the hub shows it."
    )
    classified_at = serializers.DateTimeField(read_only=True, allow_null=True)
    confidence = serializers.FloatField(
        read_only=True,
        allow_null=True,
        help_text="The source's confidence in its classification (0 to 1), where it gives one.",
    )
    is_influential = serializers.BooleanField(
        read_only=True, allow_null=True, help_text="Semantic Scholar's isInfluential flag."
    )


PROVENANCE_FIELDS = [
    "provenance",
    "provenance_label",
    "classified_at",
    "confidence",
    "is_influential",
]


def paper_field(help_text):
    return SlugReferenceField(
        slug_field="slug",
        queryset=Paper.objects.all(),
        error_messages={"does_not_exist": "No paper has the slug “{value}”."},
        help_text=help_text,
    )


class CitationSerializer(ProvenanceFieldsMixin, VersionedModelSerializer):
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
            "representative_reason",
            "publish_unclassified",
            *PROVENANCE_FIELDS,
            *PUBLISHING_FIELDS,
        ]
        # The edge constraints are checked in validate() with field-level messages.
        validators = []

    def validate(self, attrs):
        def current(name):
            if name in attrs:
                return attrs[name]
            return getattr(self.instance, name, None)

        edge = Citation(
            pk=getattr(self.instance, "pk", None),
            citing_paper=current("citing_paper"),
            cited_paper=current("cited_paper"),
            is_representative=bool(current("is_representative")),
            representative_reason=current("representative_reason") or "",
        )
        if hasattr(self.instance, "_loaded_representative"):
            edge._loaded_representative = self.instance._loaded_representative
        try:
            edge.check_edge()
            edge.check_representative()
        except DjangoValidationError as error:
            raise ValidationError(error.message_dict) from None
        return attrs


class CitingPaperSerializer(serializers.ModelSerializer):
    api_url = ApiUrlField("api:paper-detail")
    html_url = HtmlUrlField()

    class Meta:
        model = Paper
        fields = ["api_url", "html_url", "slug", "title", "byline", "publication_date", "arxiv_id"]

    def to_representation(self, paper):
        data = super().to_representation(paper)
        data["publication_date"] = paper.known_publication_date and data["publication_date"]
        return data


class HubCitationSerializer(ProvenanceFieldsMixin, serializers.ModelSerializer):
    """One edge into the hub paper, with the citing paper."""

    citing_paper = CitingPaperSerializer()
    # Null while the edge is not yet classified (the hub lists unclassified edges too).
    role = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    polarity = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)

    class Meta:
        model = Citation
        fields = [
            "id",
            "citing_paper",
            "role",
            "polarity",
            "context",
            "is_representative",
            "representative_reason",
            *PROVENANCE_FIELDS,
        ]


class SummaryRowSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    count = serializers.IntegerField()
    percent = serializers.IntegerField(
        help_text="Share of the citing papers classified on this axis (`percent_of`), not of "
        "every citing paper."
    )
    percent_of = serializers.IntegerField(
        help_text="How many citing papers `percent` is a share of: those classified on this axis."
    )


class CitationSummarySerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Published papers citing it.")
    classified = serializers.IntegerField(help_text="Of those, how many have a role.")
    role_classified = serializers.IntegerField(help_text="Of `total`, how many have a role.")
    role_unclassified = serializers.IntegerField(help_text="Of `total`, how many have no role.")
    polarity_classified = serializers.IntegerField(
        help_text="Of `total`, how many have a polarity."
    )
    polarity_unclassified = serializers.IntegerField(
        help_text="Of `total`, how many have no polarity."
    )
    percent_basis = serializers.CharField(
        help_text="What every `percent` is a share of: `classified`, the citing papers "
        "classified on that row's axis (`role_classified` or `polarity_classified`)."
    )
    headline = serializers.CharField(
        help_text="The role figures in words, with their basis: e.g. “6 of 30 citing papers "
        "are classified by role; all 6 as background.”"
    )
    polarity_headline = serializers.CharField(help_text="The same for polarity.")
    roles = SummaryRowSerializer(many=True)
    polarities = SummaryRowSerializer(many=True)


@extend_schema_serializer(many=False)
class PaperHubSerializer(serializers.Serializer):
    """The answer of /papers/{slug}/citations/: one hub object whose `results` are the citing
    edges (not a paginated list of hubs, which the list view would otherwise be documented as)."""

    paper = CitingPaperSerializer()
    summary = CitationSummarySerializer()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = HubCitationSerializer(many=True)


class TimelineSeriesSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class TimelineCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Public citing papers in this slot of time.")
    by_role = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Role slug → count, for every role in `roles` (zeros included).",
    )
    role_unclassified = serializers.IntegerField(help_text="Of `total`, how many have no role.")
    by_polarity = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Polarity slug → count, for every polarity in `polarities` (zeros included).",
    )
    polarity_unclassified = serializers.IntegerField(
        help_text="Of `total`, how many have no polarity."
    )


class TimelineQuarterSerializer(TimelineCountsSerializer):
    quarter = serializers.CharField(help_text="e.g. 2025-Q1.")
    year = serializers.IntegerField()
    number = serializers.IntegerField(min_value=1, max_value=4, help_text="1 to 4.")
    start = serializers.DateField(help_text="The quarter's first day.")


class TimelineYearSerializer(TimelineCountsSerializer):
    year = serializers.IntegerField()


class CitingTimelineSerializer(serializers.Serializer):
    """The answer of /papers/{slug}/timeline/: the hub's timeline, as its page draws it."""

    paper = CitingPaperSerializer()
    total = serializers.IntegerField(
        help_text="Public citing papers: `dated` + `year_only_total` + `undated_total`; the "
        "hub summary's `total`."
    )
    description = serializers.CharField(help_text="The same figures in words, as the hub says.")
    dated = serializers.IntegerField(
        help_text="Citing papers dated to the day or month, so to a quarter: those in `quarters`."
    )
    year_only_total = serializers.IntegerField(
        help_text="Citing papers dated only to a year: counted in `year_only`, in no quarter."
    )
    undated_total = serializers.IntegerField(
        help_text="Citing papers without a known date: counted in `undated`, in no quarter."
    )
    first_quarter = serializers.CharField(allow_null=True, help_text="e.g. 2023-Q2.")
    last_quarter = serializers.CharField(allow_null=True)
    roles = TimelineSeriesSerializer(
        many=True, help_text="The roles counted, in the vocabulary's order."
    )
    polarities = TimelineSeriesSerializer(many=True)
    quarters = TimelineQuarterSerializer(
        many=True,
        help_text="Every quarter from `first_quarter` to `last_quarter`, oldest first; a "
        "quarter without citing papers is listed with zeros.",
    )
    year_only = TimelineYearSerializer(
        many=True, help_text="Per year, the citing papers dated only to that year."
    )
    undated = TimelineCountsSerializer()
