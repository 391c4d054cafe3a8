"""Every URL the site serves, as the benchmark requests it: the one list bench/bench.py loads, and
tests/ops/test_bench_endpoints.py checks against the URL patterns, the README and the API's
filters, searches and orderings (each is here or in EXCLUDED with a reason), so a new endpoint
or parameter cannot be left out of the benchmark silently.

A path is a template filled from the corpus being measured (bench.py `--targets`): `{hub}` is
the published paper with the most published citing papers, `{index_last_page}` the research
index's last page, and so on (TARGETS says what each is). The template is also the row's name,
the same at every corpus size, so runs at two sizes line up row by row.
"""

from dataclasses import dataclass
from string import Formatter

# What each placeholder is; bench.py's `--targets` finds them in the database.
TARGETS = {
    "hub": "slug of the published paper with the most published citing papers",
    "arxiv": "a published paper's arXiv id (the first one stored)",
    "paper": "slug of a published paper that cites others (not the hub)",
    "doi": "a published paper's DOI (else the DataCite DOI of {arxiv}: no paper has it)",
    "role": "the hub's most frequent citation role",
    "polarity": "the hub's most frequent citation polarity",
    "tag": "the tag on the most published papers",
    "layer": "a published layer's slug",
    "claim": "the first published claim in evidence order",
    "signal": "the first published failure signal's slug (the diagnosis)",
    "year": "the most frequent publication year of research-index papers",
    "note": "the newest published research note",
    "note_paper": "a paper a published note discusses",
    "post": "a published community post's slug",
    "post_year": "its year",
    "post_source": "its source",
    "question": "a published question's id",
    "question_kind": "its kind",
    "citation": "the newest published citation's id",
    "dimension": "a published dimension's slug",
    "stage": "a published loop stage's slug",
    "analysis": "a published analysis's slug",
    "author": "slug of the author with the most published papers",
    "benchmark": "slug of the published benchmark with the most published series",
    "series": "slug of that benchmark's first published series",
    "series2": "slug of another published series (of any benchmark when it has one only)",
    "result": "id of the first published result of {series}",
    "index_last_page": "the research index's last page number",
    "hub_last_page": "the hub explorer's last page number",
    "papers_sitemap_last_page": "the papers sitemap's last page number",
    "papers_cursor": "a cursor nine tenths down the API papers list (newest first)",
    "cited_cursor": "a cursor deep in `papers/?ordering=-cited_by_count` (papers cited once)",
    "citations_cursor": "a cursor nine tenths down the API citations list (newest first)",
    "hub_cursor": "a cursor nine tenths down the hub's API citing papers (newest first)",
    "results_cursor": "a cursor nine tenths down the API results list (its default order)",
}

SINCE = "2020-01-01T00:00:00Z"  # `updated_after` and friends: early, so every row matches


@dataclass(frozen=True)
class Endpoint:
    route: str  # the URL pattern's name, e.g. "citations:paper-detail"
    template: str  # e.g. "/papers/{hub}/?role={role}"

    @property
    def placeholders(self):
        return {name for _, name, _, _ in Formatter().parse(self.template) if name}

    def path(self, targets):
        """The path for one corpus, or None when the corpus has no such row (e.g. no notes)."""
        if any(targets.get(name) is None for name in self.placeholders):
            return None
        return self.template.format(**targets)


def variants(route, base, *queries):
    """The plain address and one row per query string."""
    return [Endpoint(route, base)] + [Endpoint(route, f"{base}?{query}") for query in queries]


def api_list(resource, route, *queries, search="scaling", orderings=()):
    """An API list: plain, `search=`, each `ordering=`, each filter, and (every list has them)
    `status=` and `updated_after=`."""
    return variants(
        route,
        f"/api/v1/{resource}/",
        f"search={search}",
        *(f"ordering={ordering}" for ordering in orderings),
        *queries,
        "status=published",
        f"updated_after={SINCE}",
    )


# A page-numbered API list's paging: the second page, and the largest page a reader may ask for.
PAGED = ("page=2", "page_size=100")

# The setting a reader can give every step of the diagnosis, all at once.
SETTING = "task_family=math&model_size=small&reward_type=verifiable"

# The filters results share, on the page and in the API (series and results lists).
RESULT_FILTERS = (
    "benchmark={benchmark}",
    "paper={hub}",
    "task_family=math",
    "model_size=large",
    "reward_type=verifiable",
    "tag={tag}",
    "layer={layer}",
)

# The hub explorer's filters, on the hub's page and on its citing papers' export.
HUB_FILTERS = (
    "role={role}",
    "polarity={polarity}",
    "q=policy",
    "provenance=editor",
    "year={year}",
    "year_from={year}&year_to={year}",
    "layer={layer}",
    "institution=University",
    "unclassified=on",
    "has_context=on",
)

PAGES = [
    Endpoint("healthz", "/healthz"),
    Endpoint("readyz", "/readyz"),
    Endpoint("home", "/"),
    *variants(
        "citations:research-index",
        "/research/",
        "q=scaling",
        "q=kimi",
        "q=scaling&sort=relevance",
        "tag={tag}",
        "layer={layer}",
        "year={year}",
        "sort=newest",
        "sort=oldest",
        "page={index_last_page}",
    ),
    *variants("citations:paper-detail", "/papers/{hub}/", *HUB_FILTERS, "page={hub_last_page}"),
    Endpoint("citations:paper-detail", "/papers/{paper}/"),
    Endpoint("citations:paper-bibtex", "/papers/{hub}.bib"),
    Endpoint("citations:paper-csl", "/papers/{hub}.json"),
    Endpoint("citations:paper-ris", "/papers/{hub}.ris"),
    Endpoint("citations:paper-jsonld", "/papers/{hub}.jsonld"),
    Endpoint("citations:hub-export", "/papers/{hub}/citing.bib"),
    Endpoint("citations:hub-export", "/papers/{hub}/citing.json?role={role}"),
    *(
        Endpoint("citations:hub-export", f"/papers/{{hub}}/citing.bib?{query}")
        for query in (*HUB_FILTERS[1:], "page=2")
    ),
    *variants("citations:tag-export", "/tags/{tag}/papers.ris", "page=2"),
    *variants("citations:layer-export", "/bottlenecks/{layer}/papers.bib", "page=2"),
    Endpoint("citations:research-export", "/research/papers.bib?q=scaling"),
    *(
        Endpoint("citations:research-export", f"/research/papers.bib?{query}")
        for query in ("tag={tag}", "layer={layer}", "year={year}", "sort=oldest", "page=2")
    ),
    Endpoint("citations:suggest-correction", "/citations/{citation}/suggest/"),
    Endpoint("discovery:paper-graph", "/papers/{hub}/graph/"),
    Endpoint("discovery:paper-graph", "/papers/{paper}/graph/"),
    Endpoint("discovery:paper-graph-json", "/papers/{hub}/graph.json"),
    Endpoint("discovery:paper-graph-graphml", "/papers/{hub}/graph.graphml"),
    *variants("discovery:author-detail", "/authors/{author}/", "page=2"),
    *variants("discovery:author-list", "/authors/", "q=a", "page=2"),
    Endpoint("paper-card", "/papers/{hub}/card.png"),
    Endpoint("note-card", "/notes/{note}/card.png"),
    *variants(
        "search:search",
        "/search/",
        "q=scaling",
        "q=kimi",
        "q=scaling&kind=papers",
        "q=scaling&year={year}",
        "q=scaling&page=2",
    ),
    Endpoint("search:suggest", "/search/suggest/?q=sc"),
    Endpoint("search:feed", "/search/feed.atom?q=scaling"),
    Endpoint("search:feed", "/search/feed.atom?q=scaling&kind=papers"),
    Endpoint("search:feed", "/search/feed.atom?q=scaling&year={year}"),
    Endpoint("paper-list-feed", "/papers/feed.atom"),
    Endpoint("note-list-feed", "/notes/feed.atom"),
    Endpoint("feed-notes-updated", "/feeds/notes-updated.atom"),
    Endpoint("feed-contrasting", "/feeds/contrasting.atom"),
    Endpoint("feed-tag", "/tags/{tag}/feed.atom"),
    Endpoint("feed-layer", "/bottlenecks/{layer}/feed.atom"),
    Endpoint("feed-citing", "/papers/{hub}/citing.atom"),
    Endpoint("about-data", "/about/data/"),
    Endpoint("notes:note-detail", "/notes/{note}/"),
    Endpoint("bottlenecks:index", "/bottlenecks/"),
    *variants("bottlenecks:layer-detail", "/bottlenecks/{layer}/", "page=2"),
    *variants("evidence:claims", "/claims/", "layer={layer}", "status=reported"),
    *variants("evidence:diagnose", "/diagnose/", "layer={layer}", f"signal={{signal}}&{SETTING}"),
    Endpoint("evidence:diagnose-layers", "/diagnose/bottlenecks/?signal={signal}"),
    Endpoint(
        "evidence:diagnose-layers",
        f"/diagnose/bottlenecks/?signal={{signal}}&layer={{layer}}&{SETTING}",
    ),
    Endpoint("evidence:diagnose-tests", "/diagnose/tests/?signal={signal}&task_family=math"),
    Endpoint(
        "evidence:diagnose-tests", f"/diagnose/tests/?signal={{signal}}&layer={{layer}}&{SETTING}"
    ),
    Endpoint(
        "evidence:diagnose-plan",
        "/diagnose/plan/?signal={signal}&model_size=small&reward_type=verifiable",
    ),
    Endpoint(
        "evidence:diagnose-plan", f"/diagnose/plan/?signal={{signal}}&layer={{layer}}&{SETTING}"
    ),
    *(
        Endpoint(f"evidence:diagnose-plan-{kind}", f"/diagnose/plan.{suffix}?signal={{signal}}")
        for kind, suffix in (("markdown", "md"), ("json", "json"))
    ),
    *(
        Endpoint(
            f"evidence:diagnose-plan-{kind}",
            f"/diagnose/plan.{suffix}?signal={{signal}}&layer={{layer}}&{SETTING}",
        )
        for kind, suffix in (("markdown", "md"), ("json", "json"))
    ),
    *variants(
        "results:list",
        "/results/",
        *RESULT_FILTERS,
        "sort=compute",
        "sort=value",
        "page=2",
    ),
    Endpoint("results:compare", "/results/compare/?series={series}&series={series2}"),
    *variants("results:benchmarks", "/benchmarks/", "page=2"),
    *variants("results:benchmark", "/benchmarks/{benchmark}/", "page=2"),
    Endpoint("results:benchmark-csv", "/benchmarks/{benchmark}/results.csv"),
    *variants("tag-detail", "/tags/{tag}/", "page=2"),
    *variants("paper-list", "/papers/", "sort=title", "sort=cited", "page=2"),
    *variants("note-list", "/notes/", "sort=title", "page=2"),
    *variants("tag-index", "/tags/", "sort=items", "page=2"),
    Endpoint("feed-latest", "/feeds/latest.atom"),
    Endpoint("sitemap", "/sitemap.xml"),
    *(
        Endpoint("sitemap-section", f"/sitemap-{section}.xml")
        for section in ("pages", "papers", "notes", "layers", "tags")
    ),
    Endpoint("sitemap-section", "/sitemap-papers.xml?p={papers_sitemap_last_page}"),
    Endpoint("robots-txt", "/robots.txt"),
    Endpoint("favicon", "/favicon.ico"),
]

FRAMEWORK_ORDERINGS = ("order", "name", "-updated_at")

API = [
    Endpoint("api:api-root", "/api/v1/"),
    Endpoint("api:schema", "/api/v1/schema/"),
    Endpoint("api:docs", "/api/v1/docs/"),
    Endpoint("api:redoc", "/api/v1/redoc/"),
    *api_list(
        "papers",
        "api:paper-list",
        "search=kimi",
        "tag={tag}",
        "layer={layer}",
        "year={year}",
        "publication_date_after=2024-01-01",
        "publication_date_before=2024-12-31",
        "is_canonical_reference=true",
        "in_research_index=true",
        "arxiv_id={arxiv}",
        "doi={doi}",
        "cites={hub}",
        "cited_by={paper}",
        "page_size=100",
        "cursor={papers_cursor}",
        "ordering=-cited_by_count&cursor={cited_cursor}",
        orderings=("-publication_date", "title", "-cited_by_count", "-created_at", "-updated_at"),
    ),
    Endpoint("api:paper-detail", "/api/v1/papers/{hub}/"),
    Endpoint("api:paper-neighbours", "/api/v1/papers/{hub}/neighbours/"),
    Endpoint("api:paper-graph", "/api/v1/papers/{hub}/graph/"),
    Endpoint("api:paper-detail", "/api/v1/papers/{paper}/"),
    Endpoint("api:paper-by-arxiv", "/api/v1/papers/by-arxiv/{arxiv}/"),
    Endpoint("api:paper-by-doi", "/api/v1/papers/by-doi/{doi}/"),
    Endpoint("api:paper-alias", "/api/v1/papers/arxiv:{arxiv}/"),  # a 302 to the paper
    *(
        Endpoint("api:paper-list", f"/api/v1/papers/?group_by={facet}")
        for facet in ("year", "layer", "tag", "in_research_index", "is_canonical_reference")
    ),
    Endpoint("api:paper-list", "/api/v1/papers/?fields=slug,title&page_size=100"),
    *(
        Endpoint("api:citation-list", f"/api/v1/citations/?cited={{hub}}&group_by={facet}")
        for facet in ("role", "polarity", "citing", "is_representative")
    ),
    # A group per cited paper needs `citing=`: the hub's citer with the most references would
    # be the widest, the hub's own references are what a reader asks for.
    Endpoint("api:citation-list", "/api/v1/citations/?citing={paper}&group_by=cited"),
    # Groupings of every edge are a 400 (bounded by design): one paper's references instead.
    Endpoint("api:citation-list", "/api/v1/citations/?citing={paper}&group_by=role"),
    *variants("api:paper-timeline", "/api/v1/papers/{hub}/timeline/", "fields=quarters"),
    Endpoint("api:changelog", "/api/v1/changelog/"),
    Endpoint("about-api", "/about/api/"),
    *variants(
        "api:paper-citations",
        "/api/v1/papers/{hub}/citations/",
        "role={role}",
        "polarity={polarity}",
        "is_representative=true",
        "provenance=editor",
        "is_influential=true",
        "page_size=100",
        "cursor={hub_cursor}",
    ),
    *api_list(
        "citations",
        "api:citation-list",
        "citing={paper}",
        "cited={hub}",
        "role={role}",
        "polarity={polarity}",
        "is_representative=true",
        "published_at_after=2024-01-01T00:00:00Z",
        "published_at_before=2025-12-31T00:00:00Z",
        "cursor={citations_cursor}",
        "provenance=editor",
        "is_influential=true",
        "page_size=100",
        orderings=("id", "-created_at", "-updated_at"),
    ),
    Endpoint("api:citation-detail", "/api/v1/citations/{citation}/"),
    *variants(
        "api:citationrole-list",
        "/api/v1/citation-roles/",
        "search=method",
        "ordering=order",
        "ordering=name",
        *PAGED,
    ),
    Endpoint("api:citationrole-detail", "/api/v1/citation-roles/{role}/"),
    *variants(
        "api:citationpolarity-list",
        "/api/v1/citation-polarities/",
        "search=support",
        "ordering=order",
        "ordering=name",
        *PAGED,
    ),
    Endpoint("api:citationpolarity-detail", "/api/v1/citation-polarities/{polarity}/"),
    *variants(
        "api:tag-list",
        "/api/v1/tags/",
        "search=rl",
        "ordering=-paper_count",
        "ordering=-note_count",
        "ordering=name",
        *PAGED,
    ),
    Endpoint("api:tag-detail", "/api/v1/tags/{tag}/"),
    *api_list(
        "notes",
        "api:researchnote-list",
        "tag={tag}",
        "layer={layer}",
        "paper={note_paper}",
        "is_featured=true",
        "published_at_after=2024-01-01T00:00:00Z",
        "published_at_before=2030-01-01T00:00:00Z",
        *PAGED,
        orderings=("-published_at", "title", "-updated_at"),
    ),
    Endpoint("api:researchnote-detail", "/api/v1/notes/{note}/"),
    *api_list(
        "community-posts",
        "api:communitypost-list",
        "year={post_year}",
        "source={post_source}",
        *PAGED,
        orderings=("order", "-year", "title", "-updated_at"),
    ),
    Endpoint("api:communitypost-detail", "/api/v1/community-posts/{post}/"),
    *api_list(
        "questions",
        "api:question-list",
        "kind={question_kind}",
        *PAGED,
        search="reward",
        orderings=("kind", "order", "-updated_at"),
    ),
    Endpoint("api:question-detail", "/api/v1/questions/{question}/"),
    *api_list("dimensions", "api:dimension-list", *PAGED, orderings=FRAMEWORK_ORDERINGS),
    Endpoint("api:dimension-detail", "/api/v1/dimensions/{dimension}/"),
    *api_list("loop-stages", "api:loopstage-list", *PAGED, orderings=FRAMEWORK_ORDERINGS),
    Endpoint("api:loopstage-detail", "/api/v1/loop-stages/{stage}/"),
    *api_list("layers", "api:layer-list", *PAGED, search="reward", orderings=FRAMEWORK_ORDERINGS),
    Endpoint("api:layer-detail", "/api/v1/layers/{layer}/"),
    *variants(
        "api:analysis-list",
        "/api/v1/analyses/",
        "search=scaling",
        "ordering=number",
        "ordering=title",
        "ordering=-updated_at",
        *PAGED,
    ),
    Endpoint("api:analysis-detail", "/api/v1/analyses/{analysis}/"),
    *api_list(
        "claims",
        "api:claim-list",
        "layer={layer}",
        "paper={hub}",
        "evidence_status=reported",
        *PAGED,
        search="throughput",
        orderings=("-reported_on", "slug", "-updated_at"),
    ),
    Endpoint("api:claim-detail", "/api/v1/claims/{claim}/"),
    *api_list(
        "benchmarks",
        "api:benchmark-list",
        "task_family=math",
        *PAGED,
        search="pass",
        orderings=("name", "updated_at"),
    ),
    Endpoint("api:benchmark-detail", "/api/v1/benchmarks/{benchmark}/"),
    *api_list(
        "series",
        "api:series-list",
        *RESULT_FILTERS,
        *PAGED,
        search="rl",
        orderings=("name", "updated_at"),
    ),
    Endpoint("api:series-detail", "/api/v1/series/{series}/"),
    *variants(
        "api:result-list",
        "/api/v1/results/",
        "cursor={results_cursor}",
        "search=table",
        "ordering=value",
        "ordering=compute_sort",
        "ordering=steps",
        "series={series}",
        *RESULT_FILTERS,
        "compute_axis=gpu_hours",
        *PAGED,
        # A grouping needs a benchmark, paper or run (API 1.8.0): the widest benchmark's.
        *(
            f"benchmark={{benchmark}}&group_by={facet}"
            for facet in (
                "benchmark",
                "series",
                "paper",
                "task_family",
                "model_size",
                "reward_type",
                "location_kind",
            )
        ),
    ),
    Endpoint("api:result-detail", "/api/v1/results/{result}/"),
]

ENDPOINTS = PAGES + API

# URL patterns (by name; a namespace alone for all of it) the benchmark does not request.
EXCLUDED = {
    "admin": "the editors' admin needs a signed-in session; its changelists and the largest "
    "hub's change form are timed with the editors' work, not by this anonymous load",
    "api:token": "POST only (trades a password for a token): a write, rate-limited by design",
    "api:imports": "POST only, for editors: imports write papers (bench/RESULTS.md times them "
    "with manage.py import_papers)",
    "api:import-detail": "an editor's import run: signed-in only, and a write when POSTed",
    "api:results-import": "POST only, for editors: a results import writes points (docs/results.md "
    "times 100,000 rows with manage.py import_results)",
    "api:results-import-run": "an editor's results import run: signed-in only",
    "api:not-found": "the catch-all JSON 404 for addresses under /api/v1/ that do not exist",
    "dump-latest": "a file the scheduled dump task writes (404 until the first export_dump): "
    "served from storage, its size is the dump's, not the request's",
    "api:paper-batch": "POST only (a read of up to 500 papers by identifier): its cost is "
    "pinned by a query-count test (tests/api/test_batch_and_aliases.py), not this GET load",
}

# Query parameters that choose how an answer is written, not which rows it reads or how many:
# every other parameter a list reads has a row of its own for that list
# (tests/ops/test_bench_filters.py).
NOT_FILTERS = {
    "format": "the API's renderer (`format=json`, the browsable `format=api`): the same rows, "
    "written another way",
    "fields": "a sparse fieldset: fewer columns of the same rows; `/api/v1/papers/?fields=` "
    "with `page_size=100` times the widest list",
    "omit": "a sparse fieldset: fewer columns of the same rows, as `fields`",
    "sent": "the correction form's thank-you line after a POST; no rows are read for it",
}
