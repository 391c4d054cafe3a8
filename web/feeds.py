"""Atom feeds: the latest published research notes and research-index papers, and topic feeds
(new papers citing a paper, a tag, a bottleneck layer, new contrasting evidence, notes as they
are updated)."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import reverse

from bottlenecks.models import Layer
from citations.identity import redirect_old_slugs
from citations.models import (
    Citation,
    CitationSummary,
    Paper,
    citation_vocabularies,
    with_authors_where_shown,
)
from core.feeds import FEED_LENGTH, SiteFeed, tag_uri
from notes.models import ResearchNote
from tags.counts import public_tags, tag_list


class PaperAndNoteItems:
    """How a paper or a research note reads as a feed entry."""

    def item_title(self, item):
        return item.title

    def item_description(self, item):
        if isinstance(item, ResearchNote):
            return item.dek
        text = item.summary or item.abstract
        # The citing figures, each with its basis (never a bare "100% of citing papers"); a
        # feed that did not read the stored counts (PaperListFeed, the topic feeds) shows none.
        summary = getattr(item, "feed_citation_summary", None)
        return f"{text}\n\n{summary.headline}".strip() if summary and summary.total else text

    def item_link(self, item):
        return f"{settings.SITE_URL}{item.get_absolute_url()}"

    def item_guid(self, item):
        # The entry's id: the row's, not its address (a renamed slug is not a new entry).
        return tag_uri("note" if isinstance(item, ResearchNote) else "paper", item.pk)

    item_guid_is_permalink = False

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.updated_at

    def item_author_name(self, item):
        if isinstance(item, ResearchNote):
            return settings.SITE_NAME
        return item.byline or ", ".join(item.author_names) or None


class LatestFeed(PaperAndNoteItems, SiteFeed):
    title = f"{settings.SITE_NAME}: latest notes and papers"
    subtitle = "New research notes and papers on how reinforcement-learning systems scale."

    def link(self):
        return f"{settings.SITE_URL}/"

    def feed_url(self):
        return f"{settings.SITE_URL}/feeds/latest.atom"

    def items(self):
        notes = ResearchNote.objects.published().prefetch_related(tag_list())[:FEED_LENGTH]
        # Index papers only: the many citing papers held as citation records are not news.
        papers = (
            Paper.objects.in_research_index()
            .prefetch_related(tag_list())
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
        return with_authors_where_shown(items[:FEED_LENGTH])

    def item_categories(self, item):
        kind = "Research note" if isinstance(item, ResearchNote) else "Paper"
        return [kind, *(tag.label for tag in item.tag_list)]


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
        papers = Paper.objects.published().prefetch_related(tag_list())
        return with_authors_where_shown(list(papers.order_by("-published_at", "-id")[:FEED_LENGTH]))


class NoteListFeed(LatestFeed):
    """The feed of /notes/: every published research note, newest first."""

    title = f"{settings.SITE_NAME}: research notes"
    subtitle = "What each paper found, why it matters, and the caveat."

    def link(self):
        return f"{settings.SITE_URL}/notes/"

    def feed_url(self):
        return f"{settings.SITE_URL}/notes/feed.atom"

    def items(self):
        notes = ResearchNote.objects.published().prefetch_related(tag_list())
        return notes.order_by("-published_at", "-id")[:FEED_LENGTH]


# -- topic feeds ------------------------------------------------------------------------------


class TopicFeed(PaperAndNoteItems, SiteFeed):
    """A feed of papers and notes (or citation edges, see CitingFeed) about one topic; each is
    linked from its topic's page with <link rel="alternate">. Only published items appear."""

    url_name = None  # the feed's own URL name, for its self link
    topic_kind = None  # for the feed's id, made from its topic's row (a slug may change)

    def feed_guid(self, obj=None):
        if obj is None or self.topic_kind is None:
            return None  # the feed's address, which never changes
        return tag_uri(self.topic_kind, obj.pk, self.url_name)

    def feed_url(self, obj=None):
        kwargs = {"slug": obj.slug} if obj is not None else {}
        return f"{settings.SITE_URL}{reverse(self.url_name, kwargs=kwargs)}"

    def get_object(self, request, *args, **kwargs):
        return self.topic(request, *args, **kwargs)

    def topic(self, request, *args, **kwargs):
        return None

    def link(self, obj=None):
        return f"{settings.SITE_URL}{obj.get_absolute_url()}" if obj else f"{settings.SITE_URL}/"


def newest_papers_and_notes(papers, notes):
    """The newest published papers and notes together, by publication time."""
    papers = papers.order_by("-published_at", "-id")[:FEED_LENGTH]
    notes = notes.order_by("-published_at", "-id")[:FEED_LENGTH]
    items = sorted([*papers, *notes], key=lambda item: item.published_at, reverse=True)
    return with_authors_where_shown(items[:FEED_LENGTH])


class TagFeed(TopicFeed):
    url_name = "feed-tag"
    topic_kind = "tag"

    def topic(self, request, slug):
        return get_object_or_404(public_tags(), slug=slug)

    def title(self, obj):
        return f"{settings.SITE_NAME}: papers and notes tagged “{obj.name}”"

    def link(self, obj):
        return f"{settings.SITE_URL}{reverse('tag-detail', kwargs={'slug': obj.slug})}"

    def items(self, obj):
        return newest_papers_and_notes(
            Paper.objects.published().filter(tags=obj),
            ResearchNote.objects.published().filter(tags=obj),
        )


class LayerFeed(TopicFeed):
    url_name = "feed-layer"
    topic_kind = "layer"

    def topic(self, request, slug):
        return get_object_or_404(Layer.objects.published(), slug=slug)

    def title(self, obj):
        return f"{settings.SITE_NAME}: papers and notes on the {obj.name} layer"

    def items(self, obj):
        return newest_papers_and_notes(
            Paper.objects.published().filter(layers=obj),
            ResearchNote.objects.published().filter(layers=obj),
        )


class NotesUpdatedFeed(TopicFeed):
    url_name = "feed-notes-updated"

    title = f"{settings.SITE_NAME}: research notes, as they are updated"

    def items(self):
        notes = ResearchNote.objects.published().order_by("-updated_at", "-id")
        return notes[:FEED_LENGTH]

    def item_pubdate(self, item):
        return item.updated_at


class CitationFeed(TopicFeed):
    """Citation edges as entries: the citing paper, how it cites (role and polarity) and what,
    newest edge first. An entry's id is the edge's, so a paper citing two papers is two."""

    def edges(self, obj):
        return (
            Citation.objects.public()
            .select_related("citing_paper", "cited_paper", "role", "polarity")
            .order_by("-published_at", "-id")
        )

    def items(self, obj=None):
        edges = list(self.edges(obj)[:FEED_LENGTH])
        with_authors_where_shown([edge.citing_paper for edge in edges])
        return edges

    def item_title(self, edge):
        return edge.citing_paper.title

    def item_description(self, edge):
        how = ", ".join(term.name.lower() for term in (edge.role, edge.polarity) if term)
        text = f"Cites “{edge.cited_paper.title}”" + (f" ({how})" if how else "") + "."
        if edge.context:
            text += f" “{edge.context}”"
        return text

    def item_link(self, edge):
        return f"{settings.SITE_URL}{edge.citing_paper.get_absolute_url()}"

    def item_guid(self, edge):
        return tag_uri("citation", edge.pk)

    def item_author_name(self, edge):
        paper = edge.citing_paper
        return paper.byline or ", ".join(paper.author_names) or None

    def item_pubdate(self, edge):
        return edge.published_at

    def item_updateddate(self, edge):
        return edge.updated_at


class CitingFeed(CitationFeed):
    """New papers citing one paper."""

    url_name = "feed-citing"
    topic_kind = "paper"

    def __call__(self, request, *args, **kwargs):
        # An old slug of a renamed or merged paper answers 301, as the paper's page does.
        return redirect_old_slugs(super().__call__)(request, *args, **kwargs)

    def topic(self, request, slug):
        return get_object_or_404(Paper.objects.published(), slug=slug)

    def title(self, obj):
        return f"{settings.SITE_NAME}: new papers citing “{obj.title}”"

    def edges(self, obj):
        return super().edges(obj).filter(cited_paper=obj)


class ContrastingFeed(CitationFeed):
    """New contrasting evidence: edges whose citing paper disagrees with the cited one."""

    url_name = "feed-contrasting"

    title = f"{settings.SITE_NAME}: new contrasting evidence"
    subtitle = "Papers whose evidence disagrees with, qualifies or challenges a paper they cite."

    def link(self, obj=None):
        return f"{settings.SITE_URL}{reverse('citations:research-index')}"

    def edges(self, obj):
        return super().edges(obj).filter(polarity__slug="contrasting")
