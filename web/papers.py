"""The research index and paper hubs (with the citing-papers explorer), in the `citations`
URL namespace (rlscaling/urls.py)."""

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render
from django.urls import path
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from citations.exports import downloads as exports
from citations.exports.formats import PAGE_JSON_LD_CITATION_LIMIT, scholarly_article
from citations.filters import CitingPaperFilter
from citations.identity import redirect_old_slugs
from citations.models import Paper
from citations.stats.matrix import RolePolarityMatrix
from core.pagination import paginate
from discovery.models import Neighbour
from notes.models import GuideSection, ResearchNote
from pagecache.caching import reads_query
from publishing.preview import render_item
from search.spelling import correction
from web.index_search import SiteSearchIndexFilter

INDEX_PAGE_SIZE = 20
# A research index page whose count is not stored (a search, or filters combined) counts this
# many matching papers past its start, and says "more than" beyond them.
INDEX_COUNT_AHEAD = 200
EXPLORER_PAGE_SIZE = 20
# A filtered explorer page whose count the hub's summary does not know counts this many
# citing papers past its start, and says "more than" beyond them.
EXPLORER_COUNT_AHEAD = 200
# Similar papers, prior works and derivative works each listed on a hub (the stored lists are
# longer: the graph page and the API show them).
HUB_NEIGHBOURS = 5


@reads_query("page", SiteSearchIndexFilter)
@require_safe
def research_index(request):
    """Every paper in the research index, filtered, sorted and paginated by query parameters;
    `?q=` searched as the site search does (web/index_search.py)."""
    papers = Paper.objects.in_research_index()
    filterset = SiteSearchIndexFilter(
        request.GET or None,
        queryset=papers,
        request=request,
    )
    context = {
        "nav": "research",
        "section": GuideSection.objects.filter(key="research-index").first(),
        "filterset": filterset,
    }
    context["total"] = filterset.total  # stored (citations/stats/facet_counts.py)
    if filterset.is_bound and not filterset.is_valid():
        return render(request, "citations/research_index.html", context, status=400)
    context["page"] = paginate(
        request,
        filterset.listing.with_list_foot(),  # the list items show their tags and notes
        INDEX_PAGE_SIZE,
        count=filterset.stored_match_count(),
        count_ahead=INDEX_COUNT_AHEAD,
        counted=filterset.qs,
    )
    context["did_you_mean"] = index_correction(request, filterset, context["page"])
    return render(request, "citations/research_index.html", context)


def index_correction(request, filterset, page):
    """The research index's query string with the search's words spelt as the site spells
    them (search/spelling.py), when the search as typed lists nothing and the corrected one
    lists papers under the same filters; else None."""
    if not filterset.is_bound:
        return None
    text = filterset.form.cleaned_data.get("q")
    if not text or page.object_list:
        return None
    corrected = correction(text)
    if corrected is None:
        return None
    data = request.GET.copy()
    data["q"] = corrected
    data.pop("page", None)
    found = SiteSearchIndexFilter(data, queryset=filterset.queryset, request=request)
    if not found.is_valid() or not found.qs.exists():
        return None
    return {"text": corrected, "query": data.urlencode()}


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
    groups = paper.citing_groups()  # read once: the timeline and the summary add them up
    timeline = paper.citing_timeline(groups)
    summary = paper.citation_summary(groups)
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
        "representatives": paper.representative_citations() if summary.total else [],
        "json_ld": scholarly_article(paper, summary, citation_limit=PAGE_JSON_LD_CITATION_LIMIT),
        "neighbours": Neighbour.objects.lists_for(paper, limit=HUB_NEIGHBOURS),
    }
    if summary.total and summary.pairs is not None:
        vocabulary = explorer.vocabulary
        context["matrix"] = RolePolarityMatrix(summary, vocabulary["role"], vocabulary["polarity"])
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


urlpatterns = [
    path("research/", research_index, name="research-index"),
    # A renamed or merged paper's old slug answers 301 to its current address.
    path(
        "papers/<slug:slug>/",
        redirect_old_slugs(exports.negotiated(paper_detail)),
        name="paper-detail",
    ),
]
