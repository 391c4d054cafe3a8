"""`make soak`: a bounded soak of the whole stack, then two checks: no 5xx, no lost writes.

Serves the site with gunicorn and production settings on a free 127.0.0.1 port (bench/harness.py),
over a scratch PostgreSQL database (created, loaded with the demo content, dropped at the end)
and Redis when they answer on loopback, and drives it for 60 s with 20 concurrent clients:
mostly public pages and API reads, plus a few editors writing through the API with tokens
(creating draft notes, and two editors editing the same notes with the version they last saw,
so some writes are refused as stale). Afterwards every acknowledged write must be in the
database: each created note exists, and each acknowledged edit is in the note's history with
the version the API answered (and the row itself is at the newest acknowledged version).

    .venv/bin/python bench/soak.py                       # 60 s, 20 clients
    .venv/bin/python bench/soak.py --duration 10 --clients 5
    .venv/bin/python bench/soak.py --write               # also record the run in RESULTS.md

Exit status 0 only if there were no 5xx responses, no socket errors, no draft leaks and no
lost writes.
"""

import argparse
import collections
import contextlib
import datetime
import http.client
import json
import os
import platform
import random
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too

from bench.harness import (  # noqa: E402
    RESULTS,
    ROOT,
    Server,
    answers,
    describe_database,
    editor_token,
    request,
    scratch_database,
    write_results_section,
)

REDIS = "redis://127.0.0.1:6379/15"
SECTION_START, SECTION_END = "<!-- soak:start -->", "<!-- soak:end -->"


# -- setting up -------------------------------------------------------------------------------

TARGETS_SCRIPT = r"""
import json
from citations.models import Paper
from notes.models import ResearchNote
from bottlenecks.models import Layer
from publishing.models import Status

contested = []
for n in range(3):
    note = ResearchNote.objects.create(
        title=f"Soak contested note {n}", slug=f"soak-contested-{n}", dek="Edited by two editors.",
        status=Status.DRAFT,
    )
    contested.append(note.slug)
hubs = list(Paper.objects.published().filter(citations_received__isnull=False)
            .values_list("slug", flat=True).distinct()[:5])
print("SOAK " + json.dumps({
    "contested": contested,
    "papers": list(Paper.objects.in_research_index().values_list("slug", flat=True)[:30]),
    "hubs": hubs,
    "notes": list(ResearchNote.objects.published().values_list("slug", flat=True)),
    "layers": list(Layer.objects.published().values_list("slug", flat=True)),
    "tags": sorted({t.slug for p in Paper.objects.in_research_index() for t in p.tags.all()}),
}))
"""


def prepare(server):
    """Schema, demo content, two editors with tokens, three contested draft notes; returns
    what to request."""
    server.manage("migrate", "--noinput", "-v0")
    server.manage("load_demo")
    output = server.manage("shell", "-c", TARGETS_SCRIPT, timeout=120)
    line = next(x for x in output.splitlines() if x.startswith("SOAK "))
    targets = json.loads(line.removeprefix("SOAK "))
    targets["tokens"] = [editor_token(server.env, f"soak-editor-{n}") for n in range(2)]
    return targets


# -- the load ---------------------------------------------------------------------------------


class Recorder:
    """Thread-safe counts, latencies and the log of acknowledged writes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = collections.defaultdict(list)
        self.statuses = collections.Counter()
        self.server_errors = []
        self.socket_errors = []
        self.draft_leaks = []
        self.created = {}  # slug -> title, for every 201
        self.edits = []  # (slug, version, caveat) for every 200 on an edit
        self.stale = 0  # 409s: an edit refused because another editor saved first

    def record(self, kind, status, seconds, path):
        with self.lock:
            self.latencies[kind].append(seconds)
            self.statuses[status] += 1
            if status >= 500:
                self.server_errors.append((status, path))


def reader(port, targets, deadline, recorder, rng):
    papers, hubs, notes = targets["papers"], targets["hubs"], targets["notes"]
    layers, tags = targets["layers"], targets["tags"] or ["rl"]
    pages = [
        lambda: "/",
        lambda: "/research/",
        lambda: "/research/?" + urlencode({"q": rng.choice(["scaling", "reward", "rollout"])}),
        lambda: f"/research/?tag={rng.choice(tags)}&page={rng.randint(1, 2)}",
        lambda: f"/papers/{rng.choice(papers)}/",
        lambda: f"/papers/{rng.choice(hubs)}/?page={rng.randint(1, 2)}",
        lambda: f"/notes/{rng.choice(notes)}/",
        lambda: "/bottlenecks/",
        lambda: f"/bottlenecks/{rng.choice(layers)}/",
        lambda: f"/tags/{rng.choice(tags)}/",
        lambda: "/feeds/latest.atom",
        lambda: "/sitemap.xml",
    ]
    api = [
        lambda: "/api/v1/papers/",
        lambda: f"/api/v1/papers/{rng.choice(papers)}/",
        lambda: f"/api/v1/papers/{rng.choice(hubs)}/citations/",
        lambda: "/api/v1/papers/?" + urlencode({"search": rng.choice(["scaling", "policy"])}),
        lambda: "/api/v1/notes/",
        lambda: "/api/v1/citations/",
        lambda: "/api/v1/layers/",
        lambda: "/api/v1/tags/",
    ]
    while time.monotonic() < deadline:
        kind = "page" if rng.random() < 0.6 else "api"
        path = rng.choice(pages if kind == "page" else api)()
        headers = {}
        if rng.random() < HOSTILE_SHARE:
            path, headers = hostile(path, rng)
            if "Host" in headers:
                kind = "hostile host"  # answered 400, counted apart
        started = time.perf_counter()
        try:
            status = request(port, "GET", path, headers=headers).status
        except (OSError, http.client.HTTPException) as error:
            with recorder.lock:
                recorder.socket_errors.append((path, repr(error)))
            continue
        recorder.record(kind, status, time.perf_counter() - started, path)
        if status >= 400 and status != 404 and kind != "hostile host":
            with recorder.lock:
                recorder.statuses[f"{status} {path}"] += 1


# Of the readers' requests, the share made hostile: an invented query parameter (a new
# page-cache key each time unless the cache ignores it), an invented X-Forwarded-For, or a
# Host outside ALLOWED_HOSTS (must answer 400 and never reach the cache).
HOSTILE_SHARE = 0.3


def hostile(path, rng):
    token = f"{rng.getrandbits(64):016x}"
    choice = rng.random()
    joiner = "&" if "?" in path else "?"
    if choice < 0.6:
        return f"{path}{joiner}utm_source={token}", {}
    if choice < 0.9:
        return path, {"X-Forwarded-For": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.1"}
    return path, {"Host": f"{token}.example:6666"}


def redis_memory(redis_url):
    """Keys in the soak's Redis database and the server's used memory, or None without Redis."""
    if not redis_url:
        return None
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=2)
    return {"keys": client.dbsize(), "used_memory": client.info("memory")["used_memory"]}


def writer(port, number, token, targets, deadline, recorder, rng, pause):
    """Creates draft notes, and edits the contested notes with the version it last saw."""
    headers = {"Authorization": f"Token {token}"}
    versions = {}  # slug -> the version this editor last saw
    count = 0
    while time.monotonic() < deadline:
        count += 1
        try:
            if count % 3 == 1:
                create_note(port, headers, f"soak-{number}-{count}", recorder)
            else:
                slug = rng.choice(targets["contested"])
                edit_note(port, headers, slug, f"soak edit {number}.{count}", versions, recorder)
        except (OSError, http.client.HTTPException) as error:
            with recorder.lock:
                recorder.socket_errors.append((f"editor {number}", repr(error)))
        time.sleep(pause)


def create_note(port, headers, slug, recorder):
    body = {"title": f"Soak note {slug}", "slug": slug, "summary": "Draft."}
    started = time.perf_counter()
    status = request(port, "POST", "/api/v1/notes/", body, headers).status
    recorder.record("write", status, time.perf_counter() - started, "POST /api/v1/notes/")
    if status != 201:
        return
    with recorder.lock:
        recorder.created[slug] = body["title"]
    # A draft: the public must not see it, on the site or in the API.
    page_status = request(port, "GET", f"/notes/{slug}/").status
    api_status = request(port, "GET", f"/api/v1/notes/{slug}/").status
    if page_status != 404 or api_status != 404:
        with recorder.lock:
            recorder.draft_leaks.append((slug, page_status, api_status))


def edit_note(port, headers, slug, caveat, versions, recorder):
    path = f"/api/v1/notes/{slug}/"
    if slug not in versions:
        status, _, content = request(port, "GET", path, headers=headers)
        versions[slug] = json.loads(content)["version"]
    started = time.perf_counter()
    status, _, content = request(
        port, "PATCH", path, {"caveat": caveat, "version": versions[slug]}, headers
    )
    recorder.record("write", status, time.perf_counter() - started, f"PATCH {path}")
    if status == 200:
        versions[slug] = json.loads(content)["version"]
        with recorder.lock:
            recorder.edits.append((slug, versions[slug], caveat))
    elif status == 409:
        with recorder.lock:
            recorder.stale += 1
        del versions[slug]  # fetch the current version next time, as a client should


def verify(server, recorder):
    """Every acknowledged write is in the database (run in a Django subprocess)."""
    script = r"""
import json, sys
from notes.models import ResearchNote
claims = json.loads(sys.stdin.read())
problems = []
stored = dict(ResearchNote.objects.filter(slug__in=claims["created"]).values_list("slug", "title"))
for slug, title in claims["created"].items():
    if stored.get(slug) != title:
        problems.append(f"created note {slug} is missing or changed: {stored.get(slug)!r}")
newest = {}
for slug, version, caveat in claims["edits"]:
    note = ResearchNote.objects.get(slug=slug)
    if not note.history.filter(version=version, caveat=caveat).exists():
        problems.append(f"acknowledged edit {caveat!r} (v{version}) of {slug} is not in history")
    newest[slug] = max(newest.get(slug, (0, "")), (version, caveat))
for slug, (version, caveat) in newest.items():
    note = ResearchNote.objects.get(slug=slug)
    if note.version < version or (note.version == version and note.caveat != caveat):
        problems.append(f"{slug} is at version {note.version} {note.caveat!r}, "
                        f"but version {version} {caveat!r} was acknowledged")
print("VERIFY " + json.dumps(problems))
"""
    claims = {"created": recorder.created, "edits": recorder.edits}
    output = server.manage("shell", "-c", script, stdin=json.dumps(claims), timeout=300)
    line = next(x for x in output.splitlines() if x.startswith("VERIFY "))
    return json.loads(line.removeprefix("VERIFY "))


# -- reporting --------------------------------------------------------------------------------


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 if ordered else 0.0


def summarise(recorder, args, elapsed, database, cache, lost, load_before):
    rows = []
    for kind in ["page", "api", "write"]:
        values = recorder.latencies[kind]
        rows.append(
            (
                kind,
                len(values),
                len(values) / elapsed,
                *(percentile(values, p) for p in (0.5, 0.99)),
            )
        )
    total = sum(row[1] for row in rows)
    by_class = collections.Counter()
    for status, count in recorder.statuses.items():
        if isinstance(status, int):
            by_class[f"{status // 100}xx"] += count
    return {
        "date": datetime.date.today().isoformat(),
        "duration": args.duration,
        "elapsed": elapsed,
        "clients": args.clients,
        "writers": args.writers,
        "workers": args.workers,
        "database": database,
        "cache": cache,
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        ),
        "load": load_before,
        "rows": rows,
        "total": total,
        "rps": total / elapsed,
        "classes": dict(sorted(by_class.items())),
        "statuses": {
            str(k): v for k, v in sorted(recorder.statuses.items(), key=lambda item: str(item[0]))
        },
        "server_errors": len(recorder.server_errors),
        "socket_errors": len(recorder.socket_errors),
        "draft_leaks": len(recorder.draft_leaks),
        "created": len(recorder.created),
        "edits": len(recorder.edits),
        "stale": recorder.stale,
        "lost": lost,
    }


def markdown(summary):
    lines = [
        SECTION_START,
        "## Soak",
        "",
        "`make soak` (bench/soak.py): gunicorn with production settings on 127.0.0.1, a scratch "
        "database with the demo content, "
        f"{summary['clients']} concurrent clients for {summary['duration']} s: 60% public pages, "
        f"40% API reads, and {summary['writers']} of the clients editors writing through the API "
        "with tokens (new draft notes, checked to stay hidden from the public, and edits of "
        "shared notes carrying the version they last saw). Pass: no 5xx, no socket errors, no "
        "draft visible, every acknowledged write in the database afterwards.",
        "",
        f"Last run: {summary['date']}, {summary['machine']}; {summary['database']}, "
        f"cache {summary['cache']}, {summary['workers']} gunicorn sync workers; the load "
        "generator (Python threads) shares the machine, whose 1-minute load average was "
        f"{summary['load']:.1f} before the run (other work on it slows every figure).",
        "",
        "| traffic | requests | req/s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, count, rate, p50, p99 in summary["rows"]:
        label = {"page": "public pages", "api": "API reads", "write": "editor writes"}[kind]
        lines.append(f"| {label} | {count} | {rate:.1f} | {p50:.0f} | {p99:.0f} |")
    lines.append(
        f"| **all** | **{summary['total']}** | **{summary['rps']:.1f}** | | |",
    )
    classes = ", ".join(f"{name}: {count}" for name, count in summary["classes"].items())
    codes = ", ".join(
        f"{code}: {count}" for code, count in summary["statuses"].items() if code.isdigit()
    )
    verdict = "PASS" if passed(summary) else "FAIL"
    lines += [
        "",
        f"Responses by class: {classes} ({codes}; the 404s are readers asking for page "
        "numbers past the last, the 409s refused stale edits). "
        f"5xx: **{summary['server_errors']}**; socket errors: "
        f"{summary['socket_errors']}; drafts seen by the public: {summary['draft_leaks']}.",
        f"Writes: {summary['created']} notes created and {summary['edits']} edits acknowledged; "
        f"{summary['stale']} edits refused as stale (409, another editor had saved first); "
        f"acknowledged writes missing afterwards: **{len(summary['lost'])}**. **{verdict}**.",
        SECTION_END,
    ]
    return "\n".join(lines) + "\n"


def passed(summary):
    return not (
        summary["server_errors"]
        or summary["socket_errors"]
        or summary["draft_leaks"]
        or summary["lost"]
    )


# -- main -------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=float(os.environ.get("SOAK_SECONDS", 60)))
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients in all")
    parser.add_argument("--writers", type=int, default=2, help="of the clients, editors")
    parser.add_argument(
        "--write-pause", type=float, default=0.5, help="s between an editor's writes"
    )
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--database-url", default=os.environ.get("SOAK_DATABASE_URL"))
    parser.add_argument("--write", action="store_true", help="record the run in RESULTS.md")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.duration = min(args.duration, 600)  # bounded, whatever is asked

    load_before = os.getloadavg()[0]
    redis_url = os.environ.get("REDIS_URL") or (REDIS if answers("127.0.0.1", 6379) else "")
    with contextlib.ExitStack() as stack:
        database_url = args.database_url or stack.enter_context(scratch_database("rlscaling_soak"))
        server = Server(
            database_url,
            redis_url=redis_url,
            workers=args.workers,
            timeout=30,
            ready_path="/readyz",
        )
        print(f"Preparing {database_url.rsplit('@', 1)[-1]} ...", flush=True)
        targets = prepare(server)
        database = describe_database(database_url)
        cache = "Redis" if redis_url else "local memory"
        if redis_url:
            import redis

            redis.Redis.from_url(redis_url).flushdb()  # the soak's own database (15)
        memory_before = redis_memory(redis_url)
        with server:
            print(
                f"Soaking {server.base_url} for {args.duration:.0f} s with "
                f"{args.clients} clients ({args.writers} editors) ...",
                flush=True,
            )
            recorder, elapsed = soak(server.port, targets, args)
            log_tail = server.log_tail()
        memory_after = redis_memory(redis_url)
        lost = verify(server, recorder)
    summary = summarise(recorder, args, elapsed, database, cache, lost, load_before)
    report(summary, recorder, log_tail)
    if memory_before is not None:
        print(
            f"Redis: {memory_before['keys']} keys before, {memory_after['keys']} after; "
            f"server used_memory {memory_before['used_memory'] / 1e6:.1f} MB before, "
            f"{memory_after['used_memory'] / 1e6:.1f} MB after (shared server: other users too)"
        )
    if args.write:
        write_results_section(SECTION_START, SECTION_END, markdown(summary))
        print(f"Recorded in {RESULTS.relative_to(ROOT)}")
    return 0 if passed(summary) else 1


def soak(port, targets, args):
    """The readers and the editors, all at once until the deadline."""
    recorder = Recorder()
    started = time.monotonic()
    deadline = started + args.duration
    writers = [
        (writer, (port, n, targets["tokens"][n % 2], targets, deadline, recorder,
                  random.Random(args.seed * 100 + n), args.write_pause))
        for n in range(args.writers)
    ]  # fmt: skip
    readers = [
        (reader, (port, targets, deadline, recorder, random.Random(args.seed * 1000 + n)))
        for n in range(args.clients - args.writers)
    ]
    threads = [threading.Thread(target=target, args=a) for target, a in writers + readers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return recorder, time.monotonic() - started


def report(summary, recorder, log_tail):
    print(markdown(summary).replace(SECTION_START + "\n", "").replace(SECTION_END + "\n", ""))
    refused = [(k, v) for k, v in recorder.statuses.items() if isinstance(k, str)]
    for key, count in sorted(refused, key=lambda item: -item[1])[:10]:
        print(f"  {count} x {key}")
    for status, path in recorder.server_errors[:10]:
        print(f"  5xx: {status} {path}")
    for path, error in recorder.socket_errors[:10]:
        print(f"  socket error: {path}: {error}")
    for leak in recorder.draft_leaks[:10]:
        print(f"  draft visible: {leak}")
    for problem in summary["lost"][:10]:
        print(f"  lost: {problem}")
    if not passed(summary) and log_tail:
        print("gunicorn log (tail):\n" + log_tail)


if __name__ == "__main__":
    sys.exit(main())
