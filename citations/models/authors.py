"""Authors: one row per person, with a stable slug (their page) and an ORCID iD when known;
the old slugs that answer with a 301 to an author's page (`AuthorSlugAlias`, as papers keep
theirs), and the log of merges of duplicate authors (`AuthorMerge`, see author_merging.py)."""

from anyascii import anyascii
from django.core.validators import RegexValidator
from django.db import IntegrityError, models, transaction
from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils.text import slugify
from simple_history.models import HistoricalRecords

from citations.cite_keys import RETRIES
from citations.identity import OldSlugs
from publishing.history import RelationSnapshot
from publishing.models import published_q

AUTHOR_SLUG_LENGTH = 220
ORCID_PATTERN = r"\A\d{4}-\d{4}-\d{4}-\d{3}[\dX]\Z"


def author_slug_base(name):
    """The ASCII slug an author's name gives before any suffix ("José Müller": "jose-muller",
    "王小明": "wangxiaoming", any script transliterated; a name with nothing to spell:
    "author")."""
    return slugify(anyascii(name).lower())[: AUTHOR_SLUG_LENGTH - 8].strip("-") or "author"


def free_author_slugs(names):
    """The slugs new authors with these names (in creation order) get: each name's base when
    no author holds it (nor has it as an old slug), else the base with the first free suffix
    (-2, -3, ...), none given twice in the list. For every writer of authors that skips
    Author.save() (the bulk importer's and the corpus generator's COPY): two queries per round
    of candidates."""
    bases = [author_slug_base(name) for name in names]
    result = [None] * len(bases)
    needed = {}
    for index, base in enumerate(bases):
        needed.setdefault(base, []).append(index)
    next_suffix = dict.fromkeys(needed, 1)
    given = set()
    while needed:
        candidates = {}
        for base, indices in needed.items():
            start = next_suffix[base]
            next_suffix[base] = start + len(indices)
            candidates[base] = [
                base if n == 1 else f"{base}-{n}" for n in range(start, start + len(indices))
            ]
        wanted = [slug for slugs in candidates.values() for slug in slugs]
        taken = set()
        for start in range(0, len(wanted), 5000):
            chunk = wanted[start : start + 5000]
            taken |= set(Author.objects.filter(slug__in=chunk).values_list("slug", flat=True))
            # An old address of another author stays its redirect.
            aliases = AuthorSlugAlias.objects.filter(slug__in=chunk)
            taken |= set(aliases.values_list("slug", flat=True))
        waiting = {}
        for base, slugs in candidates.items():
            free = [slug for slug in slugs if slug not in taken and slug not in given]
            indices = needed[base]
            # Fewer free slugs than names: the rest wait for the next round.
            for index, slug in zip(indices, free, strict=False):
                result[index] = slug
                given.add(slug)
            if len(free) < len(indices):
                waiting[base] = indices[len(free) :]
        needed = waiting
    return result


class AuthorQuerySet(models.QuerySet):
    def with_published_papers(self):
        """Authors named on a published paper: those with a page (an author named only on
        drafts has none and is never found)."""
        authorship = self.model._meta.get_field("authorships").related_model
        published = authorship.objects.filter(published_q("paper__"), author=OuterRef("pk"))
        return self.filter(Exists(published))


class Author(models.Model):
    name = models.CharField(max_length=200, unique=True)
    # The author page's address (/authors/<slug>/): ASCII from the name, a suffix when taken;
    # assigned on the first save (bulk writers: free_author_slugs()) and kept when the name
    # is corrected, so links stay.
    slug = models.SlugField(max_length=AUTHOR_SLUG_LENGTH, unique=True, blank=True)
    orcid = models.CharField(
        "ORCID iD",
        max_length=19,
        blank=True,
        default="",
        db_default="",
        validators=[RegexValidator(ORCID_PATTERN, "An ORCID iD looks like 0000-0002-1825-0097.")],
        help_text="e.g. 0000-0002-1825-0097, without https://orcid.org/.",
    )

    objects = AuthorQuerySet.as_manager()
    # Name, slug and ORCID as they were after each change (a merge, its undo): what a merge
    # took from the merged author can be read and put back.
    # Its relations are recorded too, so recovering a deleted author brings back its bylines.
    history = HistoricalRecords(bases=[RelationSnapshot])

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        """Gives a new author (or one saved without a slug) the first free slug of its name;
        should another writer take it first, the unique constraint refuses this save and the
        next free slug is tried."""
        if self.slug:
            super().save(*args, **kwargs)
            return
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "slug"}
        for attempt in range(RETRIES):
            (self.slug,) = free_author_slugs([self.name])
            try:
                with transaction.atomic(using=kwargs.get("using")):
                    super().save(*args, **kwargs)
                return
            except IntegrityError:
                taken = Author._base_manager.filter(slug=self.slug).exclude(pk=self.pk)
                if attempt == RETRIES - 1 or not taken.exists():
                    self.slug = ""
                    raise

    def get_absolute_url(self):
        return reverse("discovery:author-detail", kwargs={"slug": self.slug})

    @property
    def orcid_url(self):
        return f"https://orcid.org/{self.orcid}" if self.orcid else ""


class AuthorSlugAlias(models.Model):
    """An old slug of an author (changed, or of an author merged into this one) that answers
    with a 301 to the author's page. Only a slug readers could reach becomes one: the author
    had a published paper then."""

    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="slug_aliases")
    slug = models.SlugField(max_length=AUTHOR_SLUG_LENGTH, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "author slug aliases"

    def __str__(self):
        return f"{self.slug} → {self.author_id}"


AUTHOR_ALIAS_TAKEN = (
    "“{slug}” is an old address of {name} and answers with a redirect to their page; choose "
    "another slug (taking it would turn that live redirect into another author's page)."
)


def author_slug_was_public(author, slug):
    """Readers could reach an author's page when the author had a published paper."""
    return Author.objects.with_published_papers().filter(pk=author.pk).exists()


# The rule papers follow too (citations/identity.py), with authors' aliases and wording.
AUTHOR_SLUGS = OldSlugs(
    AuthorSlugAlias,
    "author",
    taken=lambda slug, author: AUTHOR_ALIAS_TAKEN.format(slug=slug, name=author.name),
    was_public=author_slug_was_public,
)
author_alias_refusal = AUTHOR_SLUGS.refusal
remember_old_author_slug = AUTHOR_SLUGS.remember_old_slug
keep_old_author_slug = AUTHOR_SLUGS.keep_old_slug


class AuthorMerge(models.Model):
    """A merge of one author into another, with what it takes to undo it
    (citations/author_merging.py)."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    kept = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="merges")
    merged_name = models.CharField(max_length=200)
    merged_slug = models.SlugField(max_length=AUTHOR_SLUG_LENGTH)
    merged_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    merged_at = models.DateTimeField(auto_now_add=True)
    # The merged author's row, its authorships moved and dropped, aliases moved, and what
    # the kept author took from it.
    snapshot = models.JSONField()
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-merged_at", "-id"]

    def __str__(self):
        return f"{self.merged_slug} merged into {self.kept_id}"
