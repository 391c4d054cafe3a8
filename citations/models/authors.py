"""Authors: one row per person, with a stable slug (their page) and an ORCID iD when known."""

from anyascii import anyascii
from django.core.validators import RegexValidator
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils.text import slugify

from citations.cite_keys import RETRIES

AUTHOR_SLUG_LENGTH = 220
ORCID_PATTERN = r"\A\d{4}-\d{4}-\d{4}-\d{3}[\dX]\Z"


def author_slug_base(name):
    """The ASCII slug an author's name gives before any suffix ("José Müller": "jose-muller",
    "王小明": "wangxiaoming", any script transliterated; a name with nothing to spell:
    "author")."""
    return slugify(anyascii(name).lower())[: AUTHOR_SLUG_LENGTH - 8].strip("-") or "author"


def free_author_slugs(names):
    """The slugs new authors with these names (in creation order) get: each name's base when
    no author holds it, else the base with the first free suffix (-2, -3, ...), none given
    twice in the list. For every writer of authors that skips Author.save() (the bulk
    importer's and the corpus generator's COPY): one query per round of candidates."""
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
