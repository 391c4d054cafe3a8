"""Why a row of the benchmark grows more than 2x from the demo size to 100k papers / 1M
citations, and the next step: printed in the table's note column for each row over the target
(bench.py `growth_table`). Found by timing each request's queries and answer through the test
client on both databases (bench/RESULTS.md, "Reading the table"). Keyed by the endpoint's
template (bench/endpoints.py); `tests/ops/test_bench_endpoints.py` checks the keys are rows.

Most rows over the target answer more at 1M than at the demo size, where the list is short
or empty: the cost per entry is flat, the number of entries is not (bounded by the page size
or a limit, so no row grows past it)."""


def fuller_answer(demo, large, next_step):
    return f"answer {demo} at the demo size, {large} at 1M; time per entry flat. Next: {next_step}"


FULL_PAGE_NEXT = "none while under the ceiling (a page-sized list: its size is the page's)"

# A file of up to 1,000 entries (EXPORT_LIMIT) at 1M against the demo's 30 to 56.
LIST_DOWNLOAD = fuller_answer(
    "30 to 56 papers",
    "1,000 (a full file, EXPORT_LIMIT)",
    "none while under the ceiling (0016: the page's ids, then only the columns written; "
    "0020: entries written from values, about 50 ms of Python for 1,000); over it, a smaller "
    "EXPORT_LIMIT, since the Link header names the next file",
)
# A page of points chosen from all of them: 21 points at the demo size, 200,000 at 1M.
RESULT_PAGES = (
    "a page of 20 to 50 points chosen from 21 at the demo size and 200,000 at 1M: until 0018 "
    "the sort (or the filter and the API's COUNT) read every public point joined to its run, "
    "benchmark and paper; since, an index per ordering is walked until the page is full and "
    "the page's count stops 500 rows on (the API's stays exact: v1 policy); in-process "
    "0.5-1.0 s to 0.06-0.14 s at load 17. A page renders 50 points at 1M, the demo's 21. Next: "
    "re-measure; a row still over 2x needs its plan read"
)
# A page of runs chosen from all of them: 3 at the demo size, 20,000 at 1M.
SERIES_PAGES = (
    "a page of runs chosen from 3 at the demo size and 20,000 at 1M: until 0018 sorted by "
    "benchmark and name over every public run, and each fit's chart band decoded though no "
    "answer shows it; since, an index per ordering and no band, the exact count of the runs "
    "kept (a page-number list, 52 ms at load 17). A page answers 20 runs with their fits at "
    "1M, the demo's 3. Next: re-measure"
)
# A hub's neighbourhood: the demo hub has 30 citers, the large one 36,682.
GRAPH = (
    "the neighbourhood of a hub cited 36,682 times at 1M (30 at the demo size): its most cited "
    "references and citers are chosen among all its edges before the layout; the graph itself "
    "stays a few dozen nodes. Next: keep the chosen nodes with the stored neighbours (the task "
    "queue's refresh) so a page reads them"
)
# The authors list, counted.
AUTHOR_LIST = (
    "a page of authors chosen from 20 at the demo size and about 44,000 at 1M: until 0018 the "
    "list counted every author with a published paper (an EXISTS probe each, 1.0 s in-process "
    "at load 17); since, it counts 500 past the page in name order, as the page is read "
    "(0.14 s). Next: re-measure"
)
# The hub's explorer with a filter on the citing papers' own fields.
EXPLORER_FILTER = (
    "the filter reads the hub's edges joined to their citing papers until it has a page and "
    "its bounded count: 36,682 edges at 1M, 30 at the demo size, and a rare match reads many; "
    "Next: keep the citing paper's year, layers and institution on the edge (or an index on "
    "(cited paper, value)) so a filter is an index range"
)


def the_machine(in_process, answer):
    """A row whose growth the machine made: timed in-process (production settings, 25
    requests each, no load generator beside the server), it grows less than 2x."""
    return (
        f'{answer}; in-process {in_process} (bench/RESULTS.md, "Reading the table"): the '
        "demo-size pass of the 3b58b75 run was faster than the last run's on the same code "
        "(API median 0.63x). Next: re-measure"
    )


RANKED_SEARCH = (
    '"scaling" matches 56,077 of 100,056 papers at 1M (about 20 at the demo size): the '
    "newest 1,000 matches are ranked, a bound, not the corpus; the research index no longer "
    "reads every match first to count and page them (0020: its SQL 945 to 89 ms in-process, "
    "load 17). Next: re-measure; then a smaller ranked window, once a relevance test set "
    "shows it ranks as well"
)

GROWTH_REASONS = {
    "/papers/{hub}/citing.bib": LIST_DOWNLOAD,
    "/papers/{hub}/citing.json?role={role}": LIST_DOWNLOAD,
    "/tags/{tag}/papers.ris": LIST_DOWNLOAD,
    "/bottlenecks/{layer}/papers.bib": LIST_DOWNLOAD,
    "/research/papers.bib?q=scaling": LIST_DOWNLOAD,
    # The same files narrowed by a filter or paged on: still up to 1,000 entries each.
    **dict.fromkeys(
        [
            *(
                f"/papers/{{hub}}/citing.bib?{query}"
                for query in (
                    "polarity={polarity}",
                    "q=policy",
                    "provenance=editor",
                    "year={year}",
                    "year_from={year}&year_to={year}",
                    "layer={layer}",
                    "institution=University",
                    "unclassified=on",
                    "has_context=on",
                    "page=2",
                )
            ),
            "/tags/{tag}/papers.ris?page=2",
            "/bottlenecks/{layer}/papers.bib?page=2",
            "/research/papers.bib?tag={tag}",
            "/research/papers.bib?year={year}",
            "/research/papers.bib?sort=oldest",
            "/research/papers.bib?page=2",
        ],
        LIST_DOWNLOAD,
    ),
    "/research/papers.bib?layer={layer}": LIST_DOWNLOAD
    + "; its ids query joined the layer by slug, so PostgreSQL expected 748 of the layer's "
    "14,816 papers and read every one to sort them (254 ms in-process at 1M, load 20); it "
    "compares the layer's id now and walks paper_research_index (the file's slowest query "
    "is then the authors', 121 ms). Next: re-measure on a quiet machine",
    "/papers/{hub}/?q=policy": EXPLORER_FILTER,
    "/papers/{hub}/?layer={layer}": EXPLORER_FILTER,
    "/papers/{hub}/?institution=University": fuller_answer(
        "the demo hub's few citing papers from a university",
        "a full page of 20 (1.2x the unfiltered hub at 1M, since the statistics of migration "
        "citations 0031: its page query went from 117 to 2 ms)",
        "none: as the unfiltered hub",
    ),
    # The demo hub has few such edges, so its filtered page lists a few rows (58 KB against the
    # unfiltered 71 KB); at 1M the filter still fills the page (133 and 136 KB, as the
    # unfiltered 132 KB): the same page as the unfiltered hub, which grows 1.7x.
    **dict.fromkeys(
        ["/papers/{hub}/?provenance=editor", "/papers/{hub}/?has_context=on"],
        fuller_answer(
            "58 KB: the demo hub's few edges an editor entered or that quote their context",
            "133 to 136 KB: a full page of 20, as the unfiltered hub's 132 KB",
            "none: as the unfiltered hub (1.7x)",
        ),
    ),
    "/research/?q=scaling&sort=relevance": RANKED_SEARCH,
    "/search/?q=scaling&kind=papers": RANKED_SEARCH
    + "; and the paginator counted every match again (fixed after the run: 1.4x re-measured)",
    "/research/?year={year}": fuller_answer(
        "9.7 KB (a year with a few index papers)",
        "24 KB (a full page of 20)",
        "none needed beyond the page size; the facets are stored counts",
    ),
    "/papers/{hub}.jsonld": fuller_answer(
        "27 KB (30 citations)",
        "189 KB (200 citations each way, JSON_LD_CITATION_LIMIT)",
        "a smaller document limit, or the citations paged as the API does",
    ),
    "/feeds/contrasting.atom": fuller_answer(
        "0 entries (the demo has no contrasting edge; 480 bytes)",
        "20 entries (18.6 KB)",
        "none: one indexed query at both sizes",
    ),
    "/bottlenecks/{layer}/feed.atom": fuller_answer(
        "the layer's few papers",
        "a full feed of 20",
        "none: within 2x against /healthz (1.6x)",
    ),
    "/papers/?sort=title": fuller_answer(
        "56 papers in all",
        "a full page read by the title index",
        "none: within 2x against /healthz (1.7x)",
    ),
    "/sitemap-papers.xml": fuller_answer(
        "56 URLs (11 KB)",
        "500 URLs (97 KB, a full sitemap page)",
        "none: two index reads at both sizes",
    ),
    "/api/v1/papers/?page_size=100": fuller_answer(
        "56 papers (the whole demo)",
        "100 papers",
        "none: within 2x against /healthz (1.9x)",
    ),
    "/api/v1/papers/{hub}/timeline/": fuller_answer(
        "4 quarters (879 bytes)",
        "48 quarters (13.9 KB)",
        "none: two queries of stored counts at both sizes",
    ),
    "/api/v1/papers/{hub}/citations/?role={role}": fuller_answer(
        "the demo hub's few edges of that role",
        "a full page of 20",
        "none: within 2x against /healthz (1.8x)",
    ),
    "/api/v1/papers/{hub}/citations/?page_size=100": fuller_answer(
        "30 edges (the demo hub's all)",
        "100 edges",
        "none beyond the page size",
    ),
    "/api/v1/citations/?search=scaling": fuller_answer(
        "a few edges",
        "a full page of 20",
        "none: within 2x against /healthz (1.3x)",
    ),
    "/api/v1/citations/?ordering=-updated_at": (
        "15.7 KB at the demo size, 16.9 KB at 1M, one indexed query of 4 to 6 ms at both; "
        "within 2x against /healthz (1.1x): the machine. Next: re-measure"
    ),
    "/api/v1/papers/?publication_date_after=2024-01-01": fuller_answer(
        "3 papers", "a full page of 20", "none: within 2x against /healthz (1.8x)"
    ),
    "/api/v1/papers/?publication_date_before=2024-12-31": fuller_answer(
        "3 papers", "a full page of 20", "none: within 2x against /healthz (1.5x)"
    ),
    "/api/v1/papers/?doi={doi}": fuller_answer(
        "an empty list (no demo paper has the DOI: 1 query)",
        "one paper (its prefetches: 6 queries)",
        "none: one indexed lookup at both sizes",
    ),
    "/api/v1/papers/{hub}/citations/?polarity={polarity}": fuller_answer(
        "6 edges", "a full page of 20", "none: within 2x against /healthz (1.5x)"
    ),
    "/api/v1/citations/?published_at_before=2025-12-31T00:00:00Z": fuller_answer(
        "no edge (42 bytes: every demo edge is newer)",
        "a full page of 20 (16.9 KB)",
        "none: one indexed query of 6 ms at 1M",
    ),
    "/api/v1/papers/{hub}/timeline/?fields=quarters": fuller_answer(
        "no quarter (15 bytes: the demo hub's citing papers are undated or one quarter)",
        "48 quarters (12.7 KB)",
        "none: two queries of stored counts at both sizes",
    ),
    "/api/v1/citations/?role={role}": fuller_answer(
        "5.2 KB (the demo's few edges of the role)",
        "a full page of 20 (17.1 KB); in-process 1.4x",
        "none: one indexed query at both sizes",
    ),
    "/api/v1/citations/?polarity={polarity}": fuller_answer(
        "5.2 KB (the demo's few edges of the polarity)",
        "a full page of 20 (17.0 KB); in-process 1.5x",
        "none: one indexed query at both sizes",
    ),
    "/api/v1/citations/?cursor={citations_cursor}": fuller_answer(
        "1.9 KB (the last few of the demo's 30 edges)",
        "a full page of 20 (16.9 KB); in-process 1.7x",
        "none: one indexed query at both sizes",
    ),
    "/api/v1/papers/?layer={layer}": the_machine("1.5x", "12.9 KB against 30.5 KB"),
    "/api/v1/papers/{hub}/citations/": the_machine("1.3x", "15.1 KB against 15.9 KB"),
    "/api/v1/papers/{hub}/citations/?is_influential=true": the_machine(
        "1.3x", "1.0 KB against 1.5 KB"
    ),
    "/api/v1/citations/?provenance=editor": the_machine("1.1x", "15.6 KB against 16.9 KB"),
    "/api/v1/notes/?tag={tag}": the_machine("0.9x", "1.9 KB against 4.1 KB"),
    "/api/v1/community-posts/?search=scaling": the_machine(
        "0.6x", "the same answer at both sizes (the demo's posts)"
    ),
    "/api/v1/community-posts/?ordering=order": the_machine(
        "0.8x", "the same answer at both sizes (the demo's posts)"
    ),
    **dict.fromkeys(
        [
            "/results/",
            "/results/?task_family=math",
            "/results/?sort=compute",
            "/results/?sort=value",
            "/api/v1/results/",
            "/api/v1/results/?ordering=value",
            "/api/v1/results/?ordering=compute_sort",
            "/api/v1/results/?ordering=steps",
            "/api/v1/results/?task_family=math",
            "/api/v1/results/?compute_axis=gpu_hours",
        ],
        RESULT_PAGES,
    ),
    **dict.fromkeys(
        [
            "/api/v1/series/",
            "/api/v1/series/?search=rl",
            "/api/v1/series/?ordering=name",
            "/api/v1/series/?ordering=updated_at",
            "/api/v1/series/?task_family=math",
            "/api/v1/series/?status=published",
            "/api/v1/series/?updated_after=2020-01-01T00:00:00Z",
        ],
        SERIES_PAGES,
    ),
    "/benchmarks/{benchmark}/results.csv": fuller_answer(
        "10 to 20 points",
        "5,000 points (every point of the 500-run benchmark)",
        "nothing: under the ceiling since 0014 (a CSV row is a values_list row)",
    ),
    **dict.fromkeys(
        [
            "/papers/{hub}/graph/",
            "/papers/{hub}/graph.json",
            "/papers/{hub}/graph.graphml",
            "/api/v1/papers/{hub}/graph/",
        ],
        GRAPH,
    ),
    **dict.fromkeys(["/authors/", "/authors/?q=a"], AUTHOR_LIST),
    "/authors/{author}/": (
        "an author with 500 papers at 1M (the demo's busiest has a few): their papers per year "
        "and their co-authors are counted over all of them, a whole-author aggregate (0.09 s "
        "in-process; 0.64 s for the corpus's busiest author, 18,478 papers). Next: store each "
        "author's counts when their papers change"
    ),
    "/research/?q=scaling": (
        '"scaling" matches 56,077 of 100,056 papers at 1M (about 20 at the demo size): a '
        "search sorts by relevance by default, over its newest 1,000 matches; it no longer "
        "reads every match first to count and page them (0020: its SQL 923 to 124 ms "
        "in-process, load 17). Next: re-measure; then a smaller ranked window, once a "
        "relevance test set shows it ranks as well"
    ),
    **dict.fromkeys(
        [
            "/diagnose/tests/?signal={signal}&task_family=math",
            "/diagnose/plan/?signal={signal}&model_size=small&reward_type=verifiable",
            "/diagnose/plan.md?signal={signal}",
            "/diagnose/plan.json?signal={signal}",
        ],
        "the contenders' layers carry 9,182 runs at 1M (a few at the demo size): since 0022 a "
        "window ranks them in SQL and only the first 20 per layer are read (p50 16,010 ms to "
        "340 ms for step 3); the window still counts every run's points to sort them (70 to "
        "120 ms of SQL), and the page's tests and evidence render in Python. Next: keep each "
        "run's point count on the run so the window sorts a column; profile the template",
    ),
    "/api/v1/papers/?group_by=tag": (
        "counts the published papers of every tag over the whole corpus (100,056 papers at 1M, "
        "56 at the demo size), a whole-corpus aggregate the v1 API allows without a filter; "
        "since 0023 without DISTINCT (p50 239 to 144 ms side by side). Next: none while under "
        "the ceiling; over it, a narrowing filter as 1.7.0 and 1.8.0 required for the others"
    ),
    "/api/v1/citations/?cited={hub}&group_by=citing": (
        "groups the hub's 36,682 edges by citing paper (30 at the demo size), a whole-hub "
        "aggregate, which the contract lets grow under the ceiling (p50 204 ms at 89feead). Next: "
        "over it, page the groups by the citing paper's id, as the list itself is paged"
    ),
    **dict.fromkeys(
        [
            "/api/v1/citations/?cited={hub}&group_by=role",
            "/api/v1/citations/?cited={hub}&group_by=polarity",
        ],
        "groups the hub's 36,682 edges by role or polarity into 4 to 5 groups (30 edges, 2 "
        "groups at the demo size), a whole-hub aggregate the contract lets grow under the "
        "ceiling (p50 9 ms at 1M). Next: none while under it",
    ),
    "/api/v1/papers/{hub}/neighbours/": fuller_answer(
        "0.1 KB (the demo hub has no stored neighbours)",
        "11 KB (its stored similar, prior and derivative papers)",
        "none: one stored row read",
    ),
    **dict.fromkeys(
        [
            "/api/v1/papers/{hub}/citations/?provenance=editor",
            "/api/v1/papers/{hub}/citations/?cursor={hub_cursor}",
        ],
        fuller_answer(
            "no rows (0.9 to 1.1 KB: the demo hub has no such edge, and its cursor is past the "
            "last one)",
            "a full page of 20 (16 KB)",
            FULL_PAGE_NEXT,
        ),
    ),
    "/api/v1/papers/?year={year}": fuller_answer(
        "3 papers (5.4 KB)", "a full page of 20 (29 KB)", FULL_PAGE_NEXT
    ),
    "/results/?benchmark={benchmark}": fuller_answer(
        "7.3 KB (the demo benchmark's few points)",
        "32 KB (a full page of its points)",
        FULL_PAGE_NEXT,
    ),
    "/search/feed.atom?q=scaling&kind=papers": fuller_answer(
        "17 entries (10.6 KB)", "30, the feed's limit (16.9 KB)", FULL_PAGE_NEXT
    ),
    "/search/feed.atom?q=scaling&year={year}": fuller_answer(
        "3 entries (2.5 KB)", "30, the feed's limit (16.1 KB)", FULL_PAGE_NEXT
    ),
    "/tags/{tag}/feed.atom": fuller_answer(
        "19 entries (12.1 KB)", "30, the feed's limit (17.0 KB)", FULL_PAGE_NEXT
    ),
    "/search/?q=scaling&year={year}": RANKED_SEARCH,
    "/papers/{hub}/citing.atom": (
        "30 entries at both sizes (14.3 and 15.7 KB) in 2 to 3 queries, and 1.6x against "
        "/healthz: the growth is mostly the machine's. Next: re-measure"
    ),
    "/api/v1/citations/?cited={hub}&group_by=is_representative": (
        "groups the hub's 36,682 edges by a flag (30 at the demo size), a whole-hub aggregate "
        "the contract lets grow under the ceiling. Next: none while under it"
    ),
    **dict.fromkeys(
        [
            "/api/v1/papers/?group_by=in_research_index",
            "/api/v1/papers/?group_by=is_canonical_reference",
        ],
        "counts the 100,056 published papers by a flag (56 at the demo size), a whole-corpus "
        "aggregate under the ceiling. Next: over it, a narrowing filter as 1.7.0 and 1.8.0 "
        "required for the citations' and the points' groupings",
    ),
    # A full page at 1M where the demo has a few rows: the same page size holds more.
    "/results/?layer={layer}": fuller_answer(
        "4 points", "50 (a full page; the layer carries 9,182 runs)", FULL_PAGE_NEXT
    ),
    "/api/v1/results/?layer={layer}": fuller_answer("4 points", "20 (a full page)", FULL_PAGE_NEXT),
    "/api/v1/results/?page_size=100": fuller_answer("16 points", "100", FULL_PAGE_NEXT),
    "/api/v1/results/?cursor={results_cursor}": fuller_answer(
        "1 point (the demo's last page)", "20 (a full page)", FULL_PAGE_NEXT
    ),
    "/api/v1/series/?layer={layer}": fuller_answer("4 runs", "20 (a full page)", FULL_PAGE_NEXT),
    "/api/v1/series/?page_size=100": fuller_answer(
        "14 runs", "100 (192 KB with their fits)", FULL_PAGE_NEXT
    ),
    "/api/v1/benchmarks/?page_size=100": fuller_answer("14 benchmarks", "100", FULL_PAGE_NEXT),
    "/api/v1/citations/?page_size=100": fuller_answer(
        "30 citations (all of them)", "100", FULL_PAGE_NEXT
    ),
    "/benchmarks/{benchmark}/?page=2": (
        "the same page as `/benchmarks/{benchmark}/`: the chart of all 500 runs is drawn on "
        "every page of the table. Next: as that row"
    ),
    "/benchmarks/{benchmark}/": fuller_answer(
        "1 to 3 runs",
        "500 runs and 5,000 points on one chart (since 0023 one marker path per run past "
        "BAND_LIMIT, 10 runs' tables a page: p50 204 to 138 ms side by side, 0.74 MB)",
        "none while under the ceiling; over it, the chart of a page's runs only",
    ),
}
