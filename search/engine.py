"""One search over what the site publishes: papers, research notes, claims, layers, tags,
community posts and the site's own pages. Each kind is a `Source`: its published rows, how
they match a query, and how a match reads in the results (`Hit`).

PostgreSQL: papers match their stored, GIN-indexed `search_document` (citations migration
0005/0009) or a title substring (trigram GIN index, citations migration 0032), ranked by
relevance; when nothing matches, titles within a typo of the query do (pg_trgm word
similarity, served by the trigram index of migration 0001). Papers are counted up to
MATCH_LIMIT and only that many candidates are ranked, so a word in most titles costs what a
rare one does. The other kinds are small editorial tables, matched by full-text search over
their fields computed per query plus substrings.
Elsewhere (SQLite): every word of the query must appear in one of the fields (icontains).
Drafts never match: every source starts from `.published()`."""

import dataclasses
import datetime
import re
from functools import cached_property

from django.conf import settings
from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVector,
    TrigramWordSimilarity,
)
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Case, Exists, F, IntegerField, OuterRef, Q, Value, When
from django.db.models.functions import Length
from django.urls import reverse

from bottlenecks.models import Analysis, Layer
from citations.dates import DatePrecision, date_display, date_iso
from citations.identifiers import normalise_arxiv_id, normalise_doi
from citations.identity import Scheme, papers_with_identifiers
from citations.models import NEWEST_FIRST, Authorship, Paper, with_authors_where_shown
from core.pagination import bounded_count
from evidence.models import Claim
from notes.models import CommunityPost, GuideSection, ResearchNote
from tags.counts import public_tags

MIN_TERM_LENGTH = 2
MAX_TERMS = 12
# word_similarity() above which a title counts as a near spelling of the query (pg_trgm's
# default for the `<%` operator is 0.6; typos in short words need a little less).
TYPO_SIMILARITY = 0.5
# A common word matches tens of thousands of papers at 100k (PostgreSQL): the matches are
# counted up to this many (shown as "more than 1,000"), and only the newest this many, plus
# titles equal to the query, are ranked by relevance, so neither reads every match.
MATCH_LIMIT = 1000
# pg_trgm can serve a substring match only from three characters (one whole trigram).
TRIGRAM_LENGTH = 3


def on_postgresql():
    return connection.vendor == "postgresql"


@dataclasses.dataclass
class Hit:
    """One result as the results page, the suggestions and the feed show it."""

    kind: str
    title: str
    url: str
    text: str = ""
    meta: list = dataclasses.field(default_factory=list)
    date: datetime.date | None = None
    # How much of `date` is a fact (citations/dates.py): a paper's date may be a year, a
    # month, or a placeholder that is shown nowhere.
    date_precision: str = DatePrecision.DAY
    external: bool = False
    item: object = None

    @property
    def date_iso(self):
        return date_iso(self.date, self.date_precision)

    @property
    def date_display(self):
        return date_display(self.date, self.date_precision)


@dataclasses.dataclass(frozen=True)
class Count:
    """How many results a kind has; `more` when counting stopped at `value` and there are
    more."""

    value: int
    more: bool = False

    @classmethod
    def of(cls, rows):
        """The Count of a queryset's rows, counting no further than MATCH_LIMIT + 1."""
        value, exact = bounded_count(rows, MATCH_LIMIT)
        return cls(value, more=not exact)


class Query:
    """The reader's text, its words, and the Django search query built from it."""

    def __init__(self, text):
        self.text = " ".join((text or "").split())
        words = re.findall(r"\w[\w.\-/]*", self.text)
        self.terms = [word for word in words if len(word) >= MIN_TERM_LENGTH][:MAX_TERMS]

    def __bool__(self):
        return bool(self.terms)

    @cached_property
    def layers(self):
        """The published bottleneck layers the query matches (their fields hold every word)
        or names (a word is the layer's name, one or many: "reward hacking" names Rewards):
        their papers match too. Read once per query; layers are a small editorial table."""
        named = Q()
        for term in self.terms:
            named |= Q(name__iexact=singular(term)) | Q(name__iexact=f"{singular(term)}s")
        source = SOURCES["layers"]
        rows, text = source.text_condition(source.published(), self)
        return list(rows.filter(named | text).order_by("pk").values_list("pk", flat=True))

    @cached_property
    def fulltext(self):
        return SearchQuery(self.text, search_type="websearch", config="english")

    def every_term_in(self, *fields):
        """A Q true when each word of the query appears (any case) in one of `fields`: the
        substring match used everywhere, and alone on SQLite."""
        q = Q()
        for term in self.terms:
            q &= self.term_in(term, fields)
        return q

    @staticmethod
    def term_in(term, fields):
        q = Q()
        for field in fields:
            q |= field(term) if callable(field) else Q(**{f"{field}__icontains": term})
        return q

    def title_first(self, field):
        """0 for a row whose `field` is the query, 1 when it contains it, 2 otherwise: exact
        titles lead, whatever the database's own ranking."""
        return Case(
            When(**{f"{field}__iexact": self.text}, then=Value(0)),
            When(**{f"{field}__icontains": self.text}, then=Value(1)),
            default=Value(2),
            output_field=IntegerField(),
        )


def singular(word):
    return word.lower().removesuffix("s")


def paper_for_identifier(text):
    """The published paper an arXiv id or DOI names, in any form a reader pastes (bare,
    `arXiv:`, `doi:`, an arxiv.org or doi.org URL, with a version suffix); else None."""
    value = (text or "").strip()
    if not value or " " in value or len(value) > 300:
        return None
    value = re.sub(r"^(https?://)?(www\.|export\.)?", "", value, flags=re.IGNORECASE)
    value = re.split(r"[?#]", value)[0].rstrip("/")
    value = re.sub(r"^arxiv\.org/(abs|pdf|html)/", "arxiv:", value, flags=re.IGNORECASE)
    value = re.sub(r"^(dx\.)?doi\.org/", "doi:", value, flags=re.IGNORECASE)
    identifiers = {}
    for scheme, normalise in ((Scheme.ARXIV, normalise_arxiv_id), (Scheme.DOI, normalise_doi)):
        try:
            identifiers[scheme] = normalise(value)
        except ValidationError:
            continue
    if not identifiers:
        return None
    return papers_with_identifiers(identifiers, Paper.objects.published()).first()


class Source:
    """One kind of result. `key` is the `?kind=` value; subclasses say which rows are public,
    which fields are searched, how results are ordered and how one reads."""

    key = ""
    label = ""  # plural, e.g. "Papers"
    title_field = "title"
    fields = ()  # searched on both databases (substrings)
    year_lookup = None  # e.g. "publication_date__year"; None: not dated, left out by a year
    default_order = ("-published_at", "-id")

    def published(self):
        raise NotImplementedError

    def public_in(self, year=None):
        """The public rows, of `year` when given (none, for a kind that is not dated)."""
        rows = self.published()
        if year is not None:
            if self.year_lookup is None:
                return rows.none()
            rows = self.in_year(rows, year)
        return rows

    def in_year(self, rows, year):
        return rows.filter(**{self.year_lookup: year})

    def matching(self, query, year=None):
        """The public rows matching `query` (and `year`), best first."""
        return self.match(self.public_in(year), query)

    def count(self, query, year=None):
        rows = self.matching(query, year)
        return Count(len(rows) if isinstance(rows, list) else rows.count())

    def suggestions(self, query, limit):
        return self.matching(query)[:limit]

    def newest(self, query, year=None):
        """Matching rows by time of publication on the site, newest first (the feed)."""
        return self.matching(query, year).order_by("-published_at", "-id")

    def text_condition(self, rows, query):
        """(`rows`, the condition of a row matching `query`'s text): its English document
        matches, or each word is in one of `fields` (the only test on SQLite). On PostgreSQL
        the rows come back annotated with their `document`, which the condition reads."""
        if on_postgresql():
            rows = rows.annotate(document=SearchVector(*self.fields, config="english"))
            return rows, Q(document=query.fulltext) | query.every_term_in(*self.fields)
        return rows, query.every_term_in(*self.fields)

    def match(self, rows, query):
        rows, condition = self.text_condition(rows, query)
        rows = rows.filter(condition)
        order = self.default_order
        if on_postgresql():
            rows = rows.annotate(rank=SearchRank(F("document"), query.fulltext))
            order = ("-rank", *order)
        return rows.annotate(title_match=query.title_first(self.title_field)).order_by(
            "title_match", *order
        )

    def hit(self, item):
        raise NotImplementedError

    def hits(self, items):
        """Each of `items` as a result (`hit`), with what a hit shows read for all at once."""
        return [self.hit(item) for item in items]

    def suggestion(self, item):
        """What the header box's list shows of a suggested row (`suggestions()`)."""
        hit = self.hit(item)
        return {"title": hit.title, "url": hit.url, "kind": self.label}

    @property
    def is_dated(self):
        return self.year_lookup is not None


class PaperSource(Source):
    key = "papers"
    label = "Papers"
    fields = ("title", "byline", "institution", "summary", "abstract")
    year_lookup = "publication_date__year"
    default_order = NEWEST_FIRST

    def published(self):
        return Paper.objects.published()

    def in_year(self, rows, year):
        """Papers whose year is a fact (a placeholder date has none)."""
        return rows.published_in(year)

    def match_q(self, query):
        """The condition of a paper matching `query`, for a filter of the papers themselves:
        its text, or its place in a layer the query matches (Query.layers)."""
        match = self.text_match_q(query)
        if query.layers:
            # Only when a layer matches: an OR with a subquery is a scan of the table for a
            # common word on PostgreSQL (decision 0020).
            in_layers = Paper.layers.through.objects.filter(layer__in=query.layers)
            match |= Q(pk__in=in_layers.values("paper"))
        return match

    def text_match_q(self, query):
        if on_postgresql():
            # Both arms are served by a GIN index (search_document; trigrams of the title in
            # capitals, the expression icontains compares: citations migration 0032).
            return Q(search_document=query.fulltext) | Q(title__icontains=query.text)
        author = lambda term: Exists(  # noqa: E731
            Authorship.objects.filter(paper=OuterRef("pk"), author__name__icontains=term)
        )
        return query.every_term_in(*self.fields, author) | Q(arxiv_id__iexact=query.text)

    def matches(self, rows, query):
        """`rows` matching `query`, in no order."""
        return rows.filter(self.match_q(query))

    def match(self, rows, query):
        # A common word matches tens of thousands of papers: only a bounded set of candidates
        # is ordered (and, on PostgreSQL, ranked, which reads each one's document): the newest
        # matches (a walk of the publication-date index that stops after MATCH_LIMIT) and any
        # paper titled exactly as the query (the capitals index).
        newest = self.matches(rows, query).order_by(*NEWEST_FIRST).values("pk")[:MATCH_LIMIT]
        exact_title = rows.filter(title__iexact=query.text).values("pk")
        if not on_postgresql():
            # Without a ranking, papers whose text matches lead those only in a matching layer.
            text_match = Case(
                When(self.text_match_q(query), then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
            return (
                rows.filter(Q(pk__in=newest) | Q(pk__in=exact_title))
                .annotate(title_match=query.title_first("title"))
                .order_by("title_match", text_match.asc(), *NEWEST_FIRST)
            )
        # One IN over a UNION, which PostgreSQL joins; an OR of two INs is a scan of the table.
        return (
            rows.filter(pk__in=newest.union(exact_title))
            .annotate(
                rank=SearchRank(F("search_document"), query.fulltext),
                title_match=query.title_first("title"),
            )
            .order_by("title_match", "-rank", *NEWEST_FIRST)
        )

    def count(self, query, year=None):
        return Count.of(self.matches(self.public_in(year), query))

    def suggestions(self, query, limit):
        """Up to `limit` papers for what the reader has typed so far, newest first: titles that
        start with it, then, from three characters, titles holding it. On PostgreSQL each is a
        bounded walk of the publication-date index (or, for a rare prefix, of the few rows a
        title index finds), never a ranking of every match."""
        rows = Paper.objects.published().only("title", "slug")  # all a suggestion shows
        found = list(rows.filter(title__istartswith=query.text).order_by(*NEWEST_FIRST)[:limit])
        if len(found) < limit and len(query.text) >= TRIGRAM_LENGTH:
            found += (
                rows.filter(title__icontains=query.text)
                .exclude(pk__in=[paper.pk for paper in found])
                .order_by(*NEWEST_FIRST)[: limit - len(found)]
            )
        return found

    def newest(self, query, year=None):
        """Matching papers by time of publication on the site, newest first (the feed)."""
        return self.matches(self.public_in(year), query).order_by("-published_at", "-id")

    def near_spellings(self, query, year=None):
        """Papers whose title holds a word within a typo of the query (PostgreSQL only)."""
        if not on_postgresql():
            return Paper.objects.none()
        return (
            self.public_in(year)
            .annotate(similarity=TrigramWordSimilarity(query.text, "title"))
            .filter(title__trigram_word_similar=query.text, similarity__gte=TYPO_SIMILARITY)
            .order_by("-similarity", *NEWEST_FIRST)
        )

    def suggestion(self, paper):
        return {"title": paper.title, "url": paper.get_absolute_url(), "kind": self.label}

    def hits(self, papers):
        return super().hits(with_authors_where_shown(list(papers)))

    def hit(self, paper):
        meta = [paper.byline or ", ".join(paper.author_names[:3])]
        if paper.arxiv_id:
            meta.append(f"arXiv:{paper.arxiv_id}")
        return Hit(
            kind=self.key,
            title=paper.title,
            url=paper.get_absolute_url(),
            text=paper.summary or paper.abstract,
            meta=[part for part in meta if part],
            date=paper.known_publication_date,
            date_precision=paper.date_precision,
            item=paper,
        )


class NoteSource(Source):
    key = "notes"
    label = "Research notes"
    fields = ("title", "dek", "body", "why_it_matters", "caveat")
    year_lookup = "published_at__year"

    def published(self):
        return ResearchNote.objects.published()

    def hit(self, note):
        return Hit(
            kind=self.key,
            title=note.title,
            url=note.get_absolute_url(),
            text=note.dek,
            meta=["Research note"],
            date=note.published_at.date() if note.published_at else None,
            item=note,
        )


class ClaimSource(Source):
    key = "claims"
    label = "Claims"
    title_field = "statement"
    fields = ("statement", "figure", "unit", "model_name", "budget", "setup")
    year_lookup = "reported_on__year"
    default_order = ("statement", "id")

    def published(self):
        return Claim.objects.published()

    def in_year(self, rows, year):
        """Claims whose year is a fact (a date of precision "unknown" has none)."""
        return rows.with_known_date().filter(reported_on__year=year)

    def hit(self, claim):
        return Hit(
            kind=self.key,
            title=claim.statement,
            url=claim.get_absolute_url(),
            text=claim.setup,
            meta=[claim.get_evidence_status_display(), *claim.setting],
            date=claim.reported_on,
            date_precision=claim.reported_on_precision,
            item=claim,
        )


class LayerSource(Source):
    key = "layers"
    label = "Bottleneck layers"
    title_field = "name"
    fields = ("name", "description", "failure_signal", "diagnostic_question")
    default_order = ("order", "name")

    def published(self):
        return Layer.objects.published()

    def hit(self, layer):
        return Hit(
            kind=self.key,
            title=layer.name,
            url=layer.get_absolute_url(),
            text=layer.failure_signal or layer.description,
            meta=["Bottleneck layer"],
            item=layer,
        )


class TagSource(Source):
    key = "tags"
    label = "Tags"
    title_field = "name"
    fields = ("name", "display_name", "slug")
    default_order = ("name",)

    def published(self):
        return public_tags()

    def match(self, rows, query):
        # Tag names are a word or two: substrings (and word similarity) say it all.
        rows = rows.filter(query.every_term_in(*self.fields))
        return rows.annotate(title_match=query.title_first("name")).order_by(
            "title_match", Length("name"), "name"
        )

    def hit(self, tag):
        return Hit(
            kind=self.key,
            title=tag.label,
            url=reverse("tag-detail", kwargs={"slug": tag.slug}),
            meta=["Tag"],
            item=tag,
        )


class PostSource(Source):
    key = "posts"
    label = "Community posts"
    fields = ("title", "author", "source", "summary")
    year_lookup = "year"
    default_order = ("order", "-published_at")

    def published(self):
        return CommunityPost.objects.published()

    def hit(self, post):
        return Hit(
            kind=self.key,
            title=post.title,
            url=post.url,
            text=post.summary,
            meta=[post.author, post.source, str(post.year or "")],
            external=True,
            item=post,
        )


@dataclasses.dataclass
class SitePage:
    title: str
    url_name: str
    description: str
    pk: str = ""


class PageSource(Source):
    """The site's own pages (the field guide, the index, the browse pages, the bottleneck map
    and its analyses), so a search for a page's heading finds the page."""

    key = "pages"
    label = "Pages"

    def pages(self):
        """The pages, from their headings and the published analyses."""
        sections = {section.key: section for section in GuideSection.objects.all()}

        def heading(key, default):
            section = sections.get(key)
            return f"{section.eyebrow}: {section.heading}" if section else default

        pages = [
            SitePage(settings.SITE_NAME, "home", heading("intro", "A practical field guide")),
            SitePage("Research index", "citations:research-index", heading("research-index", "")),
            SitePage(
                "All papers", "paper-list", "Every paper the site tracks, newest or most cited."
            ),
            SitePage(
                "Research notes", "note-list", "What each paper found, why it matters, caveats."
            ),
            SitePage("Tags", "tag-index", "Topics across the papers and research notes."),
            SitePage("The Bottleneck Map", "bottlenecks:index", "Where RL scaling breaks."),
            SitePage(
                "Claims and their evidence status",
                "evidence:claims",
                "Findings, the setup they hold in, and how well they stand up.",
            ),
            SitePage(
                "Diagnose a plateau", "evidence:diagnose", "From failure signals to tests to run."
            ),
        ]
        pages += [
            SitePage(analysis.title, "bottlenecks:index", analysis.dek, pk=analysis.pk)
            for analysis in Analysis.objects.published()
        ]
        return pages

    def matching(self, query, year=None):
        if year is not None:
            return []
        matches = []
        for page in self.pages():
            haystack = f"{page.title} {page.description}".lower()
            if all(term.lower() in haystack for term in query.terms):
                exact = page.title.lower() == query.text.lower()
                in_title = query.text.lower() in page.title.lower()
                matches.append((0 if exact else 1 if in_title else 2, page))
        return [page for _, page in sorted(matches, key=lambda match: match[0])]

    def hit(self, page):
        return Hit(
            kind=self.key,
            title=page.title,
            url=reverse(page.url_name),
            text=page.description,
            meta=["Page"],
            item=page,
        )


SOURCES = {
    source.key: source
    for source in (
        PageSource(),
        PaperSource(),
        NoteSource(),
        ClaimSource(),
        LayerSource(),
        TagSource(),
        PostSource(),
    )
}
KIND_CHOICES = [(key, source.label) for key, source in SOURCES.items()]
