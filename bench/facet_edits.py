"""What an editor's edit costs in stored facet counts (citations/stats/facet_counts.py) at the
size of the database in DATABASE_URL: a tag added to a published paper, a layer added or taken
off, a paper's date changed and saved (with its citing counts), and the full recount every
bulk path runs. Each five times in a transaction rolled back afterwards, so the database is
left as it was; prints the median, min and max. A benchmark to run by hand, not a timed test
(docs/decisions/0006-stored-facet-counts.md has its numbers).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_large \\
        .venv/bin/python bench/facet_edits.py
"""

import datetime
import os
import statistics
import sys
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rlscaling.settings")
django.setup()

from django.db import transaction  # noqa: E402  (after django.setup(): a script)

from bottlenecks.models import Layer  # noqa: E402
from citations.models import Paper  # noqa: E402
from citations.stats.facet_counts import recount_paper_facets  # noqa: E402

ROUNDS = 5


def timed(edit):
    seconds = []
    for _ in range(ROUNDS):
        with transaction.atomic():
            start = time.perf_counter()
            edit()
            seconds.append(time.perf_counter() - start)
            transaction.set_rollback(True)
    return [1000 * s for s in (statistics.median(seconds), min(seconds), max(seconds))]


def main():
    paper = Paper.objects.published().filter(in_research_index=True).order_by("pk")[500]
    layer = Layer.objects.order_by("pk").first()

    def layer_toggled():
        on_layer = paper.layers.filter(pk=layer.pk).exists()
        (paper.layers.remove if on_layer else paper.layers.add)(layer)

    def date_saved():
        edited = Paper.objects.get(pk=paper.pk)
        edited.publication_date = (edited.publication_date or datetime.date(2000, 1, 1)).replace(
            year=2001
        )
        edited.save()

    edits = {
        "tag added": lambda: paper.tags.add("facet-edits-bench"),
        "layer added or removed": layer_toggled,
        "a paper's date saved": date_saved,
        "full recount": recount_paper_facets,
    }
    for name, edit in edits.items():
        median, low, high = timed(edit)
        print(f"{name:24s} median {median:8.1f} ms (min {low:.1f}, max {high:.1f})")


if __name__ == "__main__":
    main()
