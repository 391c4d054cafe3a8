"""Site-wide pages that belong to no one app: the field guide (home), tag pages, robots.txt."""

from django.conf import settings
from django.db.models import F, Prefetch
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from taggit.models import Tag

from bottlenecks.models import Analysis, Claim, Dimension, Layer, LoopStage
from citations.models import Paper
from notes.models import CommunityPost, GuideSection, Question, ResearchNote

from .pagination import paginate

LATEST_RESEARCH_COUNT = 6
FEATURED_NOTES_LIMIT = 6
TAG_PAGE_SIZE = 20


@require_safe
def home(request):
    """The field guide: the editor-written sections of seed 001, in order."""
    featured_notes = list(
        ResearchNote.objects.featured().prefetch_related(
            Prefetch("claims", queryset=Claim.objects.published().by_evidence())
        )[:FEATURED_NOTES_LIMIT]
    )
    context = {
        "nav": "guide",
        "sections": GuideSection.by_key(),
        "dimensions": Dimension.objects.published(),
        "loop_stages": LoopStage.objects.published(),
        "layers": Layer.objects.published(),
        "analysis": Analysis.objects.published().prefetch_related("steps").first(),
        "featured_notes": featured_notes,
        "evidence_updated": featured_notes[0].published_at if featured_notes else None,
        "community_posts": CommunityPost.objects.published(),
        "team_questions": Question.objects.published().filter(kind=Question.Kind.TEAM),
        "faqs": Question.objects.published().filter(kind=Question.Kind.FAQ),
        "latest_papers": Paper.objects.latest_research()[:LATEST_RESEARCH_COUNT],
    }
    return render(request, "home.html", context)


@require_safe
def tag_detail(request, slug):
    """Published papers and notes with one tag; a tag with none of them is a 404."""
    tag = get_object_or_404(Tag, slug=slug)
    papers = (
        Paper.objects.published()
        .filter(tags=tag)
        .for_listing()
        .order_by(F("publication_date").desc(nulls_last=True), "-id")
    )
    notes = list(ResearchNote.objects.published().filter(tags=tag).prefetch_related("tags"))
    page = paginate(request, papers, TAG_PAGE_SIZE)
    if not notes and not page.paginator.count:
        raise Http404("Nothing published carries this tag.")
    return render(request, "tag_detail.html", {"tag": tag, "notes": notes, "page": page})


@require_safe
def robots_txt(request):
    lines = [
        "User-agent: *",
        f"Disallow: /{settings.ADMIN_URL}",
        "Disallow: /api/",
        "",
        f"Sitemap: {settings.SITE_URL}{reverse('sitemap')}",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
