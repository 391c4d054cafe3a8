from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.core.validators import (
    MaxLengthValidator,
    MaxValueValidator,
    MinValueValidator,
    RegexValidator,
)
from django.db import IntegrityError, connection, models, transaction
from django.db.models import (
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    Value,
    prefetch_related_objects,
)
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import cached_property
from simple_history.models import HistoricalRecords
from taggit.models import ItemBase

from bottlenecks.models import Layer
from citations.cite_keys import RETRIES, free_keys, paper_base_key
from citations.dates import (
    DatePrecision,
    date_display,
    date_iso,
    date_parts,
    known_date,
    known_date_q,
    known_year,
)
from citations.identifiers import (
    ArxivIdField,
    DoiField,
    arxiv_id_from_doi,
    arxiv_versions_named,
    merged_arxiv_versions,
)
from citations.models.authors import Author
from citations.models.vocabularies import CitationPolarity, CitationRole
from citations.stats.counts import CitingTimelineCount, counted_fields, recount_citations
from citations.stats.facet_counts import recount_paper_facets
from publishing.admin_search import contains_text, search_words
from publishing.models import Publishable, PublishableQuerySet, published_q
from tags.counts import recounting_tags, tag_list
from tags.matching import MatchingTaggableManager

IDENTIFIER_FIELDS = ("arxiv_id", "doi")


# The longest abstract the site keeps (characters), at every door.
MAX_ABSTRACT_LENGTH = 100_000


# Newest publication first, undated papers last on every database (PostgreSQL puts NULLs first
# in a plain descending sort, SQLite last), then the newest row.
# The partial indexes' condition: the lists' published rule narrowed to what an index can hold
# (the times in published_q() move with the clock).
PUBLISHED = Q(status="published")
NEWEST_FIRST = (F("publication_date").desc(nulls_last=True), F("id").desc())
OLDEST_FIRST = (F("publication_date").asc(nulls_last=True), F("id").asc())


class TaggedPaper(ItemBase):
    """A paper's tag: a typed row (real foreign keys, indexed both ways) instead of taggit's
    generic `object_id`, which PostgreSQL joined through a cast and could not index."""

    tag = models.ForeignKey("rlscaling.Tag", on_delete=models.CASCADE, related_name="tagged_papers")
    content_object = models.ForeignKey(
        "citations.Paper", on_delete=models.CASCADE, related_name="tagged_items"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["content_object", "tag"], name="tagged_paper_unique")
        ]
        indexes = [models.Index(fields=["tag", "content_object"], name="tagged_paper_by_tag")]


class PublicationType(models.TextChoices):
    ARTICLE = "article", "Journal article"
    CONFERENCE = "conference", "Conference paper"
    PREPRINT = "preprint", "Preprint"
    REPORT = "report", "Technical report"
    OTHER = "other", "Other (blog post, release note, ...)"


def authorships_with_authors():
    """The prefetch of a paper's authorships, each with its author, into the list
    `authorship_list` (with `to_attr`, Django builds no queryset per paper to hold them: a list
    download of 1,000 papers built 1,000). A writer of authorships on a paper loaded so drops
    the list (`forget_authorships()`)."""
    return Prefetch(
        "authorships",
        queryset=Authorship.objects.select_related("author"),
        to_attr="authorship_list",
    )


def with_author_names(papers):
    """`papers`, each with its authors' names in order, read as values in one query: what a list
    download of 1,000 papers needs, without the ~10,000 authorship and author instances the
    prefetch builds (decision 0016)."""
    names = {paper.pk: [] for paper in papers}
    rows = (
        Authorship.objects.filter(paper__in=list(names))
        .order_by("paper", "position", "id")
        .values_list("paper", "author__name")
    )
    for paper, name in rows:
        names[paper].append(name)
    for paper in papers:
        paper.__dict__["author_name_list"] = names[paper.pk]
    return papers


def list_foot_prefetches():
    """What a paper's list item shows in its foot (citations/includes/paper_item.html with
    `show_foot`): the tags and the published research notes, into the lists `tag_list` and
    `published_notes` (with `to_attr`, Django builds no queryset per paper to hold them)."""
    # Notes sit above citations and add the relation: its model is read from it, not imported.
    notes = Paper._meta.get_field("notes").related_model
    return [
        tag_list(),
        Prefetch("notes", queryset=notes.objects.published(), to_attr="published_notes"),
    ]


def with_authors_where_shown(items):
    """`items`, with the authors of the papers among them that have no byline: a feed entry or
    a search hit names the byline, else the authors, and nearly every paper has a byline."""
    prefetch_related_objects(
        [item for item in items if isinstance(item, Paper) and not item.byline],
        authorships_with_authors(),
    )
    return items


class PaperQuerySet(PublishableQuerySet):
    def without_authors(self):
        """Papers with no author listed (NOT EXISTS: an anti-join, not a LEFT JOIN of every
        authorship)."""
        return self.exclude(Exists(Authorship.objects.filter(paper=OuterRef("pk"))))

    def published_in(self, year):
        """Papers whose publication year is a fact and is `year` (an unknown date's placeholder
        only orders the lists)."""
        return self.with_known_date().filter(publication_date__year=year)

    def with_known_date(self):
        """Papers whose publication date is a fact, to a day, a month or a year."""
        return self.filter(known_date_q())

    def newest_first(self):
        return self.order_by(*NEWEST_FIRST)

    def oldest_first(self):
        return self.order_by(*OLDEST_FIRST)

    def in_research_index(self):
        return self.published().filter(in_research_index=True)

    def latest_research(self):
        """Newest dated papers, for the field guide's "Latest research" section."""
        return self.published().filter(publication_date__isnull=False).newest_first()

    def with_authors(self):
        return self.prefetch_related(authorships_with_authors())

    def publish(self):
        return self._recounting(super().publish)

    def unpublish(self):
        return self._recounting(super().unpublish)

    def _recounting(self, change):
        """A bulk publication change moves the stored counts of the papers these cite, of
        their tags (tags/counts.py) and of their years, tags and layers (facet_counts.py)."""
        changed = recounting_tags(self, lambda: self._recounting_citations(change))
        recount_paper_facets()
        return changed

    def _recounting_citations(self, change):
        cited = set(
            Citation.objects.filter(citing_paper__in=self.values("pk")).values_list(
                "cited_paper", flat=True
            )
        )
        changed = change()
        recount_citations(cited)
        return changed

    def with_stored_counts(self):
        """Each paper's stored citing counts (citations/stats/counts.py): `citation_count` joined
        and `cited_by_count` annotated, sortable through the index citation_count_total."""
        return self.select_related("citation_count").annotate(
            cited_by_count=F("citation_count__total")
        )

    def counted(self):
        """Only papers with their stored counts row, which every paper has (written when the
        paper is created; the bulk paths recount what they create). An inner join, so sorting
        by the count walks the index citation_count_total instead of sorting every paper."""
        return self.filter(citation_count__isnull=False)

    def for_listing(self):
        """Authors, tags and published layers prefetched: what the API shows of each paper in a
        list (pages prefetch what their list items show: `with_list_foot()`)."""
        return self.with_authors().prefetch_related(
            "tags", Prefetch("layers", queryset=Layer.objects.published())
        )

    def with_list_foot(self):
        """What the list items' feet show, prefetched (`list_foot_prefetches()`)."""
        return self.prefetch_related(*list_foot_prefetches())

    def search(self, text):
        """Papers matching `text`: full-text search ranked by relevance on PostgreSQL
        (annotates `rank`), a case-insensitive substring match elsewhere. PostgreSQL matches
        the stored `search_document` (GIN-indexed, kept by a trigger: migration 0005)."""
        text = (text or "").strip()
        if not text:
            return self
        if connection.vendor == "postgresql":
            from django.contrib.postgres.search import SearchQuery, SearchRank

            query = SearchQuery(text, search_type="websearch", config="english")
            return self.filter(search_document=query).annotate(
                rank=SearchRank(F("search_document"), query)
            )
        return self.filter(
            Q(title__icontains=text)
            | Q(byline__icontains=text)
            | Q(institution__icontains=text)
            | Q(summary__icontains=text)
            | Q(abstract__icontains=text)
            | Q(arxiv_id__iexact=text)
            | Q(doi__iexact=text)
            | Exists(Authorship.objects.filter(paper=OuterRef("pk"), author__name__icontains=text))
        )


class Paper(Publishable):
    """A paper, report or release note the site tracks, and the hub of who cites it."""

    title = models.CharField(max_length=500)
    slug = models.SlugField(max_length=200, unique=True)
    byline = models.CharField(
        max_length=200,
        blank=True,
        help_text="First author or organisation, as shown on the research index.",
    )
    authors = models.ManyToManyField(Author, through="Authorship", related_name="papers")
    institution = models.CharField(max_length=200, blank=True)
    publication_date = models.DateField(null=True, blank=True, db_index=True)
    date_precision = models.CharField(
        "date known to the",
        max_length=10,
        choices=DatePrecision,
        default=DatePrecision.DAY,
        db_default=DatePrecision.DAY,
        help_text="How much of the publication date is a fact. “Unknown” shows no date anywhere "
        "(pages, exports, API); the date then only places the paper in the lists.",
    )
    arxiv_id = ArxivIdField(
        "arXiv id",
        max_length=32,
        blank=True,
        help_text="e.g. 2510.13786 or hep-th/9901001; a prefix, URL or version suffix is removed.",
    )
    doi = DoiField(
        "DOI",
        max_length=200,
        blank=True,
        help_text="e.g. 10.48550/arXiv.2510.13786; stored in lower case, without resolver URL.",
    )
    arxiv_versions = models.JSONField(
        "arXiv versions",
        default=list,
        blank=True,
        db_default=Value([], output_field=models.JSONField()),
        help_text="The versions seen, e.g. v1, v2; typing a versioned id above adds its own.",
    )
    url = models.URLField("URL", max_length=500, blank=True)
    code_url = models.URLField(
        "code",
        max_length=500,
        blank=True,
        default="",
        db_default="",
        help_text="The paper's code repository, e.g. https://github.com/org/repo.",
    )
    # What kind of publication and where: the exports' entry types (@article, @inproceedings,
    # CSL and RIS types) and their journal or proceedings. Database defaults too, because bulk
    # paths (generate_corpus's COPY) write rows without naming them.
    publication_type = models.CharField(
        max_length=20,
        choices=PublicationType,
        blank=True,
        default="",
        db_default="",
        help_text="Leave empty when unknown: an arXiv paper is then exported as a preprint.",
    )
    venue = models.CharField(
        max_length=300,
        blank=True,
        default="",
        db_default="",
        help_text="Journal or conference, e.g. NeurIPS 2025.",
    )
    arxiv_category = models.CharField(
        "arXiv primary category",
        max_length=40,
        blank=True,
        default="",
        db_default="",
        help_text="e.g. cs.LG (BibTeX's primaryClass).",
    )
    # Bounded at every door (admin, API, importers): one huge abstract made a 40 MB hub page.
    abstract = models.TextField(blank=True, validators=[MaxLengthValidator(MAX_ABSTRACT_LENGTH)])
    summary = models.TextField(blank=True, help_text="Original one-paragraph editorial summary.")
    is_canonical_reference = models.BooleanField(default=False, db_index=True)
    in_research_index = models.BooleanField(
        default=True,
        db_index=True,
        help_text="List on the research index. Off for papers held only as citation records.",
    )
    layers = models.ManyToManyField(
        "bottlenecks.Layer", blank=True, related_name="papers", help_text="Layers it bears on."
    )
    tags = MatchingTaggableManager(blank=True, through=TaggedPaper)
    # PostgreSQL: title and identifiers (A), byline, institution, authors and summary (B),
    # abstract (C), written by a database trigger on every insert and update (0005, 0009),
    # so bulk paths need no code. Empty on SQLite. Reusable by a site-wide search.
    search_document = SearchVectorField(null=True, editable=False)
    # How every export names the paper (citations/cite_keys.py): assigned once, on the first
    # save without one, and never recomputed, since people cite it from their .bib files.
    cite_key = models.CharField(
        "cite key",
        max_length=1000,
        blank=True,
        default="",
        db_default="",
        validators=[
            RegexValidator(
                r"\A[A-Za-z0-9_:./+-]+\Z",
                "Letters, digits and _ : . / + - only: the characters a BibTeX key may hold "
                "in every tool.",
            )
        ],
        help_text="How the exports (BibTeX, RIS, CSL-JSON) name the paper. Assigned once when "
        "the paper is created; people cite it from their .bib files, so change it only to "
        "correct it. Left empty, the paper keeps the key it has.",
    )

    objects = PaperQuerySet.as_manager()
    # Recorded with each history entry and restored on revert (publishing/history.py).
    history_children = ("authorships",)

    class Meta(Publishable.Meta):
        ordering = NEWEST_FIRST
        constraints = [
            models.UniqueConstraint(
                fields=["arxiv_id"], condition=~Q(arxiv_id=""), name="unique_paper_arxiv_id"
            ),
            models.UniqueConstraint(fields=["doi"], condition=~Q(doi=""), name="unique_paper_doi"),
            # Also what a new key is checked against (citations/cite_keys.py).
            models.UniqueConstraint(
                fields=["cite_key"],
                condition=~Q(cite_key=""),
                name="unique_paper_cite_key",
                violation_error_message="Another paper has this cite key: each key names one "
                "paper.",
            ),
        ]
        indexes = [
            # Newest first without a sort on SQLite, where undated papers sort last anyway.
            # PostgreSQL's NULLS LAST indexes are created by migrations 0002, 0003 and 0005.
            models.Index(fields=["-publication_date", "-id"], name="paper_newest"),
            # The papers sitemap's newest change: an index walk (web/sitemaps.py).
            models.Index(fields=["-updated_at"], name="paper_updated"),
            # The dashboard's and the list's "no arXiv id, DOI or URL": a count of a short index.
            models.Index(
                fields=["id"], condition=Q(arxiv_id="", doi="", url=""), name="paper_no_identifier"
            ),
            # The API's and /papers/' orderings over the published papers, tie-breaker included:
            # an index walk that stops after one page instead of a scan and top-N sort of every
            # published paper. Partial, as the lists only ever show published papers.
            models.Index(fields=["title", "id"], condition=PUBLISHED, name="paper_published_title"),
            models.Index(
                Lower("title"), "id", condition=PUBLISHED, name="paper_published_title_ci"
            ),
            models.Index(
                fields=["-created_at", "-id"], condition=PUBLISHED, name="paper_published_created"
            ),
            models.Index(
                fields=["-updated_at", "-id"], condition=PUBLISHED, name="paper_published_updated"
            ),
            # COUNT of the published papers (/papers/' page count): an index-only scan.
            models.Index(
                fields=["published_at"],
                include=["unpublish_at"],
                condition=PUBLISHED,
                name="paper_published_count",
            ),
        ]

    def __str__(self):
        return self.title

    @classmethod
    def from_db(cls, db, field_names, values):
        paper = super().from_db(db, field_names, values)
        # Compared on save (citations/stats/counts.py): did the publication or the date change?
        paper._loaded_counted = counted_fields(paper)
        return paper

    # The first author a writer is about to add to a new paper (the admin's author rows, an
    # import's author list): the key is assigned on the first save, before the authors exist.
    cite_key_author = None

    def save(self, *args, **kwargs):
        """Assigns the cite key of a paper that has none (citations/cite_keys.py): its base
        key with the first free suffix, from its fields and first author (`cite_key_author`
        for a new paper, else the one stored). Should another writer take that key first, the
        unique constraint refuses this one and the next free key is tried."""
        if self.cite_key:
            super().save(*args, **kwargs)
            return
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "cite_key"}
        if self.pk is not None:
            # Left empty (a form, a version from before keys were stored): the key it has.
            rows = type(self)._base_manager.filter(pk=self.pk).exclude(cite_key="")
            self.cite_key = rows.values_list("cite_key", flat=True).first() or ""
            if self.cite_key:
                super().save(*args, **kwargs)
                return
        first_author = self.cite_key_author
        if first_author is None and self.pk is not None:
            rows = Authorship.objects.filter(paper_id=self.pk).order_by("position", "id")
            first_author = rows.values_list("author__name", flat=True).first()
        base = paper_base_key(self, first_author)
        version = self.version
        for attempt in range(RETRIES):
            (self.cite_key,) = free_keys([base])
            try:
                with transaction.atomic(using=kwargs.get("using")):
                    super().save(*args, **kwargs)
                return
            except IntegrityError:
                taken = type(self)._base_manager.filter(cite_key=self.cite_key)
                self.version = version  # Publishable.save() counted this try
                if attempt == RETRIES - 1 or not taken.exclude(pk=self.pk).exists():
                    self.cite_key = ""
                    raise

    def get_absolute_url(self):
        return self.url_for_slug(self.slug)

    @staticmethod
    def url_for_slug(slug):
        return reverse("citations:paper-detail", kwargs={"slug": slug})

    @cached_property
    def tag_list(self):
        """The paper's tags, as a list (`with_list_foot()` loads it)."""
        return list(self.tags.all())

    @cached_property
    def published_notes(self):
        """The published research notes on the paper (`with_list_foot()` loads them)."""
        return list(self.notes.published())

    @property
    def has_source(self):
        """Whether a reader can check it at its source: an arXiv id, DOI or URL on record."""
        return bool(self.arxiv_id or self.doi or self.url)

    @property
    def known_publication_date(self):
        """The publication date where it is a fact, else None: what every output shows
        (citations/dates.py holds the rule)."""
        return known_date(self.publication_date, self.date_precision)

    @property
    def known_publication_year(self):
        """The publication year where it is a fact, else None."""
        return known_year(self.publication_date, self.date_precision)

    @property
    def publication_date_parts(self):
        """[year, month, day] cut to what is known (CSL's date-parts); [] when unknown."""
        return date_parts(self.publication_date, self.date_precision)

    @property
    def publication_date_iso(self):
        """The known part of the date in ISO 8601: 2025-03-18, 2025-03 or 2025; '' if unknown."""
        return date_iso(self.publication_date, self.date_precision)

    @property
    def publication_date_display(self):
        """The known part of the date for readers: Mar 18, 2025, Mar 2025 or 2025."""
        return date_display(self.publication_date, self.date_precision)

    publishing_rule_fields = {"arxiv_id": ("arxiv_id", "doi", "url")}

    def publishing_errors(self, relations=None):
        errors = {}
        if not self.summary.strip():
            errors["summary"] = ["A published paper needs a summary."]
        if not (self.arxiv_id or self.doi or self.url):
            errors["arxiv_id"] = [
                "A published paper needs an arXiv id, a DOI or a URL, so readers can find it."
            ]
        return errors

    def clean(self):
        super().clean()
        self.check_identifiers()

    def clean_fields(self, exclude=None):
        # Before the field drops the version suffix of what was typed (2510.13786v2).
        if not exclude or "arxiv_id" not in exclude:
            self.add_arxiv_versions(arxiv_versions_named(self.arxiv_id))
        super().clean_fields(exclude=exclude)

    def add_arxiv_versions(self, versions):
        self.arxiv_versions = merged_arxiv_versions(self.arxiv_versions, versions)

    def clean_identifiers(self):
        """Normalise and check `arxiv_id` and `doi` alone (what `full_clean()` does for them),
        for a door that validates fields itself, such as the API's serializer."""
        errors = {}
        for name in IDENTIFIER_FIELDS:
            try:
                setattr(self, name, self._meta.get_field(name).clean(getattr(self, name), self))
            except ValidationError as error:
                errors[name] = error.error_list
        try:
            self.check_identifiers(skip=errors)
        except ValidationError as error:
            errors.update(error.error_dict)
        if errors:
            raise ValidationError(errors)

    def check_identifiers(self, skip=()):
        """One paper per identifier: an arXiv DataCite DOI (10.48550/arXiv.<id>) names the
        arXiv paper, so it fills in or must agree with `arxiv_id`; neither may be another
        paper's. Expects normalised values (fields that did not normalise are skipped)."""
        if any(name in skip or not self._is_normal(name) for name in IDENTIFIER_FIELDS):
            return
        named = arxiv_id_from_doi(self.doi)
        if named and self.arxiv_id and named != self.arxiv_id:
            raise ValidationError(
                {"doi": f"This DOI names the arXiv paper {named}, not {self.arxiv_id}."}
            )
        arxiv_from_doi = named and not self.arxiv_id
        if arxiv_from_doi:
            self.arxiv_id = named
        from citations.identity import (  # also the identifiers merged papers left
            Scheme,
            identifier_q,
        )

        others = Paper.objects.exclude(pk=self.pk) if self.pk else Paper.objects.all()
        taken = {}
        if self.arxiv_id:
            holder = others.filter(identifier_q({Scheme.ARXIV: self.arxiv_id})).first()
            if holder:
                field = "doi" if arxiv_from_doi else "arxiv_id"
                taken[field] = f"The paper “{holder.title}” already has this arXiv id."
        if self.doi and "doi" not in taken:
            holder = others.filter(identifier_q({Scheme.DOI: self.doi})).first()
            if holder:
                taken["doi"] = f"The paper “{holder.title}” already has this DOI."
        if taken:
            if arxiv_from_doi:
                self.arxiv_id = ""  # the DOI's arXiv id is refused with the DOI, not twice
            raise ValidationError(taken)

    def _is_normal(self, name):
        value = getattr(self, name)
        try:
            return not value or self._meta.get_field(name).normalise(value) == value
        except ValidationError:
            return False

    @property
    def arxiv_url(self):
        return f"https://arxiv.org/abs/{self.arxiv_id}" if self.arxiv_id else ""

    @property
    def institution_beyond_byline(self):
        """The institution, unless the byline shown in its place already says it (a paper
        without listed authors whose byline is its institution: "Z.ai", not "Z.ai / Z.ai")."""
        if self.author_names or self.institution.strip() != self.byline.strip():
            return self.institution
        return ""

    @property
    def arxiv_pdf_url(self):
        return f"https://arxiv.org/pdf/{self.arxiv_id}" if self.arxiv_id else ""

    @property
    def url_host(self):
        """The host of `url` without "www.", as a source link's text: "z.ai"."""
        return urlsplit(self.url).hostname.removeprefix("www.") if self.url else ""

    @property
    def doi_url(self):
        return f"https://doi.org/{self.doi}" if self.doi else ""

    @property
    def author_names(self):
        names = self.__dict__.get("author_name_list")  # with_author_names()
        if names is not None:
            return names
        authorships = self.__dict__.get("authorship_list")  # with_authors()
        if authorships is None:
            authorships = self.authorships.all()
        return [authorship.author.name for authorship in authorships]

    def forget_authorships(self):
        """After its authorships were rewritten: author_names reads them afresh."""
        self.__dict__.pop("authorship_list", None)

    def public_citations_received(self):
        return Citation.objects.public().filter(cited_paper=self)

    def public_citations_made(self):
        return Citation.objects.public().filter(citing_paper=self)

    def citing_citations(self, role=None, polarity=None):
        """Public edges into this paper, optionally narrowed to a role and/or polarity (slug or
        instance), with the citing paper, role and polarity joined; newest citing papers first."""
        return (
            self.public_citations_received()
            .with_role_and_polarity(role=role, polarity=polarity)
            .select_related("citing_paper", "role", "polarity")
            .newest_first("citing_paper")
        )

    def representative_citations(self):
        """The few edges an editor flagged as representative (at most REPRESENTATIVE_LIMIT,
        those with the editor's reason first), newest citing paper first (a list). Found
        through the partial index citation_representative and sorted here: with an ORDER BY,
        PostgreSQL misjudges how many flagged edges a hub has and walks the papers' date index
        through every paper (1.2 s instead of 1 ms on a 38,000-edge hub)."""
        edges = (
            self.public_citations_received()
            .filter(is_representative=True)
            .select_related("citing_paper", "role", "polarity")
            .order_by()
        )

        def newest_first(edge):
            date = edge.citing_paper.publication_date
            reasoned = bool(edge.representative_reason.strip())
            return (not reasoned, date is None, -date.toordinal() if date else 0, edge.pk)

        # Hubs flagged before the limit may have more; the page shows the limit's worth.
        return sorted(edges, key=newest_first)[:REPRESENTATIVE_LIMIT]

    def citation_summary(self, groups=None):
        """The hub's figures, added up from its stored citing timeline (`citing_groups()`, a
        few hundred rows on any hub): every explorer page and the API hub call show them.
        `groups`: those rows, when the caller read them already (the hub page reads them once
        for the summary and the timeline)."""
        return self._count_citation_summary(groups)

    def citing_timeline(self, groups=None):
        """How the citing changes over time: the public citing papers per quarter by role and
        by polarity, the year-only and undated ones apart (citations/stats/timeline.py), from the
        stored groups (`groups`, when the caller read them already)."""
        from citations.stats.timeline import CitingTimeline

        return CitingTimeline(self.citing_groups() if groups is None else groups)

    def citing_groups(self):
        """The paper's public citing edges counted per quarter, date precision, role and
        polarity, as stored by the last recount (citations/stats/counts.py): a few hundred rows
        on any hub, where counting them read every edge. No rows for a paper that is not public
        (it has no public edges)."""
        rows = CitingTimelineCount.objects.filter(published_q("paper__"), paper=self)
        return list(rows.values(*CITING_GROUP_FIELDS))

    def _count_citation_summary(self, groups=None):
        """One scan of the paper's public edges, grouped by (role, polarity) in the database
        (or finer `groups` with those keys, such as the timeline's); the few groups are then
        added up into the two bars."""
        if groups is None:
            groups = self.citing_groups()
        total, roles, polarities, pairs = 0, {}, {}, {}
        for group in groups:
            total += group["count"]
            pair = (group["role__slug"], group["polarity__slug"])
            pairs[pair] = pairs.get(pair, 0) + group["count"]
            for field, bucket in (("role", roles), ("polarity", polarities)):
                if group[f"{field}__slug"] is not None:
                    key = (group[f"{field}__name"], group[f"{field}__slug"])
                    bucket[key] = bucket.get(key, 0) + group["count"]

        def rows(bucket):
            rows = [{"name": n, "slug": s, "count": c} for (n, s), c in bucket.items()]
            return sorted(rows, key=lambda row: (-row["count"], row["name"]))

        return CitationSummary(
            total=total, roles=rows(roles), polarities=rows(polarities), pairs=pairs
        )


# The keys of a citing timeline's groups (citations/stats/timeline.py), stored or counted.
CITING_GROUP_FIELDS = (
    "quarter",
    "date_precision",
    "role__slug",
    "role__name",
    "role__order",
    "polarity__slug",
    "polarity__name",
    "polarity__order",
    "count",
)


def _plural(count, one, many):
    return one if count == 1 else many


class CitationSummary:
    """A paper's citing papers counted: in total, by role, by polarity and by the pair of both.
    Every figure the hub page, its explorer, JSON-LD, the feed and the API show comes from
    here, so they cannot disagree, and each one says what it is a share of: a row's `percent`
    is its share of the citing papers classified on that axis (`percent_of`), never of all
    citing papers, and the headlines name how many are classified out of how many."""

    percent_basis = "classified"

    def __init__(self, total, roles, polarities, pairs=None):
        self.total = total
        self.classified = sum(row["count"] for row in roles)
        self.polarity_classified = sum(row["count"] for row in polarities)
        self.roles = self._with_shares(roles, self.classified)
        self.polarities = self._with_shares(polarities, self.polarity_classified)
        # {(role slug or None, polarity slug or None): count}; None: not known (stored counts).
        self.pairs = pairs

    @classmethod
    def from_stored_counts(cls, count, roles, polarities):
        """The summary of a paper's stored counts (citations/stats/counts.py), for lists such as the
        feed that cannot count every paper's edges: `count` a CitationCount (or None), `roles`
        and `polarities` every term of each vocabulary. The role x polarity pairs are not kept."""

        def rows(terms, stored):
            found = [
                {"name": term.name, "slug": term.slug, "count": stored.get(str(term.pk), 0)}
                for term in terms
            ]
            return sorted(
                (row for row in found if row["count"]),
                key=lambda row: (-row["count"], row["name"]),
            )

        if count is None:
            return cls(total=0, roles=[], polarities=[])
        return cls(
            total=count.total,
            roles=rows(roles, count.by_role),
            polarities=rows(polarities, count.by_polarity),
        )

    @staticmethod
    def _with_shares(rows, classified):
        for row in rows:
            row["percent"] = round(100 * row["count"] / classified) if classified else 0
            row["percent_of"] = classified
        return rows

    @property
    def role_classified(self):
        return self.classified

    @property
    def role_unclassified(self):
        return self.total - self.classified

    @property
    def polarity_unclassified(self):
        return self.total - self.polarity_classified

    @property
    def top_role(self):
        return self.roles[0] if self.roles else None

    @property
    def headline(self):
        """How many citing papers are classified by role, out of how many, and the largest
        role among those: "6 of 30 citing papers are classified by role; all 6 as background"."""
        return self._sentence("role", self.classified, self.top_role, "as ")

    @property
    def polarity_headline(self):
        top = self.polarities[0] if self.polarities else None
        return self._sentence("polarity", self.polarity_classified, top, "")

    def _sentence(self, axis, classified, top, preposition):
        total = self.total
        if not total:
            return "No published paper cites this work yet."
        papers = f"{total} citing {_plural(total, 'paper', 'papers')}"
        if not classified:
            if total == 1:
                return f"{papers}; it is not yet classified by {axis}."
            return f"{papers}; none is classified by {axis} yet."
        name = f"{preposition}{top['name'].lower()}"
        if total == 1:
            return f"{papers}, classified {name}."
        if classified == 1:
            return f"1 of {papers} is classified by {axis}, {name}."
        if classified == total:
            opening = f"All {papers} are classified by {axis}"
            basis = f"{top['count']} of the {classified}"
        else:
            opening = f"{classified} of {papers} are classified by {axis}"
            basis = f"{top['count']} of those {classified}"
        if top["count"] == classified:
            return f"{opening}; all {classified} {name}."
        return f"{opening}; {basis} ({top['percent']}%) {name}."

    def count_of(self, axis, term):
        """Citing papers in one role or polarity (`axis` "role" or "polarity"; a term or slug)."""
        slug = getattr(term, "slug", term)
        rows = self.roles if axis == "role" else self.polarities
        return next((row["count"] for row in rows if row["slug"] == slug), 0)

    def count_for(self, role=None, polarity=None, unclassified=False, no_polarity=False):
        """How many citing papers the explorer lists for a role and/or a polarity (None: any),
        optionally only those without a role (`unclassified`) or without a polarity
        (`no_polarity`); None when not known (a pair, for a summary made from stored counts)."""
        if (unclassified and role) or (no_polarity and polarity):
            return 0
        if (role and polarity) or unclassified or no_polarity:
            if self.pairs is None:
                return None
            role_slug = getattr(role, "slug", role)
            polarity_slug = getattr(polarity, "slug", polarity)

            def matches(value, slug, none_only):
                return value is None if none_only else slug is None or value == slug

            return sum(
                count
                for (pair_role, pair_polarity), count in self.pairs.items()
                if matches(pair_role, role_slug, unclassified)
                and matches(pair_polarity, polarity_slug, no_polarity)
            )
        if role or polarity:
            return self.count_of("role", role) if role else self.count_of("polarity", polarity)
        return self.total


class Authorship(models.Model):
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="authorships")
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="authorships")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "author"], name="unique_authorship"),
        ]

    def __str__(self):
        return f"{self.author} on {self.paper}"


class CitationQuerySet(PublishableQuerySet):
    # A search word in at most this many paper titles names those papers in the query.
    PAPERS_NAMED = 1000

    def search(self, text):
        """Edges with each word of `text` (quoted phrases kept) in the citing or the cited
        paper's title or in the citing sentence, in any case: the API's `search=`. On
        PostgreSQL the words are matched as column ILIKE, which the trigram indexes of the
        titles and the sentence serve (migration 0025). A word in few titles names those
        papers, so the planner reads their edges through the foreign keys' indexes (left a
        join or a subquery, it scanned the million edges: 3 s, the statement timeout, for a
        word in no title). A word in many titles is matched on the joined papers as the
        edges are walked newest first: its edges are common, the first page is found at once
        (a subquery would first gather its thousands of papers)."""
        edges = self
        for word in search_words(text or ""):
            titled = Paper.objects.filter(contains_text("title", word)).order_by()
            papers = list(titled.values_list("pk", flat=True)[: self.PAPERS_NAMED + 1])
            if len(papers) <= self.PAPERS_NAMED:
                in_titles = Q(citing_paper__in=papers) | Q(cited_paper__in=papers)
            else:
                in_titles = Q(contains_text("citing_paper__title", word)) | Q(
                    contains_text("cited_paper__title", word)
                )
            edges = edges.filter(in_titles | Q(contains_text("context", word)))
        return edges

    def public(self):
        """Published edges whose two papers are both published."""
        return self.filter(
            published_q(), published_q("citing_paper__"), published_q("cited_paper__")
        )

    def publish(self):
        return self._recounting(super().publish)

    def unpublish(self):
        return self._recounting(super().unpublish)

    def _recounting(self, change):
        cited = set(self.values_list("cited_paper", flat=True))
        changed = change()
        recount_citations(cited)
        return changed

    def visible_to(self, user):
        """Every edge for editors who may view citations and papers; public edges for others."""
        if user.is_authenticated and user.has_perms(
            ["citations.view_citation", "citations.view_paper"]
        ):
            return self.all()
        return self.public()

    def newest_first(self, end):
        """Edges by the date of the paper at `end` ("citing_paper" or "cited_paper"), newest
        first and undated last, as papers are. That paper breaks ties (one edge per pair of
        papers), so PostgreSQL can walk the papers' date index and stop after a page instead
        of sorting every edge of a hub."""
        return self.order_by(F(f"{end}__publication_date").desc(nulls_last=True), f"{end}_id")

    def citing_text(self, text):
        """Edges whose citing paper matches `text` as `Paper.objects.search` finds papers, or
        whose citing sentence contains it. On PostgreSQL the citing paper's stored
        search_document is tested on each edge as a hub's walk by date reaches it, so a page
        stops after twenty matches; matching the papers first found every match in the corpus
        before the first row (21,661 papers for "policy" at 100k: 1.3 s for a page, now 36 ms)."""
        text = text.strip()
        if connection.vendor == "postgresql":
            from django.contrib.postgres.search import SearchQuery

            query = SearchQuery(text, search_type="websearch", config="english")
            in_paper = Q(citing_paper__search_document=query)
        else:
            in_paper = Q(citing_paper__in=Paper.objects.search(text).values("pk"))
        return self.filter(in_paper | Q(context__icontains=text))

    def with_role_and_polarity(self, role=None, polarity=None):
        """Edges in the given role and/or polarity (a slug or an instance); None means any."""
        queryset = self
        for field, value in (("role", role), ("polarity", polarity)):
            if value is not None:
                lookup = f"{field}__slug" if isinstance(value, str) else field
                queryset = queryset.filter(**{lookup: value})
        return queryset


class CitationSource(models.TextChoices):
    """Who classified an edge (its role and polarity), and how. An edge nobody classified has
    none (""): it is counted under no classifier. An index's edge keeps the index's name
    (the edge came from it), and counts as its classification only once it has a role or a
    polarity (`provenance_q`)."""

    NONE = "", "Not classified"
    EDITOR = "editor", "Editor"
    READER_SUGGESTION = "reader_suggestion", "Editor, on reader suggestion"
    AUTHOR = "author", "Author"
    SEMANTIC_SCHOLAR = "semantic_scholar", "Imported from Semantic Scholar"
    OPENALEX = "openalex", "Imported from OpenAlex"
    PITH = "pith", "Classified by Pith"

    @classmethod
    def imported(cls):
        return [cls.SEMANTIC_SCHOLAR, cls.OPENALEX, cls.PITH]

    @classmethod
    def by_editors(cls):
        return [cls.EDITOR, cls.READER_SUGGESTION]


# The explorer's and the API's `provenance` filter: each classifier, and "imported" (any index).
PROVENANCE_CHOICES = [
    *[(value, label) for value, label in CitationSource.choices if value],
    ("imported", "Imported (any source)"),
]
# An edge with a role or a polarity: only such an edge has a classifier to count.
CLASSIFIED = Q(role__isnull=False) | Q(polarity__isnull=False)


def provenance_q(value):
    """Edges classified with this provenance (a CitationSource value or "imported"): an
    unclassified edge was classified by nobody, whatever its stored source."""
    if value == "imported":
        return Q(source__in=CitationSource.imported()) & CLASSIFIED
    return Q(source=value) & CLASSIFIED


# A hub's representative citing papers are a short editor-chosen list, not a second explorer.
REPRESENTATIVE_LIMIT = 6


def representative_limit_message(count):
    return (
        f"This paper already has {count} representative citing papers; a hub has at most "
        f"{REPRESENTATIVE_LIMIT}. Untick one of them (and save) before choosing another."
    )


class Citation(Publishable):
    """A directed edge: `citing_paper` cites `cited_paper`, in a role, with a polarity."""

    citing_paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="citations_made")
    cited_paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="citations_received"
    )
    role = models.ForeignKey(
        CitationRole, null=True, blank=True, on_delete=models.PROTECT, related_name="citations"
    )
    polarity = models.ForeignKey(
        CitationPolarity,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="citations",
    )
    context = models.TextField(blank=True, help_text="The citing sentence, where known.")
    context_section = models.CharField(
        "section of the citing sentence",
        max_length=120,
        blank=True,
        help_text="Where in the citing paper the sentence stands, e.g. “Related work”.",
    )
    is_representative = models.BooleanField(
        default=False,
        help_text=f"One of the hub's few editor-chosen representative citing papers (at most "
        f"{REPRESENTATIVE_LIMIT} per cited paper).",
    )
    representative_reason = models.CharField(
        "why representative",
        max_length=200,
        blank=True,
        help_text="The editor's one-line reason, shown on the hub beside a representative paper.",
    )
    # Provenance: who classified this edge and how (an editor, the authors, an import from a
    # citation index), when, and by which user. Set by `record_classification()` on save.
    source = models.CharField(
        "provenance",
        max_length=20,
        choices=CitationSource,
        default=CitationSource.NONE,
        blank=True,
        help_text="Who classified it (none while it has no role or polarity). Changing the role "
        "or polarity records “Editor” unless you choose another provenance here.",
    )
    classified_at = models.DateTimeField(null=True, blank=True)
    classified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The editor who set the role and polarity, when an editor did.",
    )
    confidence = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="The source's confidence in its classification (0 to 1), where it gives one.",
    )
    is_influential = models.BooleanField(
        null=True, blank=True, help_text="Semantic Scholar's isInfluential flag, when imported."
    )
    publish_unclassified = models.BooleanField(
        "unclassified",
        default=False,
        help_text="Publish without a role or polarity: not classified yet, said so to readers.",
    )

    objects = CitationQuerySet.as_manager()

    class Meta(Publishable.Meta):
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["citing_paper", "cited_paper"], name="unique_citation_edge"
            ),
            models.CheckConstraint(
                condition=~Q(citing_paper=F("cited_paper")), name="citation_not_self"
            ),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True) | Q(confidence__gte=0, confidence__lte=1),
                name="citation_confidence_0_to_1",
            ),
        ]
        indexes = [
            models.Index(fields=["cited_paper", "role"], name="citation_cited_role"),
            models.Index(fields=["cited_paper", "polarity"], name="citation_cited_polarity"),
            # The dashboard's unclassified edges per hub, and a hub's "classified=no" list: an
            # index-only walk of the unclassified edges (a fifth of a million at 1M) in hub
            # order, instead of a scan of every edge (2 s at 1M).
            models.Index(
                fields=["cited_paper"],
                condition=Q(role__isnull=True) | Q(polarity__isnull=True),
                name="citation_unclassified",
            ),
            # The API citation list's orderings (`ordering=-created_at`, `-updated_at`, the
            # default `-id` within one hub): an index walk that stops after a page, instead of
            # sorting a million edges (past the anonymous statement timeout at 1M).
            models.Index(fields=["created_at", "id"], name="citation_created"),
            models.Index(fields=["updated_at", "id"], name="citation_updated"),
            models.Index(fields=["cited_paper", "id"], name="citation_cited_id"),
            # `is_influential=true`, on the list and on a hub: the few flagged edges, instead of
            # every edge read to find none (the flag comes only from Semantic Scholar imports).
            models.Index(
                fields=["id"], condition=Q(is_influential=True), name="citation_influential"
            ),
            models.Index(
                fields=["cited_paper"],
                condition=Q(is_influential=True),
                name="citation_cited_influential",
            ),
        ]

    def __str__(self):
        return f"{self.citing_paper} → {self.cited_paper}"

    def clean(self):
        super().clean()
        self.check_edge()
        self.check_representative()

    publishing_rule_fields = {
        "role": ("role", "publish_unclassified"),
        "polarity": ("polarity", "publish_unclassified"),
    }

    def publishing_errors(self, relations=None):
        if self.publish_unclassified:
            return {}
        hint = "or tick “unclassified” to publish it without one."
        errors = {}
        if self.role_id is None:
            errors["role"] = [f"A public citation needs a role, {hint}"]
        if self.polarity_id is None:
            errors["polarity"] = [f"A public citation needs a polarity, {hint}"]
        return errors

    def check_edge(self):
        """A paper never cites itself and cites another paper at most once: the rule behind
        the two constraints, as errors on `cited_paper` (the admin's inlines, the API)."""
        if self.citing_paper_id is None or self.cited_paper_id is None:
            return
        if self.citing_paper_id == self.cited_paper_id:
            raise ValidationError(
                {"cited_paper": "A paper cannot cite itself."}, code="self_citation"
            )
        others = Citation.objects.exclude(pk=self.pk) if self.pk else Citation.objects.all()
        edge = {"citing_paper": self.citing_paper_id, "cited_paper": self.cited_paper_id}
        if others.filter(**edge).exists():
            message = f"“{self.citing_paper.title}” already cites “{self.cited_paper.title}”."
            raise ValidationError({"cited_paper": message}, code="duplicate_edge")

    def check_representative(self):
        """An edge an editor makes representative needs a one-line reason, and its cited paper
        may have at most REPRESENTATIVE_LIMIT of them. Checked when the flag is set (or the
        edge moves to another paper, or its reason is cleared), so a hub flagged before the
        limit can still be edited, but gains no flag until it is under the limit. Edges an
        admin formset shows at once (`_representative_peers`) are counted by the formset."""
        if not self.is_representative:
            return
        loaded = getattr(self, "_loaded_representative", (False, None, ""))
        flagged_now = not loaded[0] or loaded[1] != self.cited_paper_id
        errors = {}
        if not self.representative_reason.strip() and (flagged_now or loaded[2].strip()):
            errors["representative_reason"] = (
                "Give the one-line reason this citing paper is representative: readers see it "
                "beside the paper on the hub."
            )
        if flagged_now and self.cited_paper_id is not None:
            others = (
                Citation.objects.filter(cited_paper_id=self.cited_paper_id, is_representative=True)
                .exclude(pk=self.pk)
                .exclude(pk__in=getattr(self, "_representative_peers", ()))
                .count()
            )
            if others >= REPRESENTATIVE_LIMIT:
                errors["is_representative"] = representative_limit_message(others)
        if errors:
            raise ValidationError(errors)

    @classmethod
    def from_db(cls, db, field_names, values):
        edge = super().from_db(db, field_names, values)
        # Compared by check_representative(): is the flag being set now?
        edge._loaded_representative = tuple(
            edge.__dict__.get(name)
            for name in ("is_representative", "cited_paper_id", "representative_reason")
        )
        # Recounted on save with the new one (citations/stats/counts.py), if the edge moved.
        edge._loaded_cited_paper_id = edge.__dict__.get("cited_paper_id")
        # Compared on save (record_classification): did someone classify it anew?
        edge._loaded_classification = edge._classification()
        return edge

    def _classification(self):
        names = ("role_id", "polarity_id", "source", "classified_at")
        return tuple(self.__dict__.get(name) for name in names)

    def save(self, *args, **kwargs):
        self.record_classification()
        super().save(*args, **kwargs)
        self._loaded_classification = self._classification()

    def classify(self, role, polarity, source=CitationSource.EDITOR, user=None, confidence=None):
        """Set the role and polarity with their provenance; saved by the next `save()`."""
        self.role, self.polarity = role, polarity
        self._provenance = (source, user, confidence)

    def adopt_recorded_state(self, recorded):
        # A revert or a recovery keeps the recorded classification and who made it.
        self._loaded_classification = recorded._classification()

    def record_classification(self):
        """Every door (admin, inlines, API, importers, shell) that sets the role or polarity
        records who did and when: an editor, unless the caller chose another provenance
        (`classify()`, or a new `source`: an importer, "author"), and which user."""
        role, polarity, source, classified_at = self._classification()
        loaded = getattr(self, "_loaded_classification", (None, None, CitationSource.NONE, None))
        provenance = getattr(self, "_provenance", None)
        if provenance is None and (role, polarity) == loaded[:2]:
            return
        user, confidence = None, self.confidence
        if provenance is not None:
            self.source, user, confidence = provenance
            del self._provenance
        elif source == loaded[2]:
            self.source = CitationSource.EDITOR  # whoever classified it before, an editor did now
        if role is None and polarity is None and self.source not in CitationSource.imported():
            self.unclassified()
            return
        if self.source in CitationSource.by_editors():
            confidence = None  # an editor's reading, not a scored guess
        self.confidence = confidence
        # Classified here and now; an index's classification keeps the time its importer
        # gives (none when the index gives none: not the time the demo or a shell loaded it).
        if classified_at == loaded[3] and self.source not in CitationSource.imported():
            self.classified_at = timezone.now()
        if self.source in CitationSource.imported():
            self.classified_by = None
        else:
            self.classified_by = user or self._acting_user()

    def unclassified(self):
        """No role and no polarity: nobody classified it, so no classifier, time or user."""
        self.source, self.confidence = CitationSource.NONE, None
        self.classified_at = self.classified_by = None

    def _acting_user(self):
        """The user saving this edge: the admin's `_history_user`, else the request's (the
        API's token users too: DRF sets the user on the request simple-history keeps)."""
        user = getattr(self, "_history_user", None)
        if user is None:
            request = getattr(HistoricalRecords.context, "request", None)
            user = getattr(request, "user", None)
        return user if user is not None and user.is_authenticated else None

    @property
    def provenance_label(self):
        """The quiet marker under a citing row: "classified by an editor on 3 Sep 2026"."""
        when = ""
        if self.classified_at:
            when = f" on {date_format(timezone.localtime(self.classified_at), 'j M Y')}"
        if self.source == CitationSource.NONE:
            return ""
        if self.source == CitationSource.EDITOR:
            if self.role_id is None and self.polarity_id is None:
                return ""
            return f"classified by an editor{when}"
        if self.source == CitationSource.READER_SUGGESTION:
            return f"classified by an editor, on a reader’s suggestion{when}"
        if self.source == CitationSource.AUTHOR:
            return f"classified by the citing paper’s authors{when}"
        label = self.get_source_display()
        return label[0].lower() + label[1:]
