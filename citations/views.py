"""The research index, paper hubs (with the citing-papers explorer) and BibTeX downloads."""

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from notes.models import GuideSection, ResearchNote
from rlscaling.caching import cached_by_generation, reads_query
from rlscaling.pagination import paginate
from rlscaling.publishing.preview import render_item

from .filters import CitingPaperFilter, ResearchIndexFilter
from .formats import scholarly_article
from .models import Paper

INDEX_PAGE_SIZE = 20
EXPLORER_PAGE_SIZE = 20
REPRESENTATIVE_LIMIT = 24


@reads_query("page", ResearchIndexFilter)
@require_safe
def research_index(request):
    """Every paper in the research index, filtered, sorted and paginated by query parameters."""
    papers = Paper.objects.in_research_index()
    filterset = ResearchIndexFilter(
        request.GET or None,
        queryset=papers.for_listing().prefetch_related(
            Prefetch("notes", queryset=ResearchNote.objects.published())
        ),
        request=request,
    )
    context = {
        "nav": "research",
        "section": GuideSection.objects.filter(key="research-index").first(),
        "filterset": filterset,
    }
    # Counted once per content generation: a COUNT(*) over the index on every request is not.
    total = cached_by_generation("research-index:total", papers.count)
    if filterset.is_bound and not filterset.is_valid():
        context["total"] = total
        return render(request, "citations/research_index.html", context, status=400)
    context["total"] = total
    context["page"] = paginate(
        request,
        filterset.qs,
        INDEX_PAGE_SIZE,
        count=total if not filterset.is_filtered else None,
    )
    return render(request, "citations/research_index.html", context)


@reads_query("page", CitingPaperFilter)
@require_safe
def paper_detail(request, slug):
    """A paper's hub: what it is, who cites it and how, and what it cites."""
    paper = get_object_or_404(
        Paper.objects.visible_to(request.user)
        .with_authors()
        .prefetch_related(
            "tags",
            Prefetch("layers", queryset=Layer.objects.published()),
            Prefetch("notes", queryset=ResearchNote.objects.published()),
        ),
        slug=slug,
    )
    summary = paper.citation_summary()
    explorer = CitingPaperFilter(
        request.GET or None, queryset=paper.citing_citations(), summary=summary
    )
    context = {
        "nav": "research",
        "paper": paper,
        "summary": summary,
        "representatives": paper.representative_citations()[:REPRESENTATIVE_LIMIT],
        "explorer": explorer,
        "cites": paper.public_citations_made()
        .select_related("cited_paper", "role", "polarity")
        .newest_first("cited_paper"),
        "json_ld": scholarly_article(paper, summary),
    }
    if explorer.is_bound and not explorer.is_valid():
        return render_item(request, "citations/paper_detail.html", context, paper, status=400)
    context["explorer_page"] = paginate(
        request, explorer.qs, EXPLORER_PAGE_SIZE, count=explorer.known_count(summary)
    )
    return render_item(request, "citations/paper_detail.html", context, paper)
