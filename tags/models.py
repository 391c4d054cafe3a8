"""The site app's own tables: the publishing machinery's bookkeeping (publishing/)
and the tags papers and research notes share."""

from django.db import models
from django.db.models.functions import Lower
from taggit.models import TagBase

from core.constraints import NamedConstraintErrors
from publishing.revisions import DraftRevision  # noqa: F401
from tags.matching import tag_key


class Tag(NamedConstraintErrors, TagBase):
    """A tag on papers and research notes. `name` is the key importers and the admin's tag
    fields use ("technical-report"); readers see `label`: the editor-managed display name
    ("Technical report"), or the name while it has none.

    The public counts are stored (tags/counts.py `recount_tags`): counting tagged rows
    through the publication rule on every request grew with the corpus."""

    display_name = models.CharField(
        max_length=100,
        blank=True,
        help_text='How readers see the tag, e.g. "GRPO" or "Technical report". Empty: the name.',
    )
    description = models.TextField(
        blank=True, help_text="One or two sentences shown on the tag's page (Markdown-free)."
    )
    public_paper_count = models.PositiveIntegerField("published papers", default=0, editable=False)
    public_note_count = models.PositiveIntegerField(
        "published research notes", default=0, editable=False
    )

    class Meta:
        verbose_name = "tag"
        ordering = ["name"]
        constraints = [
            # Names differing only in case are one tag (TAGGIT_CASE_INSENSITIVE finds it).
            models.UniqueConstraint(Lower("name"), name="tag_name_lower_unique"),
        ]
        indexes = [
            models.Index(fields=["public_paper_count"], name="tag_public_papers"),
            models.Index(fields=["public_note_count"], name="tag_public_notes"),
        ]

    def __str__(self):
        return self.label

    def slugify(self, tag, i=None):
        """taggit's slug keeps letters such as é, which the tag's address (`<slug:slug>`)
        does not take: fold to ASCII, the key two spellings of one tag share."""
        slug = tag_key(tag)
        if i is not None:
            slug = f"{slug[: 100 - len(str(i)) - 1]}_{i}"
        return slug

    @property
    def label(self):
        return self.display_name or self.name
