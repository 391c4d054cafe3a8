"""The research index, paper hubs (with the citing-papers explorer) and BibTeX downloads."""

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render
from django.utils.functional import SimpleLazyObject
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from notes.models import GuideSection, ResearchNote
from rlscaling.caching import reads_query
from rlscaling.pagination import paginate
from rlscaling.publishing.preview import render_item

from .filters import CitingPaperFilter, ResearchIndexFilter
from .formats import PAGE_JSON_LD_CITATION_LIMIT, scholarly_article
from .matrix import RolePolarityMatrix
from .models import Paper

INDEX_PAGE_SIZE = 20
# A research index page whose count is not stored (a search, or filters combined) counts this
# many matching papers past its start, and says "more than" beyond them.
INDEX_COUNT_AHEAD = 200
EXPLORER_PAGE_SIZE = 20
# A filtered explorer page whose count the hub's summary does not know counts this many
# citing papers past its start, and says "more than" beyond them.
EXPLORER_COUNT_AHEAD = 200


@reads_query("page", ResearchIndexFilter)
@require_safe
def research_index(request):
    """Every paper in the research index, filtered, sorted and paginated by query parameters."""
    papers = Paper.objects.in_research_index()
    filterset = ResearchIndexFilter(
        request.GET or None,
        queryset=papers,
        request=request,
    )
    context = {
        "nav": "research",
        "section": GuideSection.objects.filter(key="research-index").first(),
        "filterset": filterset,
    }
    context["total"] = filterset.total  # stored (citations/facet_counts.py)
    if filterset.is_bound and not filterset.is_valid():
        return render(request, "citations/research_index.html", context, status=400)
    context["page"] = paginate(
        request,
        filterset.listing,
        INDEX_PAGE_SIZE,
        count=filterset.stored_match_count(),
        count_ahead=INDEX_COUNT_AHEAD,
        counted=filterset.qs,
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
    timeline = paper.citing_timeline()  # first: on a cold cache its scan counts the summary too
    summary = paper.citation_summary()
    explorer = CitingPaperFilter(
        request.GET or None, queryset=paper.citing_citations(), summary=summary
    )
    context = {
        "nav": "research",
        "paper": paper,
        "summary": summary,
        "explorer": explorer,
        "cites": paper.public_citations_made()
        .select_related("cited_paper", "role", "polarity")
        .newest_first("cited_paper"),
        "timeline": timeline,
        # Loaded by the template only when its fragment is not kept (`{% fragment %}`).
        "representatives": SimpleLazyObject(
            lambda: paper.representative_citations() if summary.total else []
        ),
        "json_ld": lambda: scholarly_article(
            paper, summary, citation_limit=PAGE_JSON_LD_CITATION_LIMIT
        ),
    }
    if summary.total and summary.pairs is not None:
        vocabulary = explorer.vocabulary
        context["matrix"] = SimpleLazyObject(
            lambda: RolePolarityMatrix(summary, vocabulary["role"], vocabulary["polarity"])
        )
    if explorer.is_bound and not explorer.is_valid():
        context["explorer_errors"] = True
        return render_item(request, "citations/paper_detail.html", context, paper, status=400)
    if summary.total:  # a paper nobody cites shows no explorer
        context["explorer_page"] = paginate(
            request,
            explorer.qs,
            EXPLORER_PAGE_SIZE,
            count=explorer.known_count(summary),
            count_ahead=EXPLORER_COUNT_AHEAD,
        )
    return render_item(request, "citations/paper_detail.html", context, paper)
