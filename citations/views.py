"""The research index, paper hubs (with the citing-papers explorer) and BibTeX downloads."""

import re

from django.conf import settings
from django.db.models import F, Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from notes.models import GuideSection, ResearchNote
from rlscaling.caching import cached_by_generation
from rlscaling.pagination import paginate
from rlscaling.publishing.preview import render_item

from .filters import CitingPaperFilter, ResearchIndexFilter
from .models import Paper

INDEX_PAGE_SIZE = 20
EXPLORER_PAGE_SIZE = 20
REPRESENTATIVE_LIMIT = 24


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
        "site_search_query": request.GET.get("q", ""),
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
    polarity_classified = sum(row["count"] for row in summary.polarities)
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
        .order_by(F("cited_paper__publication_date").desc(nulls_last=True), "id"),
        "json_ld": scholarly_article(paper),
        "role_unclassified": summary.total - summary.classified,
        "polarity_classified": polarity_classified,
        "polarity_unclassified": summary.total - polarity_classified,
    }
    if explorer.is_bound and not explorer.is_valid():
        return render_item(request, "citations/paper_detail.html", context, paper, status=400)
    context["explorer_page"] = paginate(
        request, explorer.qs, EXPLORER_PAGE_SIZE, count=explorer_count(explorer, summary)
    )
    return render_item(request, "citations/paper_detail.html", context, paper)


def explorer_count(explorer, summary):
    """How many edges the explorer lists, from the hub's figures where they tell (no filter, or
    one role, or one polarity); None (the paginator counts) for a role and a polarity at once."""
    if not explorer.is_filtered:
        return summary.total
    role, polarity = (explorer.form.cleaned_data.get(name) for name in ("role", "polarity"))
    if role and polarity:
        return None
    term, rows = (role, summary.roles) if role else (polarity, summary.polarities)
    return next((row["count"] for row in rows if row["slug"] == term.slug), 0)


@require_safe
def paper_bibtex(request, slug):
    """The paper as a BibTeX entry, downloaded as <slug>.bib."""
    paper = get_object_or_404(Paper.objects.visible_to(request.user).with_authors(), slug=slug)
    response = HttpResponse(bibtex_entry(paper), content_type="application/x-bibtex; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{paper.slug}.bib"'
    return response


def scholarly_article(paper):
    """schema.org ScholarlyArticle data for the hub's JSON-LD block."""
    url = f"{settings.SITE_URL}{paper.get_absolute_url()}"
    authors = [{"@type": "Person", "name": name} for name in paper.author_names]
    if not authors and paper.byline:
        authors = [{"@type": "Organization", "name": paper.byline}]
    data = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "@id": url,
        "url": url,
        "mainEntityOfPage": url,
        "headline": paper.title[:110],
        "name": paper.title,
        "author": authors,
        "description": paper.summary,
        "abstract": paper.abstract,
        "keywords": [tag.name for tag in paper.tags.all()],
        "sameAs": [link for link in (paper.arxiv_url, paper.doi_url, paper.url) if link],
        "identifier": [
            {"@type": "PropertyValue", "propertyID": scheme, "value": value}
            for scheme, value in (("arXiv", paper.arxiv_id), ("DOI", paper.doi))
            if value
        ],
    }
    if paper.publication_date:
        data["datePublished"] = paper.publication_date.isoformat()
    if paper.institution:
        data["sourceOrganization"] = {"@type": "Organization", "name": paper.institution}
    return {key: value for key, value in data.items() if value not in ("", [], None)}


BIBTEX_SPECIAL = re.compile(r"([\\{}&%$#_^~])")
BIBTEX_REPLACEMENTS = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}


def bibtex_escape(text):
    return BIBTEX_SPECIAL.sub(
        lambda match: BIBTEX_REPLACEMENTS.get(match.group(1), "\\" + match.group(1)), text
    )


def bibtex_name(name):
    """A name in BibTeX's "Last, First" order; a one-word name stays as it is."""
    first, _, last = name.rpartition(" ")
    return f"{last}, {first}" if first else name


def bibtex_entry(paper):
    names = paper.author_names
    if names:
        author = " and ".join(bibtex_escape(bibtex_name(name)) for name in names)
        key_name = names[0].rpartition(" ")[2]
    else:
        # An organisation as author: double braces keep BibTeX from splitting the name.
        author = "{" + bibtex_escape(paper.byline or paper.institution) + "}"
        key_name = paper.byline or paper.institution or "anon"
    year = paper.publication_date.year if paper.publication_date else ""
    title_word = next((w for w in slugify(paper.title).split("-") if len(w) > 3), "paper")
    key = re.sub(r"[^a-z0-9]", "", slugify(key_name)) + str(year) + title_word

    entry_type = "misc" if paper.arxiv_id or not paper.institution else "techreport"
    fields = [
        ("title", "{" + bibtex_escape(paper.title) + "}"),
        ("author", author if author != "{}" else ""),
        ("institution", bibtex_escape(paper.institution) if entry_type == "techreport" else ""),
        ("year", str(year)),
        ("month", paper.publication_date.strftime("%b").lower() if paper.publication_date else ""),
        ("eprint", paper.arxiv_id),
        ("archivePrefix", "arXiv" if paper.arxiv_id else ""),
        ("doi", bibtex_escape(paper.doi)),
        ("url", paper.url or paper.arxiv_url or paper.doi_url),
    ]
    lines = [f"@{entry_type}{{{key},"]
    for name, value in fields:
        if value:
            # `month` takes BibTeX's bare three-letter macros; everything else is braced.
            lines.append(f"  {name} = {value}," if name == "month" else f"  {name} = {{{value}}},")
    lines.append("}")
    return "\n".join(lines) + "\n"
