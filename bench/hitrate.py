"""The page cache's hit rate around one editorial save: gunicorn with production
settings and Redis, the warm set = every endpoint of bench/endpoints.py that answers 200 (each
requested once to store it), then clients requesting URLs of the set at random; a few seconds
in, one save of a published paper (a Django `save()` in another process, as an editor's admin
save does). Prints requests/s and the share served from the cache (`X-Page-Cache: hit`) before
the save, per window after it, and over the whole run: with the defaults one minute holding
one save, the soak of line 2 of docs/decisions/0001-performance.md.

    REDIS_URL=redis://127.0.0.1:6379/1 .venv/bin/python bench/hitrate.py \
        --database-url postgres://postgres@127.0.0.1:5432/bench_demo [--write]
"""

import argparse
import datetime
import http.client
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too

from bench.bench import read_targets  # noqa: E402
from bench.endpoints import ENDPOINTS  # noqa: E402
from bench.harness import HOST, RESULTS, ROOT, Server, write_results_section  # noqa: E402

SECTION_START, SECTION_END = "<!-- hitrate:start -->", "<!-- hitrate:end -->"
WINDOWS = [(0, 1), (1, 2), (2, 5), (5, 10), (10, 30), (30, 60)]  # seconds after the save
TARGET = 0.97  # docs/decisions/0001-performance.md, line 2

SAVE_SCRIPT = """
import time
from citations.models import Paper
paper = Paper.objects.published().order_by("id").first()
paper.summary = (paper.summary or "") + " "
paper.save()
print("SAVED", time.time(), paper.slug)
"""


def warm_set(server):
    """The endpoints that answer 200 and are kept in the page cache, each stored once."""
    paths = []
    found = read_targets(server, [])  # the targets only, no query counts
    for endpoint in ENDPOINTS:
        path = endpoint.path(found["targets"])
        stored = path and server.get(path, timeout=120).status == 200
        if stored and server.get(path, timeout=120).headers.get("X-Page-Cache") == "hit":
            paths.append(path)
    return paths


def hammer(port, paths, until, log, seed):
    """Random URLs of the set until `until[0]` (set once the save is done)."""
    chooser = random.Random(seed)
    connection = None
    while until[0] is None or time.time() < until[0]:
        if connection is None:
            connection = http.client.HTTPConnection(HOST, port, timeout=60)
        path = chooser.choice(paths)
        sent = time.time()
        try:
            connection.request("GET", path, headers={"Accept": "*/*"})
            response = connection.getresponse()
            response.read()
            state = response.getheader("X-Page-Cache") or "miss"
            log.append((time.time(), state, path, time.time() - sent))
            if response.will_close:
                connection.close()
                connection = None
        except (OSError, http.client.HTTPException):
            log.append((time.time(), "error", path, time.time() - sent))
            connection.close()
            connection = None
    if connection is not None:
        connection.close()


def share(entries):
    served = sum(entry[1] == "hit" for entry in entries)
    return served / len(entries) if entries else None


def measure(options):
    redis_url = os.environ.get("REDIS_URL", "")
    if not redis_url:
        sys.exit("Set REDIS_URL: the page cache under test is the shared one.")
    env = {
        # Every client here is 127.0.0.1: the per-client store limit, meant for one abusive
        # address among many readers, would leave re-rendered pages unstored.
        "PAGE_CACHE_STORES_PER_MINUTE": "100000",
    }
    with Server(
        options.database_url, redis_url=redis_url, workers=options.workers, env=env
    ) as server:
        paths = warm_set(server)
        for path in paths:  # every entry stored at the current generation
            server.get(path, timeout=120)
        started = time.time()
        until, log = [None], []
        threads = [
            threading.Thread(target=hammer, args=(server.port, paths, until, log, seed))
            for seed in range(options.clients)
        ]
        for thread in threads:
            thread.start()
        time.sleep(options.before)
        output = server.manage("shell", "-v0", "-c", SAVE_SCRIPT)
        saved = float(re.search(r"SAVED (\S+)", output).group(1))
        until[0] = saved + options.after
        for thread in threads:
            thread.join()
    before = [entry for entry in log if entry[0] < saved]
    rows = [("before the save", before, saved - started)]
    for low, high in WINDOWS:
        if low < options.after:
            window = [entry for entry in log if saved + low <= entry[0] < saved + high]
            rows.append((f"{low}-{high} s after", window, min(high, options.after) - low))
    after = [entry for entry in log if entry[0] >= saved]
    rows.append((f"all {options.after:g} s after", after, options.after))
    rows.append(("the whole run, one save", log, time.time() - started))
    return {
        "paths": len(paths),
        "rows": rows,
        "load": os.getloadavg()[0],
        "misses": miss_summary(after),
    }


def miss_summary(after):
    """Where the requests not served from the cache after the save went: how many URLs missed
    how often, and what a miss cost the reader."""
    misses = [entry for entry in after if entry[1] != "hit"]
    per_url = {}
    for entry in misses:
        per_url[entry[2]] = per_url.get(entry[2], 0) + 1
    most = sorted(per_url.items(), key=lambda item: -item[1])[:5]
    print("URLs missed most after the save:", ", ".join(f"{path} ({n})" for path, n in most))
    served = [entry[3] for entry in after if entry[1] == "hit"]
    return (
        f"{len(misses)} requests of {len(after)} after the save not served from the cache "
        f"on {len(per_url)} URLs ({sum(n > 1 for n in per_url.values())} of them more than "
        f"once); a miss took {mean_ms([e[3] for e in misses])} ms on average, a hit "
        f"{mean_ms(served)} ms."
    )


def mean_ms(seconds):
    return f"{1000 * sum(seconds) / len(seconds):.0f}" if seconds else "-"


def report(result, options):
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    name = options.database_url.rsplit("/", 1)[-1]
    lines = [
        f"### {name}, {datetime.date.today():%Y-%m-%d} (commit {commit})",
        "",
        f"{result['paths']} warm URLs (the endpoints kept in the page cache), "
        f"{options.clients} clients, {options.workers} gunicorn workers, Redis; one save "
        f"{options.before:g} s in; 1-minute load average {result['load']:.1f} at the end.",
        "",
        "| window | requests | req/s | served from the cache |",
        "|---|---:|---:|---:|",
    ]
    for label, entries, seconds in result["rows"]:
        rate = share(entries)
        lines.append(
            f"| {label} | {len(entries)} | {len(entries) / seconds:.0f} | "
            + ("" if rate is None else f"{rate:.0%}")
            + " |"
        )
    whole = share(result["rows"][-1][1])
    verdict = "met" if whole is not None and whole >= TARGET else "**not met**"
    lines += [
        "",
        result["misses"],
        "",
        f"Target: at least {TARGET:.0%} over the run with one save: {verdict}.",
    ]
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if options.write:
        current = RESULTS.read_text()
        block = re.compile(re.escape(SECTION_START) + r"\n(.*?)" + re.escape(SECTION_END), re.S)
        match = block.search(current)
        kept = [] if match is None else re.split(r"(?m)^(?=### )", match.group(1))
        kept = [part for part in kept if part.strip() and not part.startswith(f"### {name},")]
        section = (
            f"{SECTION_START}\n## Page cache hit rate around one save (`bench/hitrate.py`)\n\n"
            + "".join(part for part in kept if not part.startswith("## "))
            + text
            + SECTION_END
        )
        write_results_section(SECTION_START, SECTION_END, section + "\n")
        print(f"Written to {RESULTS.relative_to(ROOT)}")


def main(argv=None):
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url", default=env("DATABASE_URL", f"sqlite:///{ROOT}/db.sqlite3")
    )
    parser.add_argument("--before", type=float, default=30.0, help="s of load before the save")
    parser.add_argument("--after", type=float, default=30.0, help="s of load after it")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"record the run in {RESULTS}")
    options = parser.parse_args(argv)
    report(measure(options), options)


if __name__ == "__main__":
    main()
