"""Stable cite keys: every export names a paper by `Paper.cite_key` (citations/exports/formats.py),
stored and unique. People cite from the .bib files they downloaded, so a key is assigned once,
like a slug, and edits never recompute it: a later title, author or date, or another paper with
the same base appearing or disappearing, leaves it as it was. An editor may change it in the
admin (validated, recorded in the paper's history like any field).

A new key is the paper's base key, <first author's last name><year><first long title word>
(`base_key`), bare when no paper holds it, else with the first suffix (b, c, ...) no paper holds
(`free_keys`). The unique constraint `unique_paper_cite_key` settles two writers that picked the
same key at once: the loser picks again (`Paper.save()`, `assign_cite_keys`).

Writers: `Paper.save()` assigns a key to a paper without one (from `Paper.cite_key_author`, the
first author a writer is about to add, or else the authors it has); bulk paths assign theirs in
bulk: generate_corpus writes them with the rows, the bulk importer and a restored backup call
`assign_cite_keys` once the papers and their authors are written."""

from django.db import IntegrityError, connection, transaction
from django.db.models import BooleanField, OuterRef, Q, Subquery
from django.db.models.expressions import RawSQL

from citations.exports.formats import base_cite_key, key_suffix

BATCH = 2000
# Suffixes checked at once beyond those a base shared in a list needs, in case some are taken.
SPARE_SUFFIXES = 4
# Tries of a write whose key another writer took in the meantime.
RETRIES = 5


def base_key(first_author, byline, institution, date, precision, title):
    """The base cite key of a paper with these values (its first author's name or None)."""
    year = date.year if date and precision != "unknown" else ""
    return base_cite_key(first_author, byline or institution, year, title)


def paper_base_key(paper, first_author=None):
    """The base key of a paper from its fields, with this first author."""
    return base_key(
        first_author,
        paper.byline,
        paper.institution,
        # A date may still be the string it was given as ("2026-01-01"), as Django allows.
        paper._meta.get_field("publication_date").to_python(paper.publication_date),
        paper.date_precision,
        paper.title,
    )


def first_author_name(paper_ref, authorship_model):
    """The name of the paper's first author (its lowest position), as a subquery."""
    rows = authorship_model.objects.filter(paper=paper_ref).order_by("position", "id")
    return Subquery(rows.values("author__name")[:1])


def held_keys(keys):
    """The keys among these that some paper holds: one query per BATCH keys (an array on
    PostgreSQL), through the unique index."""
    from citations.models import Paper

    keys = sorted(set(keys))
    # Repeats the unique index's condition, so that the planner reads that partial index.
    papers = Paper._base_manager.exclude(cite_key="")
    quote = connection.ops.quote_name
    column = f"{quote(Paper._meta.db_table)}.{quote('cite_key')}"
    held = set()
    for start in range(0, len(keys), BATCH):
        chunk = keys[start : start + BATCH]
        if connection.vendor == "postgresql":
            # One array parameter: the same statement whatever the number of keys.
            where = RawSQL(f"{column} = ANY(%s)", (chunk,), output_field=BooleanField())
        else:
            where = Q(cite_key__in=chunk)
        held.update(papers.filter(where).values_list("cite_key", flat=True).order_by())
    return held


def free_keys(bases):
    """The keys new papers with these base keys (in creation order) get: each its base when no
    paper holds it, else the base with the first suffix (b, c, ...) that no paper holds and no
    earlier one of the list took. Reads the keys they could take in rounds: a base shared in
    the list is checked with a few spare suffixes, and a base whose keys are all taken is
    checked further in the next round, with the others that ran out."""
    needed = {}
    for base in bases:
        needed[base] = needed.get(base, 0) + 1
    free = {base: [] for base in needed}
    given = set()
    checked = dict.fromkeys(needed, 0)
    wanted = {base: count + SPARE_SUFFIXES if count > 1 else 1 for base, count in needed.items()}
    while wanted:
        candidates = {
            base: [base + key_suffix(index) for index in range(checked[base], upto)]
            for base, upto in wanted.items()
        }
        taken = held_keys(key for keys in candidates.values() for key in keys)
        for base, keys in candidates.items():
            for key in keys:
                if key not in taken and key not in given and len(free[base]) < needed[base]:
                    free[base].append(key)
                    given.add(key)
            checked[base] = wanted[base]
        wanted = {
            base: checked[base] * 2 + SPARE_SUFFIXES
            for base in candidates
            if len(free[base]) < needed[base]
        }
    for keys in free.values():
        keys.reverse()
    return [free[base].pop() for base in bases]


def assign_cite_keys(paper_ids=None):
    """Give the papers without a cite key (of these, or every one when None) their key, in
    creation order, from their rows and first authors; {paper id: key} of those assigned. A
    paper that has a key keeps it. Each batch is one bulk update, tried again should another
    writer take one of its keys meanwhile."""
    from citations.models import Authorship, Paper

    missing = Paper._base_manager.filter(cite_key="")
    if paper_ids is not None:
        ids = sorted({pk for pk in paper_ids if pk is not None})
    else:
        ids = list(missing.order_by("pk").values_list("pk", flat=True))
    assigned = {}
    for start in range(0, len(ids), BATCH):
        rows = list(
            missing.filter(pk__in=ids[start : start + BATCH])
            .annotate(first_author=first_author_name(OuterRef("pk"), Authorship))
            .only("pk", "title", "byline", "institution", "publication_date", "date_precision")
            .order_by("pk")
        )
        bases = [paper_base_key(paper, paper.first_author) for paper in rows]
        for attempt in range(RETRIES):
            for paper, key in zip(rows, free_keys(bases), strict=True):
                paper.cite_key = key
            try:
                with transaction.atomic():
                    # bulk_update: no save(), so no new version or history record.
                    Paper._base_manager.bulk_update(rows, ["cite_key"], batch_size=500)
                break
            except IntegrityError:
                if attempt == RETRIES - 1:
                    raise
        assigned.update((paper.pk, paper.cite_key) for paper in rows)
    return assigned
