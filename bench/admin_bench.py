"""`make admin-bench`: how fast the admin answers an editor at the size of the database in
DATABASE_URL (the change form of the largest hub and every changelist under 2 s at
100k papers / 1M citations). A benchmark to run by hand, not a timed test.

Requests go through Django's test Client in this process, against the database in DATABASE_URL,
as a logged-in superuser (created for the run, deleted after), with DEBUG off: the time is the
server's whole answer (middleware, queries, template rendering), without a network or a worker
in between. Every changelist registered in the admin (found in ``admin.site._registry``), the
change forms of the largest hub and of other big objects, changelist searches and filters,
an autocomplete and the dashboard; each several times, printing p50 and max (wall time), the
p50 of this process's CPU time (the server's own work: on a machine busy with other work the
wall time also holds the wait for a CPU), the p50 of the time spent in SQL queries (as the
client saw it) and the number of queries. A statement running over --statement-timeout is cut
off and its page reported.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/editors_large \\
        .venv/bin/python bench/admin_bench.py [--rounds 5] [--only citation] [--markdown]
"""

import argparse
import datetime
import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script, too

LIMIT_SECONDS = 2.0  # the bar for every admin page at 100k papers / 1M citations
BENCH_USER = "admin-bench"


def setup_django(statement_timeout_ms):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rlscaling.settings")
    os.environ.setdefault("DEBUG", "0")
    import django
    from django.conf import settings

    django.setup()
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("postgresql"):
        options = database.setdefault("OPTIONS", {})
        options["options"] = f"-c statement_timeout={int(statement_timeout_ms)}"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    return database


def admin_url(model, view, *args):
    from django.urls import reverse

    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def targets(user):
    """(label, path) pairs: the dashboard, every changelist, big change forms, searches."""
    from django.contrib import admin
    from django.db.models import Count
    from django.test import RequestFactory

    from citations.models import Author, Citation, Paper, PaperMerge
    from notes.models import ResearchNote

    pages = [("dashboard", "/admin/")]
    for model in sorted(admin.site._registry, key=lambda m: m._meta.label):
        pages.append((f"list {model._meta.label}", admin_url(model, "changelist")))

    # The biggest objects of their kind: most citing edges, most references, most papers.
    hubs = list(
        Citation.objects.values("cited_paper")
        .annotate(n=Count("id"))
        .order_by("-n", "cited_paper")[:2]
    )
    hub_pk = hubs[0]["cited_paper"] if hubs else None
    for rank, hub in enumerate(hubs, 1):
        pages.append(
            (
                f"change paper: hub #{rank} ({hub['n']:,} citing edges)",
                admin_url(Paper, "change", hub["cited_paper"]),
            )
        )
    citing = (
        Citation.objects.values("citing_paper")
        .annotate(n=Count("id"))
        .order_by("-n", "citing_paper")
        .first()
    )
    if citing:
        pages.append(
            (
                f"change paper: most references ({citing['n']:,})",
                admin_url(Paper, "change", citing["citing_paper"]),
            )
        )
    author = Author.objects.annotate(n=Count("authorships")).order_by("-n", "pk").first()
    if author:
        pages.append(
            (f"change author: most papers ({author.n:,})", admin_url(Author, "change", author.pk))
        )
    edge = Citation.objects.order_by("-pk").first()
    if edge:
        pages.append(("change citation", admin_url(Citation, "change", edge.pk)))
    note = ResearchNote.objects.annotate(n=Count("papers")).order_by("-n", "pk").first()
    if note:
        pages.append(("change research note", admin_url(ResearchNote, "change", note.pk)))
    request = RequestFactory().get("/admin/")
    request.user = user
    for model, model_admin in sorted(admin.site._registry.items(), key=lambda m: m[0]._meta.label):
        if model_admin.has_add_permission(request):
            pages.append((f"add {model._meta.label}", admin_url(model, "add")))

    papers, citations = admin_url(Paper, "changelist"), admin_url(Citation, "changelist")
    notes = admin_url(ResearchNote, "changelist")
    pages += [
        ("search papers 'scaling'", f"{papers}?q=scaling"),
        ("papers: drafts", f"{papers}?status__exact=draft"),
        ("papers: scheduled", f"{papers}?state=scheduled"),
        ("papers: no authors", f"{papers}?missing=authors"),
        ("papers: no identifier", f"{papers}?missing=identifier"),
        ("papers: page 500", f"{papers}?p=500"),
        ("papers: sorted by title desc", f"{papers}?o=-1"),
        ("search citations 'scaling'", f"{citations}?q=scaling"),
        # A word in no title and no citing sentence: nothing stops a walk of the edges early.
        ("search citations 'zyxwv' (no match)", f"{citations}?q=zyxwv"),
        ("search citations 'formal verification'", f'{citations}?q="formal+verification"'),
        ("citations: unclassified", f"{citations}?classified=no"),
        ("citations: drafts", f"{citations}?status__exact=draft"),
        ("citations: page 1000", f"{citations}?p=1000"),
        ("notes: due for review", f"{notes}?review=due"),
        ("possible duplicates: page 300", f"{admin_url(PaperMerge, 'add')}?p=300"),
        ("notes: with a draft revision", f"{notes}?draft_revision=yes"),
        (
            "autocomplete papers 'scaling'",
            "/admin/autocomplete/?app_label=citations&model_name=citation"
            "&field_name=cited_paper&term=scaling",
        ),
    ]
    if hub_pk:
        pages += [
            ("citations of the hub", f"{citations}?cited_paper__id__exact={hub_pk}"),
            (
                "unclassified citations of the hub",
                f"{citations}?cited_paper__id__exact={hub_pk}&classified=no",
            ),
        ]
    return pages


def measure(client, path, rounds):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, cpu, sql, queries, status, error = [], [], [], 0, None, ""
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            with CaptureQueriesContext(connection) as captured:
                response = client.get(path)
            status = response.status_code
            queries = len(captured)
            sql.append(sum(float(query["time"]) for query in captured.captured_queries))
        except Exception as exc:  # a statement cut off by the timeout, or a 500
            error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            break
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return {
        "p50": statistics.median(times),
        "cpu": statistics.median(cpu),
        "sql": statistics.median(sql) if sql else 0.0,
        "max": max(times),
        "queries": queries,
        "status": status if not error else "error",
        "error": error,
    }


def commit():
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "?"


def corpus_size():
    from citations.models import Citation, Paper

    return Paper.objects.count(), Citation.objects.count()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="requests per page (default 5)")
    parser.add_argument("--only", nargs="*", default=[], help="pages whose label has a word")
    parser.add_argument("--statement-timeout", type=int, default=60_000, help="ms (PostgreSQL)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    options = parser.parse_args(argv)

    database = setup_django(options.statement_timeout)
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # a 500 is in the table
    from django.contrib.auth import get_user_model
    from django.test import Client

    users = get_user_model()
    user, _ = users.objects.get_or_create(
        username=BENCH_USER, defaults={"is_staff": True, "is_superuser": True}
    )
    try:
        client = Client()
        client.force_login(user)
        papers, citations = corpus_size()
        load = os.getloadavg()
        print(
            f"# Admin benchmark: Django test Client in-process, logged-in superuser, DEBUG off; "
            f"{database['ENGINE'].rsplit('.', 1)[-1]} database {database.get('NAME')}; "
            f"{papers:,} papers, {citations:,} citations; commit {commit()}; "
            f"{datetime.date.today()}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
            f"{options.rounds} requests per page",
            flush=True,
        )
        rows = []
        for label, path in targets(user):
            if options.only and not any(word in label for word in options.only):
                continue
            client.get(path)  # warm: the first request of a page pays for imports, caches
            row = {"label": label, "path": path, **measure(client, path, options.rounds)}
            rows.append(row)
            flag = "  OVER 2 s" if row["max"] > LIMIT_SECONDS else ""
            print(
                f"{row['p50'] * 1000:9.0f} ms p50 {row['max'] * 1000:9.0f} ms max "
                f"{row['cpu'] * 1000:7.0f} ms cpu {row['sql'] * 1000:7.0f} ms sql "
                f"{row['queries']:4} queries {row['status']}  {label}{flag} {row['error']}",
                flush=True,
            )
        over = [row for row in rows if row["max"] > LIMIT_SECONDS or row["status"] != 200]
        print(f"\n{len(rows)} pages, {len(over)} over {LIMIT_SECONDS:.0f} s or not 200")
        if options.markdown:
            print("\n| page | p50 ms | max ms | CPU ms | SQL ms | queries | status |")
            print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
            for row in rows:
                print(
                    f"| {row['label']} | {row['p50'] * 1000:.0f} | {row['max'] * 1000:.0f} "
                    f"| {row['cpu'] * 1000:.0f} | {row['sql'] * 1000:.0f} | {row['queries']} "
                    f"| {row['status']} |"
                )
        return 1 if over else 0
    finally:
        user.delete()


if __name__ == "__main__":
    sys.exit(main())
