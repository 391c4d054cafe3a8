"""`/api/v1/tags/`: tags on papers and research notes, with how many of each carry them."""

from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from rest_framework import serializers

from apikit.fields import ApiUrlField
from apikit.permissions import sees_drafts
from apikit.viewsets import ReadOnlyViewSet
from tags.counts import public_tags, through_models
from tags.models import Tag

# The typed through tables in the order of the counts (papers, notes).
THROUGH = [through_models()[field] for field in ("public_paper_count", "public_note_count")]


class TagSerializer(serializers.ModelSerializer):
    api_url = ApiUrlField("api:tag-detail")
    # taggit's slugs keep letters such as ø, which the JSON Schema pattern of a SlugField
    # (ECMA-262 `\w`, ASCII only) would refuse.
    slug = serializers.CharField(read_only=True)
    display_name = serializers.CharField(
        source="label", read_only=True, help_text='How readers see it, e.g. "GRPO".'
    )
    paper_count = serializers.IntegerField(read_only=True)
    note_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Tag
        fields = [
            "api_url",
            "slug",
            "name",
            "display_name",
            "description",
            "paper_count",
            "note_count",
        ]


def tagged_count(model, user):
    """Per tag, how many rows of `model` visible to `user` carry it (a correlated subquery
    over the typed through table): editors' counts, which include drafts."""
    items = (
        model.tags.through.objects.filter(
            tag=OuterRef("pk"), content_object__in=model.objects.visible_to(user).values("pk")
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
        user = self.request.user
        paper, note = (through.content_object.field.related_model for through in THROUGH)
        if not any(sees_drafts(user, model) for model in (paper, note)):
            # Readers: the stored public counts (tags/counts.py), flat in corpus size.
            return (
                public_tags()
                .annotate(paper_count=F("public_paper_count"), note_count=F("public_note_count"))
                .order_by("name")
            )
        return (
            Tag.objects.annotate(
                paper_count=tagged_count(paper, user), note_count=tagged_count(note, user)
            )
            .exclude(paper_count=0, note_count=0)
            .order_by("name")
        )
