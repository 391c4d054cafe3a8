"""`make bench`: serve the site with gunicorn and production settings, load each endpoint, and
print requests/s, p50, p99, errors and the ratio to a bare Django view (/healthz).

Loopback only (127.0.0.1), bounded: a fixed duration and connection count per endpoint. Uses wrk
(/usr/bin/wrk) when it is installed, else a small threaded Python load generator. See
bench/RESULTS.md for how to run it and for recorded runs.

    .venv/bin/python bench/bench.py                        # the database in DATABASE_URL
    .venv/bin/python bench/bench.py --compare URL_SMALL URL_LARGE --write --label "final"
"""

import argparse
import contextlib
import datetime
import http.client
import json
import math
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "RESULTS.md"
WRK_SCRIPT = ROOT / "bench" / "wrk_report.lua"
HOST = "127.0.0.1"
PAGE_SIZE = 20  # the research index's page size (citations/views.py INDEX_PAGE_SIZE)

# The targets: share of the /healthz rate, p50 growth from demo to large, worker memory.
MIN_RATIO, MIN_CACHED_RATIO, MAX_GROWTH, MAX_RSS_MB = 0.30, 0.70, 2.0, 200


# -- what to request (run in a subprocess with Django set up against one database) --------------


def pick_targets():
    """Slugs and sizes from the database in DATABASE_URL, printed as JSON."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rlscaling.settings")
    import django

    django.setup()
    from django.db import connection
    from django.db.models import Count

    from citations.models import Citation, Paper
    from notes.models import ResearchNote

    hub = (
        Citation.objects.public()
        .values("cited_paper")
        .annotate(citing=Count("id"))
        .order_by("-citing", "cited_paper")
        .first()
    )
    hub_paper = Paper.objects.get(pk=hub["cited_paper"]) if hub else None
    top_role = hub_paper.citation_summary().top_role if hub_paper else None
    note = ResearchNote.objects.published().order_by("-published_at", "-id").first()
    in_index = Paper.objects.in_research_index().count()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            version = "PostgreSQL " + cursor.fetchone()[0].split()[0]
    else:
        version = f"{connection.vendor} {connection.Database.sqlite_version}"
    targets = {
        "papers": Paper.objects.count(),
        "citations": Citation.objects.count(),
        "in_research_index": in_index,
        "deep_page": max(1, math.ceil(in_index / PAGE_SIZE)),
        "hub_slug": hub_paper.slug if hub_paper else None,
        "hub_citing": hub["citing"] if hub else 0,
        "top_role": top_role["slug"] if top_role else None,
        "note_slug": note.slug if note else None,
        "database": version,
    }
    targets["queries"] = count_queries(targets)
    print(json.dumps(targets))


def count_queries(targets):
    """SQL queries and time of a page-cache miss per endpoint: one anonymous request each
    through Django's test client to warm up, then the generation bumped (as an editor's save
    does) and the same request again, measured."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from rlscaling.caching import bump_generation

    client = Client(raise_request_exception=False)
    counts, misses = {}, {}
    for endpoint, path in endpoints(targets):
        if path is None:
            continue
        client.get(path)
        bump_generation()
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(path)
            elapsed = time.perf_counter() - started
        ok = response.status_code < 400
        counts[endpoint] = len(queries) if ok else None
        misses[endpoint] = elapsed * 1000 if ok else None
    targets["miss_ms"] = misses
    return counts


def endpoints(targets):
    """(name, path) pairs; the names stay the same across databases so runs can be compared."""
    hub, note, role = targets["hub_slug"], targets["note_slug"], targets["top_role"]
    return [
        ("healthz", "/healthz"),
        ("home", "/"),
        ("research index p1", "/research/"),
        ("research index deep", f"/research/?page={targets['deep_page']}"),
        ("note", f"/notes/{note}/" if note else None),
        ("hub", f"/papers/{hub}/" if hub else None),
        ("hub by role", f"/papers/{hub}/?role={role}" if hub and role else None),
        ("API papers", "/api/v1/papers/"),
        ("API hub citations", f"/api/v1/papers/{hub}/citations/" if hub else None),
        ("Atom feed", "/feeds/latest.atom"),
    ]


# -- the server --------------------------------------------------------------------------------


class Server:
    """gunicorn with production settings on 127.0.0.1:port, stopped (whole group) on exit."""

    def __init__(self, database_url, port, workers, static_root, log_path):
        self.port, self.workers, self.log_path = port, workers, log_path
        self.env = server_env(database_url, static_root, port)
        self.process = None

    def __enter__(self):
        if port_in_use(self.port):
            raise SystemExit(f"Port {self.port} is already in use; pass --port.")
        command = [
            str(BIN / "gunicorn"),
            "rlscaling.wsgi:application",
            f"--bind={HOST}:{self.port}",
            f"--workers={self.workers}",
            "--timeout=60",
            "--graceful-timeout=5",
            "--log-level=warning",
            f"--error-logfile={self.log_path}",
        ]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, start_new_session=True, stdout=log, stderr=log
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"gunicorn exited early:\n{tail(self.log_path)}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                if probe(self.port, "/healthz")[0] == 200:
                    return self
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"gunicorn did not answer /healthz within 60 s:\n{tail(self.log_path)}")

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)

    def worker_pids(self):
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                    if int(fields[1]) == self.process.pid:  # parent pid
                        pids.append(int(entry.name))
        return sorted(pids)

    def worker_peak_rss_mb(self):
        """VmHWM (peak resident set size) of each live worker, in MB."""
        peaks = []
        for pid in self.worker_pids():
            with contextlib.suppress(OSError):
                status = Path(f"/proc/{pid}/status").read_text()
                match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
                if match:
                    peaks.append(int(match.group(1)) / 1024)
        return peaks


def cache_prefix():
    return f"bench-{secrets.token_hex(4)}"


def server_env(database_url, static_root, port):
    env = dict(os.environ)
    env.update(
        CACHE_KEY_PREFIX=cache_prefix(),
        DJANGO_ENV="production",
        SECRET_KEY=env.get("BENCH_SECRET_KEY") or secrets.token_urlsafe(50),
        ALLOWED_HOSTS=HOST,
        # Plain HTTP on loopback: no redirect to HTTPS (there is no TLS proxy in front).
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=database_url,
        STATIC_ROOT=str(static_root),
        SITE_URL=f"http://{HOST}:{port}",
        LOG_LEVEL="ERROR",
        # The anonymous API throttle (1000/hour) would turn the load into 429s; the benchmark
        # measures serving cost, so it lifts the rates (the throttle still runs). Per second:
        # DRF keeps every request of the period in the cache, and an hour of load would make
        # that list tens of thousands of entries long, read and written on every request.
        API_THROTTLE_ANON="1000000/second",
        API_THROTTLE_USER="1000000/second",
    )
    env.pop("DEBUG", None)
    return env


def collectstatic(static_root):
    env = server_env(os.environ.get("DATABASE_URL", "sqlite:///:memory:"), static_root, 0)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def port_in_use(port):
    with socket.socket() as sock:
        return sock.connect_ex((HOST, port)) == 0


def probe(port, path, timeout=30):
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        return response.status, len(body)
    finally:
        connection.close()


def tail(path, lines=20):
    with contextlib.suppress(OSError):
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    return ""


# -- load generators ---------------------------------------------------------------------------


def run_wrk(port, path, duration, connections, threads):
    command = [
        shutil.which("wrk"),
        f"-t{min(threads, connections)}",
        f"-c{connections}",
        f"-d{duration}s",
        "--timeout=10s",
        "-s",
        str(WRK_SCRIPT),
        f"http://{HOST}:{port}{path}",
    ]
    output = subprocess.run(
        command, capture_output=True, text=True, timeout=duration + 60, check=True
    ).stdout
    line = next(line for line in output.splitlines() if line.startswith("BENCH_JSON "))
    data = json.loads(line.removeprefix("BENCH_JSON "))
    seconds = data["duration_us"] / 1e6
    return {
        "requests": data["requests"],
        "rps": data["requests"] / seconds if seconds else 0.0,
        "p50_ms": data["p50_us"] / 1000,
        "p99_ms": data["p99_us"] / 1000,
        "errors": sum(data[key] for key in ["connect", "read", "write", "status", "timeout"]),
    }


def run_python(port, path, duration, connections, threads=None):
    """Threads with keep-alive http.client connections; errors are >= 400 and socket errors."""
    deadline = time.monotonic() + duration
    latencies, errors, lock = [], [0], threading.Lock()

    def client():
        mine, failed, connection = [], 0, None
        while time.monotonic() < deadline:
            if connection is None:
                connection = http.client.HTTPConnection(HOST, port, timeout=10)
            started = time.perf_counter()
            try:
                connection.request("GET", path)
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
    workers = [threading.Thread(target=client) for _ in range(connections)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    latencies.sort()

    def percentile(share):
        return latencies[min(len(latencies) - 1, int(share * len(latencies)))] * 1000

    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50_ms": percentile(0.50) if latencies else 0.0,
        "p99_ms": percentile(0.99) if latencies else 0.0,
        "errors": errors[0],
    }


# -- one run against one database -------------------------------------------------------------


def read_targets(database_url):
    # A cache namespace of its own, so no page cached by an earlier run (or for the other
    # database, under the same paths) is served here.
    env = dict(os.environ, DATABASE_URL=database_url, CACHE_KEY_PREFIX=cache_prefix())
    output = subprocess.run(
        [sys.executable, __file__, "--targets"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def bench_database(database_url, options, static_root, log_dir):
    targets = read_targets(database_url)
    name = database_name(database_url)
    print(
        f"\n== {name}: {targets['papers']:,} papers, {targets['citations']:,} citations; "
        f"hub {targets['hub_slug']} ({targets['hub_citing']:,} citing), "
        f"top role {targets['top_role']}, research index page {targets['deep_page']} is deepest",
        flush=True,
    )
    load = run_wrk if options.load == "wrk" else run_python
    log_path = Path(log_dir) / f"gunicorn-{name}.log"
    rows = []
    with Server(database_url, options.port, options.workers, static_root, log_path) as server:
        for endpoint, path in endpoints(targets):
            if options.only and endpoint not in options.only:
                continue
            row = {"endpoint": endpoint, "path": path}
            row["queries"] = targets["queries"].get(endpoint)
            row["miss_ms"] = targets.get("miss_ms", {}).get(endpoint)
            rows.append(row)
            if path is None:
                row["state"] = "no data"
                continue
            status, size = probe(options.port, path)
            if status == 404:
                row["state"] = "missing"
            elif status >= 400:
                row["state"] = f"HTTP {status}"
            else:
                shape = (options.connections, options.threads)
                if options.warmup:
                    load(options.port, path, options.warmup, *shape)
                row |= load(options.port, path, options.duration, *shape)
                row["state"] = "ok"
            print(f"   {format_row(row)}", flush=True)
        peaks = server.worker_peak_rss_mb()
        log = tail(log_path)
    healthz = next((row for row in rows if row["endpoint"] == "healthz"), None)
    for row in rows:
        if row.get("rps") is not None and healthz and healthz.get("rps"):
            row["ratio"] = row["rps"] / healthz["rps"]
    if any(row.get("errors") or row["state"].startswith("HTTP") for row in rows) and log:
        print(f"   gunicorn log ({log_path.name}, last lines):\n{log}")
    return {"name": name, "url": database_url, "targets": targets, "rows": rows, "rss": peaks}


def database_name(url):
    parts = urlsplit(url)
    return Path(parts.path).name if parts.scheme.startswith("sqlite") else parts.path.lstrip("/")


# -- output ------------------------------------------------------------------------------------

COLUMNS = [
    "endpoint", "path", "req/s", "p50 ms", "p99 ms", "requests", "errors", "vs /healthz", "queries",
    "miss ms",
]  # fmt: skip


def cells(row):
    queries = row.get("queries")
    queries = "" if queries is None else str(queries)
    miss = "" if row.get("miss_ms") is None else f"{row['miss_ms']:.0f}"
    if row.get("state") != "ok":
        state = row.get("state", "-")
        return [row["endpoint"], row["path"] or "-", state, "", "", "", "", "", queries, miss]
    ratio = row.get("ratio")
    return [
        row["endpoint"],
        row["path"],
        f"{row['rps']:.1f}" if row["rps"] < 10 else f"{row['rps']:.0f}",
        f"{row['p50_ms']:.1f}",
        f"{row['p99_ms']:.1f}",
        f"{row['requests']}",
        f"{row['errors']}",
        f"{ratio:.2f}" if ratio is not None else "",
        queries,
        miss,
    ]


def format_row(row):
    values = cells(row)
    if row.get("state") != "ok":
        return f"{values[0]:<22} {values[2]}"
    return f"{values[0]:<22} {values[2]:>7} req/s  p50 {values[3]:>7} ms  p99 {values[4]:>7} ms"


def text_table(headers, rows):
    columns = zip(headers, *rows, strict=True)
    widths = [max(len(str(value)) for value in column) for column in columns]

    def line(values):
        return "  ".join(str(value).ljust(size) for value, size in zip(values, widths, strict=True))

    return "\n".join([line(headers), line("-" * width for width in widths), *map(line, rows)])


def markdown_table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def growth_rows(small, large):
    by_name = {row["endpoint"]: row for row in large["rows"]}
    rows = []
    for row in small["rows"]:
        other = by_name.get(row["endpoint"])
        if row.get("state") != "ok" or not other or other.get("state") != "ok":
            state = row.get("state") if row.get("state") != "ok" else (other or {}).get("state")
            rows.append([row["endpoint"], "", "", state or "-", ""])
            continue
        growth = other["p50_ms"] / row["p50_ms"] if row["p50_ms"] else float("inf")
        rows.append(
            [
                row["endpoint"],
                f"{row['p50_ms']:.1f}",
                f"{other['p50_ms']:.1f}",
                f"{growth:.2f}x",
                "(reference)"
                if row["endpoint"] == "healthz"
                else ("yes" if growth <= MAX_GROWTH else "NO"),
            ]
        )
    return rows


GROWTH_COLUMNS = ["endpoint", "p50 small ms", "p50 large ms", "growth", f"<= {MAX_GROWTH:g}x"]


def rss_line(run):
    if not run["rss"]:
        return "worker peak RSS: not available"
    peak = max(run["rss"])
    verdict = "under" if peak < MAX_RSS_MB else "OVER"
    workers = ", ".join(f"{value:.0f}" for value in run["rss"])
    return f"worker peak RSS (VmHWM): {workers} MB; max {peak:.0f} MB ({verdict} {MAX_RSS_MB} MB)"


def machine(runs, options):
    cpu = "unknown"
    with contextlib.suppress(OSError):
        match = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = match.group(1).strip() if match else cpu
    memory = "unknown"
    with contextlib.suppress(OSError):
        match = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
        memory = f"{int(match.group(1)) / 1024 / 1024:.1f} GiB" if match else memory

    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    commit = git("rev-parse", "--short", "HEAD").strip()
    if git("status", "--porcelain", "--untracked-files=no").strip():
        commit += " plus uncommitted changes"
    load = "wrk" if options.load == "wrk" else "Python threads (http.client)"
    return [
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; commit {commit}",
        f"- machine: {len(os.sched_getaffinity(0))} CPUs ({cpu}), {memory} RAM, "
        f"Linux {platform.release()}, Python {platform.python_version()}",
        f"- database: {', '.join(sorted({run['targets']['database'] for run in runs}))}; "
        f"cache: {'Redis (REDIS_URL)' if os.environ.get('REDIS_URL') else 'local memory'}",
        f"- server: gunicorn, {options.workers} sync workers, DJANGO_ENV=production, on "
        f"{HOST}; load: {load}, {options.connections} connections, {options.threads} "
        f"thread(s), {options.duration} s per endpoint after {options.warmup} s warm-up, "
        "on the same machine",
    ]


def report(runs, options):
    sections = []
    for run in runs:
        targets = run["targets"]
        title = (
            f"{run['name']}: {targets['papers']:,} papers, {targets['citations']:,} citations, "
            f"hub {targets['hub_citing']:,} citing papers"
        )
        sections.append((title, COLUMNS, [cells(row) for row in run["rows"]], rss_line(run)))
    if len(runs) == 2:
        sections.append(
            (
                f"p50 growth {runs[0]['name']} -> {runs[1]['name']}",
                GROWTH_COLUMNS,
                growth_rows(*runs),
                "",
            )
        )
    for title, headers, rows, note in sections:
        print(f"\n{title}\n{text_table(headers, rows)}")
        if note:
            print(note)
    if options.write:
        lines = [f"\n## {options.label or 'Run'}, {datetime.date.today():%Y-%m-%d}\n"]
        lines += machine(runs, options)
        for title, headers, rows, note in sections:
            lines += ["", f"### {title}", "", markdown_table(headers, rows)]
            if note:
                lines += ["", note]
        with open(RESULTS, "a") as handle:
            handle.write("\n".join(lines) + "\n")
        print(f"\nAppended to {RESULTS.relative_to(ROOT)}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--database-url", default=os.environ.get("DATABASE_URL", f"sqlite:///{ROOT}/db.sqlite3")
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("SMALL_URL", "LARGE_URL"),
        default=(
            (os.environ["BENCH_SMALL_URL"], os.environ["BENCH_LARGE_URL"])
            if os.environ.get("BENCH_SMALL_URL") and os.environ.get("BENCH_LARGE_URL")
            else None
        ),
        help="Run at two databases and print the p50 growth per endpoint "
        "(or set BENCH_SMALL_URL and BENCH_LARGE_URL).",
    )
    env = os.environ.get
    parser.add_argument("--duration", type=int, default=int(env("BENCH_DURATION", "10")))
    parser.add_argument("--warmup", type=int, default=int(env("BENCH_WARMUP", "2")))
    parser.add_argument("--connections", type=int, default=int(env("BENCH_CONNECTIONS", "8")))
    parser.add_argument(
        "--threads", type=int, default=int(env("BENCH_THREADS", "1")), help="wrk threads"
    )
    parser.add_argument("--workers", type=int, default=int(env("BENCH_WORKERS", "2")))
    parser.add_argument("--port", type=int, default=int(env("BENCH_PORT", "8400")))
    parser.add_argument(
        "--load",
        choices=["wrk", "python"],
        default="wrk" if shutil.which("wrk") else "python",
        help="load generator (default: wrk when installed)",
    )
    parser.add_argument("--only", nargs="*", help="endpoint names to run (default: all)")
    parser.add_argument("--write", action="store_true", help=f"append the tables to {RESULTS}")
    parser.add_argument("--label", default="", help='heading of the written run, e.g. "final"')
    options = parser.parse_args(argv)
    if options.duration < 1 or options.connections < 1 or options.duration > 120:
        parser.error("duration must be 1-120 s and connections at least 1")
    return options


def main(argv=None):
    options = parse_args(argv)
    if options.targets:
        pick_targets()
        return
    urls = list(options.compare) if options.compare else [options.database_url]
    with tempfile.TemporaryDirectory(prefix="rlscaling-bench-") as scratch:
        static_root = Path(scratch) / "static"
        collectstatic(static_root)
        runs = [bench_database(url, options, static_root, scratch) for url in urls]
    report(runs, options)


if __name__ == "__main__":
    main()
