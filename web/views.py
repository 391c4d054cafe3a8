"""Site-wide pages that belong to no one app: the field guide (home), tag pages, robots.txt."""

from django.conf import settings
from django.db.models import Prefetch
from django.http import HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404, render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_safe

from bottlenecks.models import Analysis
from citations.models import Paper
from core.pagination import paginate
from evidence.models import Claim
from notes.guide import section_rows
from notes.models import GuideSection, ResearchNote
from pagecache.caching import reads_query
from tags.counts import public_tags

TAG_PAGE_SIZE = 20


# The field guide's sections after the intro (which opens the page), each with its template
# and the context entry it lists: a section shows, in its GuideSection.order, when an editor
# has written it and it has something to list.
GUIDE_SECTIONS = {
    "dimensions": "dimensions",
    "loop": "loop_stages",
    "breaks": "layers",
    "evidence": "featured_notes",
    "community": "community_posts",
    "questions": "team_questions",
    "latest": "latest_papers",
    "faq": "faqs",
}
ANALYSIS_CARD_TEMPLATE = "home/analysis.html"


def section_template(key):
    """The template of the guide section `key` (each extends home/section.html)."""
    return f"home/{key}.html"


@reads_query()
@require_safe
def home(request):
    """The field guide: the editor-written sections of seed 001, in their editors' order."""
    rows = section_rows()
    featured_notes = rows["evidence"].prefetch_related(
        Prefetch("claims", queryset=Claim.objects.published().by_evidence())
    )

    def evidence_updated():
        newest = next(iter(featured_notes), None)
        return newest.published_at if newest else None

    sections = list(GuideSection.objects.all())
    context = {
        "nav": "guide",
        "sections": {section.key: section for section in sections},
        "dimensions": rows["dimensions"],
        "loop_stages": rows["loop"],
        "layers": rows["breaks"],
        "analysis": Analysis.objects.published().prefetch_related("steps").first(),
        "featured_notes": featured_notes,
        "evidence_updated": evidence_updated,
        "community_posts": rows["community"],
        "team_questions": rows["questions"],
        "faqs": rows["faq"],
        "latest_papers": rows["latest"],
    }
    context["guide_sections"] = guide_sections(sections, context)
    return render(request, "home.html", context)


def guide_sections(sections, context):
    """The blocks of the field guide below the intro, in GuideSection order: each written
    section with something to list, and the Bottleneck Map card right after "breaks" (the
    layer table it analyses), or last if there is no such section."""
    card = {"section": None, "template": ANALYSIS_CARD_TEMPLATE}
    blocks = []
    for section in sections:
        items = GUIDE_SECTIONS.get(section.key)
        if items and context[items]:
            blocks.append({"section": section, "template": section_template(section.key)})
        if section.key == "breaks" and context["analysis"]:
            blocks.append(card)
    if context["analysis"] and card not in blocks:
        blocks.append(card)
    return blocks


@reads_query("page")
@require_safe
def tag_detail(request, slug):
    """Published papers and notes with one tag; a tag none of them carries is a 404."""
    tag = get_object_or_404(public_tags(), slug=slug)
    papers = Paper.objects.published().filter(tags=tag).newest_first()
    notes = list(ResearchNote.objects.published().filter(tags=tag))
    page = paginate(request, papers, TAG_PAGE_SIZE, count=tag.public_paper_count)
    return render(request, "tag_detail.html", {"tag": tag, "notes": notes, "page": page})


@reads_query()
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


@reads_query()
@require_safe
def favicon(request):
    """Browsers and crawlers ask for /favicon.ico whatever the page's <link rel="icon"> says."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
