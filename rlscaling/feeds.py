"""The Atom feed of published research notes and research-index papers, newest first."""

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.utils.feedgenerator import Atom1Feed

from citations.models import CitationSummary, Paper, citation_vocabularies
from notes.models import ResearchNote
from rlscaling.text import clean_data

FEED_LENGTH = 30


class CleanAtom1Feed(Atom1Feed):
    """Atom that stays well-formed whatever is stored: text saved around the model's cleaning
    (bulk writes, raw SQL) loses its control characters here, instead of making Django raise
    (a 500 for everyone) or write an invalid attribute (a tag name in a category)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*clean_data(list(args)), **clean_data(kwargs))

    def add_item(self, *args, **kwargs):
        super().add_item(*clean_data(list(args)), **clean_data(kwargs))


class LatestFeed(Feed):
    feed_type = CleanAtom1Feed
    title = f"{settings.SITE_NAME}: latest notes and papers"
    subtitle = "New research notes and papers on how reinforcement-learning systems scale."

    def link(self):
        return f"{settings.SITE_URL}/"

    def feed_url(self):
        return f"{settings.SITE_URL}/feeds/latest.atom"

    def items(self):
        notes = ResearchNote.objects.published().prefetch_related("tags")[:FEED_LENGTH]
        # Index papers only: the many citing papers held as citation records are not news.
        papers = (
            Paper.objects.in_research_index()
            .with_authors()
            .prefetch_related("tags")
            .select_related("citation_count")
            .order_by("-published_at", "-id")[:FEED_LENGTH]
        )
        roles, polarities = citation_vocabularies()
        for paper in papers:
            # The stored counts: the feed does not count thirty hubs' edges.
            paper.feed_citation_summary = CitationSummary.from_stored_counts(
                getattr(paper, "citation_count", None), roles, polarities
            )
        items = sorted([*notes, *papers], key=lambda item: item.published_at, reverse=True)
        return items[:FEED_LENGTH]

    def item_title(self, item):
        return item.title

    def item_description(self, item):
        if isinstance(item, ResearchNote):
            return item.dek
        text = item.summary or item.abstract
        summary = item.feed_citation_summary
        # The citing figures, each with its basis (never a bare "100% of citing papers").
        return f"{text}\n\n{summary.headline}".strip() if summary.total else text

    def item_link(self, item):
        return f"{settings.SITE_URL}{item.get_absolute_url()}"

    def item_guid(self, item):
        return self.item_link(item)

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.updated_at

    def item_author_name(self, item):
        if isinstance(item, ResearchNote):
            return settings.SITE_NAME
        return item.byline or ", ".join(item.author_names) or None

    def item_categories(self, item):
        kind = "Research note" if isinstance(item, ResearchNote) else "Paper"
        return [kind, *(tag.name for tag in item.tags.all())]


class PaperListFeed(LatestFeed):
    """The feed of /papers/: every published paper, newest published first (also those held
    only as citation records, as the browse page lists them)."""

    title = f"{settings.SITE_NAME}: all papers"
    subtitle = "Every paper the site tracks, newest first."

    def link(self):
        return f"{settings.SITE_URL}/papers/"

    def feed_url(self):
        return f"{settings.SITE_URL}/papers/feed.atom"

    def items(self):
        papers = Paper.objects.published().with_authors().prefetch_related("tags")
        return papers.order_by("-published_at", "-id")[:FEED_LENGTH]


class NoteListFeed(LatestFeed):
    """The feed of /notes/: every published research note, newest first."""

    title = f"{settings.SITE_NAME}: research notes"
    subtitle = "What each paper found, why it matters, and the caveat."

    def link(self):
        return f"{settings.SITE_URL}/notes/"

    def feed_url(self):
        return f"{settings.SITE_URL}/notes/feed.atom"

    def items(self):
        notes = ResearchNote.objects.published().prefetch_related("tags")
        return notes.order_by("-published_at", "-id")[:FEED_LENGTH]
