from urllib.parse import parse_qs, urlsplit

from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from simple_history.models import HistoricalRecords
from taggit.models import ItemBase

from bottlenecks.models import Layer
from citations.models import Paper
from publishing.models import Publishable, PublishableQuerySet
from tags.counts import recounting_tags
from tags.matching import MatchingTaggableManager


class ResearchNoteQuerySet(PublishableQuerySet):
    def publish(self):
        return recounting_tags(self, super().publish)

    def unpublish(self):
        return recounting_tags(self, super().unpublish)

    def due_for_review(self, today=None):
        """Notes whose review date has come (today or earlier), the longest waiting first."""
        today = today or timezone.localdate()
        return self.filter(review_by__lte=today).order_by("review_by", "pk")

    def featured(self):
        """The notes shown under "Recent evidence", newest first."""
        return self.published().filter(is_featured=True).order_by("-published_at")

    def with_published_papers(self):
        """The published papers each note is on, into the list `published_papers` (no queryset
        built per note): what a note's list item shows with `show_papers`."""
        return self.prefetch_related(
            models.Prefetch(
                "papers", queryset=Paper.objects.published(), to_attr="published_papers"
            )
        )

    def for_display(self):
        """Figures, tags, and the published papers and layers prefetched, for notes and cards."""
        return self.prefetch_related(
            ResearchNote.figures_prefetch(),
            "tags",
            models.Prefetch("papers", queryset=Paper.objects.published()),
            models.Prefetch("layers", queryset=Layer.objects.published()),
        )


class TaggedNote(ItemBase):
    """A research note's tag: a typed row (see citations.TaggedPaper)."""

    tag = models.ForeignKey("rlscaling.Tag", on_delete=models.CASCADE, related_name="tagged_notes")
    content_object = models.ForeignKey(
        "notes.ResearchNote", on_delete=models.CASCADE, related_name="tagged_items"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["content_object", "tag"], name="tagged_note_unique")
        ]
        indexes = [models.Index(fields=["tag", "content_object"], name="tagged_note_by_tag")]


class ResearchNote(Publishable):
    """An editorial note on one paper or several: what it found and why it matters."""

    title = models.CharField(max_length=300)
    slug = models.SlugField(max_length=200, unique=True)
    dek = models.TextField("summary", help_text="Standfirst shown on cards and in feeds.")
    body = models.TextField(blank=True, help_text="Markdown.")
    why_it_matters = models.TextField(blank=True)
    caveat = models.TextField(blank=True, help_text='e.g. "work in progress".')
    is_featured = models.BooleanField(
        default=False, db_index=True, help_text='Show under "Recent evidence" on the home page.'
    )
    papers = models.ManyToManyField("citations.Paper", blank=True, related_name="notes")
    layers = models.ManyToManyField("bottlenecks.Layer", blank=True, related_name="notes")
    tags = MatchingTaggableManager(blank=True, through=TaggedNote)
    review_by = models.DateField(
        "review by",
        null=True,
        blank=True,
        db_index=True,
        help_text=(
            "Optional: when an editor should check this note again (figures move, papers get "
            "revised). From that day it is listed on the dashboard as due for review."
        ),
    )

    objects = ResearchNoteQuerySet.as_manager()

    class Meta(Publishable.Meta):
        ordering = ["-published_at", "-id"]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("notes:note-detail", kwargs={"slug": self.slug})

    @staticmethod
    def figure_claims(claims):
        """Of `claims` (the note's), those that show as its figures: published, with a figure,
        in the order they were entered (a note's figures used to carry an explicit order; the
        migration that made them claims created them in that order)."""
        return claims.published().exclude(figure="").order_by("pk")

    @staticmethod
    def figures_prefetch():
        """Loads `figures` (below) for many notes at once. Claims live in evidence, above notes:
        their queryset is reached through the relation evidence declares, not imported."""
        claims = ResearchNote._meta.get_field("claims").related_model.objects.all()
        return models.Prefetch(
            "claims", queryset=ResearchNote.figure_claims(claims), to_attr="figures"
        )

    @cached_property
    def figures(self):
        """The figures the note reports: its published claims that give one. A draft claim's
        figure never shows (for_display() prefetches them)."""
        return list(self.figure_claims(self.claims.all()))

    @cached_property
    def published_papers(self):
        """The published papers the note is on (`with_published_papers()` loads them)."""
        return list(self.papers.published())

    def publishing_errors(self, relations=None):
        errors = {}
        if not self.body.strip():
            errors["body"] = ["A published note needs a body."]
        if not self.related_values("papers", relations):
            errors["papers"] = ["A published note needs the paper(s) it is about."]
        return errors


class CommunityPost(Publishable):
    """Outside discussion worth reading (e.g. LessWrong posts), linked out, not hosted."""

    title = models.CharField(max_length=300)
    slug = models.SlugField(max_length=200, unique=True)
    author = models.CharField(max_length=200)
    source = models.CharField(max_length=100, default="LessWrong")
    url = models.URLField("URL", max_length=500)
    summary = models.TextField()
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta(Publishable.Meta):
        ordering = ["order", "-published_at"]

    @property
    def links_to_search(self):
        """Whether `url` opens a search on the source rather than the post itself (the seeds
        give no post addresses): the link then says so."""
        parts = urlsplit(self.url)
        query = parse_qs(parts.query)
        return parts.path.rstrip("/").endswith("/search") or bool({"q", "query"} & query.keys())

    def __str__(self):
        return self.title


class Question(Publishable):
    """A question with its answer: either for AI teams, or a FAQ entry."""

    class Kind(models.TextChoices):
        TEAM = "team", "Question for AI teams"
        FAQ = "faq", "Frequently asked question"

    kind = models.CharField(max_length=10, choices=Kind.choices, db_index=True)
    question = models.CharField(max_length=300)
    answer = models.TextField()
    order = models.PositiveSmallIntegerField(default=0)

    class Meta(Publishable.Meta):
        ordering = ["kind", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "question"], name="unique_question_per_kind")
        ]

    def __str__(self):
        return self.question


class GuideSection(models.Model):
    """The editor-written copy of one section of the field guide or index page."""

    key = models.SlugField(max_length=50, unique=True, help_text="Where the section appears.")
    number = models.CharField(max_length=5, blank=True, help_text='e.g. "01"; blank for none.')
    eyebrow = models.CharField(max_length=200, blank=True)
    heading = models.CharField(max_length=300)
    intro = models.TextField(blank=True)
    footnote = models.TextField(blank=True, help_text="Closing paragraph, e.g. a caveat.")
    order = models.PositiveSmallIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        ordering = ["order", "key"]

    def __str__(self):
        return f"{self.key}: {self.heading}"
