"""`make bench`: every endpoint the site serves (bench/endpoints.py), on gunicorn with production
settings (bench/harness.py), uncached and cached, each interleaved with the /healthz baseline;
at two corpus sizes, the p50 growth of each uncached endpoint.

Per database: the targets (slugs, deep pages, cursors) and the SQL queries of one uncached
request per endpoint, found in a Django subprocess; then a server with the page cache off
(PAGE_CACHE_SECONDS=0: every request renders, as a miss does; nothing is kept below the page
cache, docs/decisions/0004) and one with it on. Each endpoint is loaded in rounds, a /healthz
block right before each endpoint block, so its ratio to /healthz comes from the same moment.
Loopback only (127.0.0.1), bounded: fixed blocks of seconds, a few connections, a request
timeout.

    .venv/bin/python bench/bench.py                        # the database in DATABASE_URL
    .venv/bin/python bench/bench.py --compare SMALL_URL LARGE_URL --write
    .venv/bin/python bench/bench.py --only research papers  # templates containing these words
"""

import argparse
import base64
import datetime
import http.client
import json
import math
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too

from bench.endpoints import ENDPOINTS  # noqa: E402
from bench.growth_reasons import GROWTH_REASONS  # noqa: E402
from bench.harness import (  # noqa: E402
    HOST,
    RESULTS,
    ROOT,
    Server,
    describe_database,
    manage,
    write_results_section,
)

SECTION_START, SECTION_END = "<!-- bench:start -->", "<!-- bench:end -->"
# Every row of the last --compare run (RESULTS.md shows the rows that need reading).
TABLE = RESULTS.with_name("TABLE.md")
MAX_GROWTH = 2.0  # uncached p50 at 100k/1M at most 2x its p50 at demo size
AUTHOR_PAPERS = 500  # the author page the contract names: one with 500 papers
# The performance contract (docs/decisions/0001-performance.md), lines 1, 3 and 4.
MIN_CACHED_SHARE = 0.8  # a cached answer's requests/s over /healthz's, median of pages and API
MAX_MISS_P50, MAX_MISS_P99 = 300.0, 1000.0  # ms, every endpoint uncached at 100k/1M
MAX_WORKER_RSS = 200  # MB
INDEX_PAGE_SIZE = EXPLORER_PAGE_SIZE = 20  # web/papers.py


# -- targets and query counts (run in a Django subprocess against one database) ----------------


def pick_targets():
    """What each placeholder of bench/endpoints.py is in this database (see TARGETS there)."""
    from django.db.models import Count, Q
    from django.db.models.functions import ExtractYear

    from bottlenecks.models import Analysis, Dimension, Layer, LoopStage
    from citations.models import Authorship, Citation, Paper
    from evidence.models import Claim, FailureSignal
    from notes.models import CommunityPost, Question, ResearchNote
    from results.api import ResultViewSet
    from results.models import Benchmark, Result, Series
    from tags.models import Tag
    from web.sitemaps import PaperSitemap

    def first(queryset, *fields):
        row = queryset.values_list(*fields).first()
        return row if row is not None else (None,) * len(fields)

    def most(queryset, field):
        rows = queryset.exclude(**{f"{field}__isnull": True}).values(field)
        return first(rows.annotate(n=Count("pk")).order_by("-n", field), field)[0]

    def cursor(position):
        return base64.b64encode(urlencode({"p": position}).encode()).decode()

    def keyset_cursor(rows, ordering):
        """A keyset cursor (apikit.pagination.KeysetPagination) at the row nine tenths down."""
        rows = rows.order_by(*ordering)
        values = list(first(rows[rows.count() * 9 // 10 :], *ordering))
        data = json.dumps({"o": ordering, "v": values}, default=str, separators=(",", ":"))
        return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")

    public = Citation.objects.public()
    papers = Paper.objects.published()
    arxiv = first(papers.filter(arxiv_id__gt="").order_by("id"), "arxiv_id")[0]
    datacite_doi = f"10.48550/arXiv.{arxiv}" if arxiv else None
    hub = first(
        public.values("cited_paper").annotate(n=Count("id")).order_by("-n", "cited_paper"),
        "cited_paper",
        "n",
    )
    hub_paper = Paper.objects.filter(pk=hub[0]).first()
    into_hub = public.filter(cited_paper=hub_paper)
    index = Paper.objects.in_research_index()
    note = ResearchNote.objects.published().order_by("-published_at", "-id").first()
    post = CommunityPost.objects.published().order_by("order", "id").first()
    question = Question.objects.published().order_by("kind", "order", "id").first()
    newest_first = papers.order_by("-publication_date", "-id")
    citations = public.order_by("-id")
    benchmark = (
        Benchmark.objects.published()
        .annotate(n=Count("series", filter=Q(series__in=Series.objects.public())))
        .order_by("-n", "slug")
        .first()
    )
    # Its first series, then another (of any benchmark when it has only one): compare needs two.
    series = list(
        Series.objects.public()
        .alias(other=~Q(benchmark=benchmark))
        .order_by("other", "slug")
        .values_list("slug", flat=True)[:2]
    )
    targets = {
        "hub": hub_paper.slug if hub_paper else None,
        "benchmark": benchmark.slug if benchmark else None,
        "series": series[0] if series else None,
        "series2": series[-1] if series else None,
        "result": first(
            Result.objects.public()
            .filter(series__slug=series[0] if series else None)
            .order_by("id"),
            "id",
        )[0],
        "arxiv": arxiv,
        "paper": first(
            papers.exclude(pk=hub[0]).filter(citations_made__isnull=False).order_by("id"), "slug"
        )[0],
        "doi": first(papers.filter(doi__gt="").order_by("id"), "doi")[0] or datacite_doi,
        "role": most(into_hub, "role__slug"),
        "polarity": most(into_hub, "polarity__slug"),
        "tag": most(Tag.objects.filter(tagged_papers__content_object__in=papers), "slug"),
        "layer": first(Layer.objects.published().order_by("order", "id"), "slug")[0],
        "signal": first(FailureSignal.objects.published().order_by("order", "id"), "slug")[0],
        "claim": first(Claim.objects.published().by_evidence(), "slug")[0],
        "year": most(
            index.exclude(date_precision="unknown").annotate(year=ExtractYear("publication_date")),
            "year",
        ),
        "note": note.slug if note else None,
        "note_paper": first(
            ResearchNote.objects.published().filter(papers__isnull=False), "papers__slug"
        )[0],
        "post": post.slug if post else None,
        "post_year": post.year if post else None,
        "post_source": post.source if post else None,
        "question": question.pk if question else None,
        "question_kind": question.kind if question else None,
        "citation": first(citations, "id")[0],
        "dimension": first(Dimension.objects.published().order_by("order", "id"), "slug")[0],
        "stage": first(LoopStage.objects.published().order_by("order", "id"), "slug")[0],
        "analysis": first(Analysis.objects.published().order_by("number", "id"), "slug")[0],
        # The author with the most papers up to AUTHOR_PAPERS, the size the contract names for
        # an author page (the corpus's busiest synthetic author has 18,478).
        "author": first(
            Authorship.objects.filter(paper__in=papers)
            .values("author__slug")
            .annotate(n=Count("id"))
            .filter(n__lte=AUTHOR_PAPERS)
            .order_by("-n", "author__slug"),
            "author__slug",
        )[0],
        "index_last_page": max(1, math.ceil(index.count() / INDEX_PAGE_SIZE)),
        "hub_last_page": max(1, math.ceil((hub[1] or 0) / EXPLORER_PAGE_SIZE)),
        "papers_sitemap_last_page": PaperSitemap().paginator.num_pages,
        # Nine tenths down the newest-first lists; a paper without a date sorts as the oldest.
        "papers_cursor": cursor(
            str(
                first(newest_first[papers.count() * 9 // 10 :], "publication_date")[0]
                or "0001-01-01"
            )
        ),
        "cited_cursor": cursor("2"),  # after every paper cited twice or more
        "citations_cursor": cursor(first(citations[citations.count() * 9 // 10 :], "id")[0]),
        # The hub's citing papers newest first (HubCursorPagination): a position is a date.
        "results_cursor": keyset_cursor(Result.objects.public(), ResultViewSet.ordering),
        "hub_cursor": cursor(
            str(
                first(
                    into_hub.order_by("-citing_paper__publication_date", "id")[
                        (hub[1] or 0) * 9 // 10 :
                    ],
                    "citing_paper__publication_date",
                )[0]
                or "0001-01-01"
            )
        ),
    }
    sizes = {
        "papers": Paper.objects.count(),
        "citations": Citation.objects.count(),
        "hub_citing": hub[1] or 0,
    }
    return targets, sizes


def count_queries(paths):
    """SQL queries of an uncached request per path (the server env has the page cache off),
    through Django's test client. A quick request is asked twice and the second counted, so
    per-process first-use lookups (content types, ...) are not; a slow one (over 2 s, at a
    large size) is counted the first time, to keep the run short."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(raise_request_exception=False, HTTP_HOST=HOST)
    counts = {}
    for name, path in paths.items():
        for _ in range(2):
            started = time.monotonic()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(path)
            if time.monotonic() - started > 2:
                break
        counts[name] = {"queries": len(queries), "status": response.status_code}
    return counts


def selected(options):
    """The endpoints to run: all, or those whose template contains one of `--only`'s words."""
    words = options.only or [""]
    return [e for e in ENDPOINTS if any(word in e.template for word in words)]


def targets_main():
    """Targets, sizes and query counts of the endpoints whose templates come on stdin."""
    import django

    django.setup()
    targets, sizes = pick_targets()
    templates = set(json.loads(sys.stdin.read()))
    paths = {
        e.template: e.path(targets)
        for e in ENDPOINTS
        if e.template in templates and e.path(targets) is not None
    }
    print(
        "BENCH " + json.dumps({"targets": targets, "sizes": sizes, "checks": count_queries(paths)})
    )


def read_targets(server, endpoints):
    templates = json.dumps([endpoint.template for endpoint in endpoints])
    script = "from bench.bench import targets_main; targets_main()"
    output = manage(server.env, "shell", "-c", script, stdin=templates)
    line = next(line for line in output.splitlines() if line.startswith("BENCH "))
    return json.loads(line.removeprefix("BENCH "))


# -- load --------------------------------------------------------------------------------------


def load(port, path, seconds, connections):
    """Keep-alive clients on `connections` threads for `seconds` (a request in flight at the
    deadline finishes); latencies in seconds, errors (>= 400 and socket errors), elapsed."""
    deadline = time.monotonic() + seconds
    latencies, errors, lock = [], [0], threading.Lock()

    def client():
        mine, failed, connection = [], 0, None
        while time.monotonic() < deadline:
            if connection is None:
                connection = http.client.HTTPConnection(HOST, port, timeout=30)
            started = time.perf_counter()
            try:
                # The same headers as the probe that stored the page (the API's page-cache key
                # includes Accept).
                connection.request("GET", path, headers={"Accept": "*/*"})
                response = connection.getresponse()
                response.read()
                failed += response.status >= 400
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException):
                failed += 1
                connection.close()
                connection = None
            mine.append(time.perf_counter() - started)
        if connection is not None:
            connection.close()
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0], time.monotonic() - started


def summary(latencies, errors, elapsed):
    ordered = sorted(latencies)

    def percentile(share):
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    return {
        "requests": len(ordered),
        "rps": len(ordered) / elapsed if elapsed else 0.0,
        "p50": percentile(0.50) if ordered else None,
        "p99": percentile(0.99) if ordered else None,
        "errors": errors,
    }


def interleaved(port, path, options, rounds):
    """`rounds` times: /healthz for a short block, then the endpoint; both summarised, and the
    endpoint's requests/s as a share of /healthz's over the same rounds."""
    measured = {"endpoint": ([], 0, 0.0), "healthz": ([], 0, 0.0)}
    for _ in range(rounds):
        for kind, target, seconds in [
            ("healthz", "/healthz", options.baseline),
            ("endpoint", path, options.duration),
        ]:
            latencies, errors, elapsed = load(port, target, seconds, options.connections)
            before = measured[kind]
            measured[kind] = (before[0] + latencies, before[1] + errors, before[2] + elapsed)
    endpoint, healthz = summary(*measured["endpoint"]), summary(*measured["healthz"])
    endpoint["ratio"] = endpoint["rps"] / healthz["rps"] if healthz["rps"] else None
    return endpoint


# -- one database ------------------------------------------------------------------------------


def unapplied_migrations(url):
    """What `migrate --check` says of the database at `url` ("" when it is up to date): a
    database built before a migration answers 500 on every page that reads the new column."""
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--check", "--plan"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": url}, capture_output=True, text=True,
    )  # fmt: skip
    return "" if done.returncode == 0 else (done.stdout + done.stderr).strip()


def bench_database(url, options):
    unapplied = unapplied_migrations(url)
    if unapplied:
        sys.exit(
            f"{url} has unapplied migrations; run `manage.py migrate` on it first:\n{unapplied}"
        )
    redis_url = os.environ.get("REDIS_URL", "")
    uncached = Server(
        url, redis_url=redis_url, workers=options.workers, env={"PAGE_CACHE_SECONDS": "0"}
    )
    name = url.rsplit("/", 1)[-1]
    print(f"\n== {name}: targets and query counts ...", flush=True)
    endpoints = selected(options)
    found = read_targets(uncached, endpoints)
    targets, sizes, checks = found["targets"], found["sizes"], found["checks"]
    print(
        f"== {name}: {sizes['papers']:,} papers, {sizes['citations']:,} citations; hub "
        f"{targets['hub']} ({sizes['hub_citing']:,} citing); load average "
        f"{'/'.join(f'{x:.2f}' for x in os.getloadavg())}",
        flush=True,
    )
    rows = []
    for endpoint in endpoints:
        path = endpoint.path(targets)
        check = checks.get(endpoint.template, {})
        rows.append({"name": endpoint.template, "path": path, **check})
    loads = [os.getloadavg()[0]]
    with uncached:
        for row in rows:
            status = uncached.get(row["path"], timeout=60).status if row["path"] else None
            row["state"] = "no such row" if status is None else ("ok" if status < 400 else status)
            if row["state"] == "ok":
                row["uncached"] = interleaved(uncached.port, row["path"], options, options.rounds)
            print(f"   {progress(row, 'uncached')}", flush=True)
        rss = uncached.worker_peak_rss_mb()
    loads.append(os.getloadavg()[0])
    with Server(url, redis_url=redis_url, workers=options.workers) as cached:
        for row in rows:
            if row["state"] == "ok":
                cached.get(row["path"], timeout=60)  # stores it
                row["cached"] = interleaved(cached.port, row["path"], options, 1)
                print(f"   {progress(row, 'cached')}", flush=True)
    loads.append(os.getloadavg()[0])
    return {
        "name": name,
        "database": describe_database(url),
        "sizes": sizes,
        "targets": targets,
        "rows": rows,
        "rss": rss,
        "loads": loads,
        "cache": "Redis (REDIS_URL)" if redis_url else "local memory",
    }


def progress(row, kind):
    figures = row.get(kind)
    if not figures:
        return f"{row['name']:<60} {row['state']}"
    return (
        f"{row['name']:<60} {kind:>8} p50 {ms(figures['p50']):>7} ms  p99 "
        f"{ms(figures['p99']):>7} ms  {ratio(figures['ratio']):>5} of /healthz  "
        f"{row.get('queries', '?')} queries"
    )


# -- output ------------------------------------------------------------------------------------


def ms(value):
    return "" if value is None else (f"{value:.1f}" if value < 100 else f"{value:,.0f}")


def ratio(value):
    return "" if value is None else f"{value:.2f}"


def figure(row, kind, key):
    return (row.get(kind) or {}).get(key)


def state(row):
    return "" if row["state"] == "ok" else str(row["state"])


def single_table(run):
    headers = [
        "endpoint", "p50 ms", "p99 ms", "req/s", "requests", "vs /healthz", "queries",
        "cached p50 ms", "cached vs /healthz", "note",
    ]  # fmt: skip
    lines = []
    for row in run["rows"]:
        lines.append(
            [
                f"`{row['name']}`",
                ms(figure(row, "uncached", "p50")),
                ms(figure(row, "uncached", "p99")),
                ms(figure(row, "uncached", "rps")),
                figure(row, "uncached", "requests") or "",
                ratio(figure(row, "uncached", "ratio")),
                row.get("queries", ""),
                ms(figure(row, "cached", "p50")),
                ratio(figure(row, "cached", "ratio")),
                note(row, ""),
            ]
        )
    return headers, lines


def growth_table(small, large):
    headers = [
        "endpoint", "p50 demo", "p50 large", "growth", f"<= {MAX_GROWTH:g}x",
        "growth vs /healthz", "p99 demo",
        "p99 large", "vs /healthz demo", "vs /healthz large", "queries demo", "queries large",
        "cached p50 demo", "cached p50 large", "cached vs /healthz large", "requests demo",
        "requests large", "note",
    ]  # fmt: skip
    by_name = {row["name"]: row for row in large["rows"]}
    lines = []
    for row in small["rows"]:
        other = by_name.get(row["name"], {"state": "not run"})
        before, after = figure(row, "uncached", "p50"), figure(other, "uncached", "p50")
        shares = figure(row, "uncached", "ratio"), figure(other, "uncached", "ratio")
        relative = f"{shares[0] / shares[1]:.1f}x" if all(shares) else ""
        reason = ""
        if before and after:
            growth = after / before
            verdict = "yes" if growth <= MAX_GROWTH else "**NO**"
            if growth > MAX_GROWTH:
                reason = GROWTH_REASONS.get(row["name"], "reason not yet found")
            growth_cell = f"{growth:.1f}x" if growth <= MAX_GROWTH else f"**{growth:.1f}x**"
            if timed_out(other):  # p50 is the client's timeout: the growth is at least this
                growth_cell = f"**>= {growth:.0f}x**"
        else:
            growth_cell, verdict = "", state(row) or state(other)
        lines.append(
            [
                f"`{row['name']}`",
                ms(before),
                ms(after),
                growth_cell,
                verdict,
                relative,
                ms(figure(row, "uncached", "p99")),
                ms(figure(other, "uncached", "p99")),
                ratio(figure(row, "uncached", "ratio")),
                ratio(figure(other, "uncached", "ratio")),
                row.get("queries", ""),
                other.get("queries", ""),
                ms(figure(row, "cached", "p50")),
                ms(figure(other, "cached", "p50")),
                ratio(figure(other, "cached", "ratio")),
                figure(row, "uncached", "requests") or "",
                figure(other, "uncached", "requests") or "",
                "; ".join(filter(None, [note(row, "demo"), note(other, "large"), reason])),
            ]
        )
    return headers, lines


def timed_out(row):
    errors, requests = figure(row, "uncached", "errors"), figure(row, "uncached", "requests")
    return bool(errors and requests and errors * 2 >= requests)


def note(row, size):
    """Why a figure is missing or not what it seems: a refused probe, failed requests."""
    if row["state"] != "ok":
        return f"{size}: {row['state']}" if size else str(row["state"])
    if row.get("note"):
        return f"{size}: {row['note']}" if size else row["note"]
    failed = [
        f"{figure(row, kind, 'errors')} of {figure(row, kind, 'requests')} {kind} requests "
        "failed (>= 400, or no answer within the client's 30 s)"
        for kind in ("uncached", "cached")
        if figure(row, kind, "errors")
    ]
    return f"{size}: {', '.join(failed)}" if failed and size else ", ".join(failed)


def median(values):
    ordered = sorted(values)
    if not ordered:
        return None
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def is_probe(row):
    return row["name"] in {"/healthz", "/readyz"}


def contract(run):
    """The contract's lines 1, 3 and 4 read off one run: each line's figure, whether it is
    met, and the rows that miss it."""
    rows = [row for row in run["rows"] if row["state"] == "ok" and not is_probe(row)]
    shares = {
        kind: median(
            figure(row, "cached", "ratio")
            for row in rows
            if row["name"].startswith("/api/") == (kind == "API")
            and figure(row, "cached", "ratio") is not None
        )
        for kind in ("pages", "API")
    }
    slow = [
        row
        for row in rows
        if (figure(row, "uncached", "p50") or 0) > MAX_MISS_P50
        or (figure(row, "uncached", "p99") or 0) > MAX_MISS_P99
        or timed_out(row)
    ]
    rss = max(run["rss"], default=None)
    return {
        "shares": shares,
        "cached_met": all(
            share is not None and share >= MIN_CACHED_SHARE for share in shares.values()
        ),
        "measured": len(rows),
        "slow": slow,
        "rss": rss,
        "rss_met": rss is not None and rss < MAX_WORKER_RSS,
    }


def contract_lines(runs):
    def met(flag):
        return "met" if flag else "**not met**"

    headers = ["contract line", *(run["name"] for run in runs)]
    verdicts = [contract(run) for run in runs]
    table = [
        [
            f"1. cached, median share of `/healthz` (pages / API, >= {MIN_CACHED_SHARE:g})",
            *(
                " / ".join(ratio(v["shares"][kind]) for kind in ("pages", "API"))
                + f": {met(v['cached_met'])}"
                for v in verdicts
            ),
        ],
        [
            f"3. uncached p50 <= {MAX_MISS_P50:g} ms and p99 <= {MAX_MISS_P99:g} ms",
            *(
                f"{v['measured'] - len(v['slow'])} of {v['measured']} rows: {met(not v['slow'])}"
                for v in verdicts
            ),
        ],
        [
            f"4. worker peak RSS < {MAX_WORKER_RSS} MB",
            *(
                f"{v['rss']:.0f} MB: {met(v['rss_met'])}" if v["rss"] else "not read"
                for v in verdicts
            ),
        ],
    ]
    lines = ["", "Contract ([0001](../docs/decisions/0001-performance.md)):", ""]
    lines.append(markdown_table(headers, table))
    for run, verdict in zip(runs, verdicts, strict=True):
        for row in verdict["slow"]:
            lines.append(
                f"- over the ceiling at {run['name']}: `{row['name']}` p50 "
                f"{ms(figure(row, 'uncached', 'p50'))} ms, p99 "
                f"{ms(figure(row, 'uncached', 'p99'))} ms; "
                f"{GROWTH_REASONS.get(row['name'], 'reason not yet found')}"
            )
    return lines


def markdown_table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def describe(run):
    sizes, targets = run["sizes"], run["targets"]
    rss = ", ".join(f"{value:.0f}" for value in run["rss"]) or "not available"
    loads = " / ".join(f"{value:.2f}" for value in run["loads"])
    return (
        f"**{run['name']}**: {sizes['papers']:,} papers, {sizes['citations']:,} citations; hub "
        f"`{targets['hub']}` with {sizes['hub_citing']:,} public citing papers; 1-minute load "
        f"average {loads} (before the uncached pass / before the cached pass / after); worker "
        f"peak RSS (VmHWM) after the uncached pass {rss} MB."
    )


def current_commit():
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def report(runs, options, command, commit=None):
    commit = commit or current_commit()  # a saved run's own commit, else the code measured now
    lines = [
        SECTION_START,
        f"## Every endpoint, {datetime.date.today():%Y-%m-%d} (commit {commit})",
        "",
        f"Reproduce: `{command}`",
        "",
        f"- machine: {len(os.sched_getaffinity(0))} CPUs shared with other work, Linux "
        f"{platform.release()}, Python {platform.python_version()}; "
        f"{', '.join(sorted({run['database'] for run in runs}))}; cache: {runs[0]['cache']}",
        f"- server: gunicorn, {options.workers} sync workers, DJANGO_ENV=production, on {HOST}; "
        f"load: Python threads, {options.connections} keep-alive connections; per endpoint "
        f"{options.rounds} rounds of {options.baseline:g} s `/healthz` then {options.duration:g} s "
        f"the endpoint uncached (PAGE_CACHE_SECONDS=0; nothing is kept below the page cache, "
        "so this is a miss in production), then 1 round cached (Redis/local "
        "memory page cache, stored by one request first)",
        "- p50/p99 in ms; `vs /healthz` = the endpoint's requests/s over `/healthz`'s in the same "
        "rounds; `queries` = SQL queries of one uncached request (Django test client, second "
        "request, or the first when it took over 2 s); growth = uncached p50 at the large size "
        f"over the demo size, rows over {MAX_GROWTH:g}x in bold and marked **NO**; growth vs "
        "/healthz = the drop of the endpoint's share of `/healthz` requests/s from the demo to the "
        "large size (both shares measured in the same moments as the endpoint, so a busier "
        "machine during one of the two runs cancels out): where it stays under "
        f"{MAX_GROWTH:g}x while the raw growth is over, the growth is probably the machine's",
        "",
    ]
    lines += [f"- {describe(run)}" for run in runs]
    lines += contract_lines(runs)
    if len(runs) == 2:
        headers, rows = growth_table(*runs)
        over = [row for row in rows if row[4] == "**NO**"]
        both = [row[0] for row in over if not row[5] or float(row[5][:-1]) > MAX_GROWTH]
        raw_only = [row[0] for row in over if row[0] not in both]
        slow = {f"`{row['name']}`" for run in runs for row in contract(run)["slow"]}
        shown = [row for row in rows if row[4] == "**NO**" or row[0] in slow]
        lines += [
            "",
            f"{len(over)} of {len(rows)} endpoints grow more than {MAX_GROWTH:g}x. Also over "
            f"{MAX_GROWTH:g}x against `/healthz` ({len(both)}): " + ", ".join(both) + ".",
            "",
            f"Over {MAX_GROWTH:g}x only in raw p50 ({len(raw_only)}; re-measure on a quieter "
            "machine before working on them): " + ", ".join(raw_only) + ".",
            "",
            f"The {len(shown)} rows over the ceiling or over {MAX_GROWTH:g}x; every row is in "
            f"[{TABLE.name}]({TABLE.name}).",
            "",
            markdown_table(headers, shown),
        ]
        summary = f"The whole run; the summary is in [{RESULTS.name}]({RESULTS.name})."
        table = ["# " + lines[1].lstrip("# "), "", summary, "", markdown_table(headers, rows)]
    else:
        for run in runs:
            lines += ["", f"### {run['name']}", "", markdown_table(*single_table(run))]
    lines.append(SECTION_END)
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if options.write:
        write_results_section(SECTION_START, SECTION_END, text)
        print(f"Written to {RESULTS.relative_to(ROOT)}")
        if len(runs) == 2:
            TABLE.write_text("\n".join(table) + "\n")
            print(f"Written to {TABLE.relative_to(ROOT)}")


def parse_args(argv=None):
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url", default=env("DATABASE_URL", f"sqlite:///{ROOT}/db.sqlite3")
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("SMALL_URL", "LARGE_URL"),
        help="run at two databases and print the p50 growth per endpoint",
    )
    parser.add_argument("--duration", type=float, default=float(env("BENCH_DURATION", "1")))
    parser.add_argument("--baseline", type=float, default=float(env("BENCH_BASELINE", "0.5")))
    parser.add_argument("--rounds", type=int, default=int(env("BENCH_ROUNDS", "2")))
    parser.add_argument("--connections", type=int, default=int(env("BENCH_CONNECTIONS", "2")))
    parser.add_argument("--workers", type=int, default=int(env("BENCH_WORKERS", "2")))
    parser.add_argument("--only", nargs="*", help="only endpoints whose template has a word")
    parser.add_argument("--write", action="store_true", help=f"record the run in {RESULTS}")
    parser.add_argument("--save", type=Path, help="also keep the measurements as JSON there")
    parser.add_argument("--load", type=Path, help="report saved measurements; measure nothing")
    options = parser.parse_args(argv)
    if not (0 < options.duration <= 30 and 0 < options.baseline <= 10):
        parser.error("--duration is 0-30 s, --baseline 0-10 s")
    if not (1 <= options.rounds <= 10 and 1 <= options.connections <= 32):
        parser.error("--rounds is 1-10, --connections 1-32")
    return options


def main(argv=None):
    options = parse_args(argv)
    if options.load:
        saved = json.loads(options.load.read_text())
        report(
            saved["runs"],
            argparse.Namespace(**saved["options"], write=options.write),
            saved["command"],
            saved.get("commit"),  # saved before the commit was kept: the current one
        )
        return
    urls = list(options.compare) if options.compare else [options.database_url]
    runs = [bench_database(url, options) for url in urls]
    words = list(sys.argv[1:] if argv is None else argv)
    if "--save" in words:  # where the JSON went is no part of how to reproduce the run
        del words[words.index("--save") : words.index("--save") + 2]
    command = "make bench BENCH_ARGS='" + " ".join(words) + "'"
    if os.environ.get("REDIS_URL"):
        command = f"REDIS_URL={os.environ['REDIS_URL']} {command}"
    if options.save:
        kept = {key: getattr(options, key) for key in ("workers", "connections", "rounds")}
        kept |= {"duration": options.duration, "baseline": options.baseline}
        saved = {"runs": runs, "options": kept, "command": command, "commit": current_commit()}
        options.save.write_text(json.dumps(saved))
    report(runs, options, command)


if __name__ == "__main__":
    main()
