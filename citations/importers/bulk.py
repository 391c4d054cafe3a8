"""Big OpenAlex JSONL files (a snapshot, a million references) in, streamed.

The file is read line by line and planned in batches, so memory stays flat however large it
is: each batch is mapped to records by the same parser as any OpenAlex file
(`openalex.record_from_work`), merged and matched with the same rules as the dry run
(`plan.merge_duplicates`, `plan.title_match`, `plan.paper_step`), but identity is resolved
for the whole batch in a few queries, and new papers, authors, authorships and identifiers are
written in bulk (COPY on PostgreSQL, bulk_create elsewhere: `citations.bulkwrite.write_rows`).
Records that update or merge existing papers go through the ordinary `apply_paper_step`.

References are staged in a temporary table; once every paper is in, edges are inserted in
one INSERT ... SELECT ... ON CONFLICT DO NOTHING, the references still without their other
paper become pending edges, and pending edges waiting for a paper this file brought are
resolved, all set-based. Then the stored citing counts of the papers concerned are recounted.

Everything runs in one transaction: a bad line (reported with its number) writes nothing. The
dry run is the same run rolled back, so its counts are exactly what applying does. Like
`generate_corpus` and the edges of the ordinary path, bulk-written rows get no history rows.
"""

import collections
import dataclasses
import itertools
import time

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.text import slugify

from citations.bulkwrite import allocate_ids, copy_rows, unnamed_defaults, write_rows
from citations.cite_keys import assign_cite_keys
from citations.identity import PaperIdentifier, PaperSlugAlias, PendingCitation, identifiers_of
from citations.importers.apply import apply_paper_step, edge_source, new_paper
from citations.importers.plan import fit_to_columns, merge_duplicates, paper_step, title_match
from citations.importers.records import BadImportFile
from citations.importers.wording import counts_in_words, plural
from citations.models import (
    Author,
    Authorship,
    Citation,
    CitationRole,
    CitationSource,
    Paper,
    recount_citations,
    recount_paper_facets,
)
from citations.models.authors import free_author_slugs
from core.text import clean_instance_text, clean_text
from pagecache.caching import bump_generation
from publishing.models import Status

BATCH_SIZE = 2000
# Larger OpenAlex JSONL files take this path, from the command, the admin and the API alike.
BULK_FROM = getattr(settings, "IMPORT_BACKGROUND_FROM", 500)
NOTES = 20  # lines of the report naming records (updates, merges, cuts, duplicates in the file)

REFS, IDENT, TOUCHED, RECOUNT = (
    "import_bulk_refs",
    "import_bulk_ident",
    "import_bulk_touched",
    "import_bulk_recount",
)


@dataclasses.dataclass
class BulkReport:
    """What a bulk import did (or, for a dry run, would do)."""

    records: int = 0
    counts: dict = dataclasses.field(default_factory=dict)
    notes: list = dataclasses.field(default_factory=list)
    applied: bool = False
    seconds: float = 0.0

    def add(self, key, n=1):
        if n:
            self.counts[key] = self.counts.get(key, 0) + n

    def note(self, line):
        if len(self.notes) < NOTES:
            self.notes.append(line)
        else:
            self.add("more notes")

    def report(self):
        counts = counts_in_words(self.counts, self.applied)
        verb = "applied" if self.applied else "dry run (rolled back)"
        lines = [f"{plural(self.records, 'record')}, {verb} in {self.seconds:.1f}s: {counts}"]
        return "\n".join(lines + self.notes)

    def as_dict(self):
        return {"counts": self.counts, "records": self.records, "notes": self.notes}


class _DryRun(Exception):
    pass


def is_openalex_jsonl(first_line, format=None):
    """True when a file whose first non-blank line is `first_line` is OpenAlex works, one JSON
    object per line."""
    from citations.importers import detect_format

    first = first_line.lstrip("\ufeff").strip()
    if not (first.startswith("{") and first.endswith("}")):
        return False
    try:
        return (format or detect_format(first)) == "openalex"
    except BadImportFile:
        return False


def is_big_openalex_file(path, format=None, always=False):
    """True when the file at `path` is OpenAlex JSONL with more than BULK_FROM lines (any
    number when `always`): the files the bulk path takes."""
    with open(path, encoding="utf-8-sig") as lines:
        try:
            first = next((line for line in lines if line.strip()), "")
            if not is_openalex_jsonl(first, format):
                return False
            lines.seek(0)
            return always or is_big(lines)
        except UnicodeDecodeError:
            return False  # not UTF-8, so not OpenAlex JSONL: the parsers say what it is


def is_big(lines):
    """More than BULK_FROM non-blank lines (reads no further than that)."""
    return sum(1 for line in itertools.islice(lines, BULK_FROM * 2) if line.strip()) > BULK_FROM


def record_batches(lines, size=BATCH_SIZE, name=""):
    """Lists of at most `size` OpenAlex records from JSONL lines, parsed as they are read: only
    one batch of lines and records is held at a time. Errors name the line (and the file)."""
    from citations.importers import _parse_lines, numbered_chunks

    for chunk in numbered_chunks(lines, size):
        yield _parsed(chunk, name, _parse_lines)


def _parsed(chunk, name, parse_lines):
    try:
        return parse_lines(chunk, "openalex")
    except BadImportFile as error:
        if not name:
            raise
        raise BadImportFile(str(error), name) from None


def bulk_import(
    sources, apply=False, publish=False, batch_size=BATCH_SIZE, progress=None, log=None
):
    """Import OpenAlex JSONL `sources` ([(name, iterable of lines)]) in one transaction; a dry
    run unless `apply`. `progress(lines read)` after each batch; `log(message)` for timings."""
    report = BulkReport()
    started = time.monotonic()
    try:
        with transaction.atomic():
            _BulkImport(report, publish, progress, log or (lambda message: None)).run(
                sources, batch_size
            )
            if not apply:
                raise _DryRun
            report.applied = True
    except _DryRun:
        pass
    report.seconds = time.monotonic() - started
    return report


class _BulkImport:
    def __init__(self, report, publish, progress, log):
        self.report, self.progress, self.log = report, progress, log
        self.status = Status.PUBLISHED if publish else Status.DRAFT
        self.now = timezone.now().replace(microsecond=0)
        self.postgres = connection.vendor == "postgresql"
        self.started = time.monotonic()

    def say(self, message):
        self.log(f"[{time.monotonic() - self.started:7.1f}s] {message}")

    def run(self, sources, batch_size):
        self.create_tables()
        for name, lines in sources:
            for records in record_batches(lines, batch_size, name):
                self.import_batch(records)
                self.report.records += len(records)
                if self.report.records // 10_000 > (self.report.records - len(records)) // 10_000:
                    self.say(f"{self.report.records:,} records in")
                if self.progress:
                    self.progress(self.report.records)
            self.say(f"{name or 'file'}: {self.report.records:,} records in")
        self.link()
        self.recount()
        self.drop_tables()
        if self.report.counts.get("create") or self.report.counts.get("edge create"):
            transaction.on_commit(bump_generation)

    # -- staging tables --------------------------------------------------------------------

    def create_tables(self):
        with connection.cursor() as cursor:
            for table in (REFS, IDENT, TOUCHED, RECOUNT):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")
            cursor.execute(
                f"CREATE TEMPORARY TABLE {REFS} "
                "(owner_id bigint, direction varchar(8), scheme varchar(10), value varchar(200))"
            )
            cursor.execute(f"CREATE TEMPORARY TABLE {TOUCHED} (paper_id bigint PRIMARY KEY)")
            cursor.execute(f"CREATE TEMPORARY TABLE {RECOUNT} (paper_id bigint)")

    def drop_tables(self):
        with connection.cursor() as cursor:
            for table in (REFS, IDENT, TOUCHED, RECOUNT):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")

    def insert_rows(self, table, columns, rows):
        if not rows:
            return
        if self.postgres:
            copy_rows(table, columns, rows)
            return
        marks = ", ".join(["%s"] * len(columns))
        with connection.cursor() as cursor:
            cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    # -- one batch of records --------------------------------------------------------------

    def import_batch(self, records):
        from citations.merging import merge_papers

        merged = merge_duplicates(records)
        cuts = [fit_to_columns(record) for record, _ in merged]
        matches = match_batch([record for record, _ in merged])
        steps = []
        publish = self.status == Status.PUBLISHED
        for (record, duplicates), (papers, matched_by), cut in zip(
            merged, matches, cuts, strict=True
        ):
            step = paper_step(record, papers, matched_by, publish, duplicates, cut)
            if step.cuts:
                self.note(step.line())
            self.report.add(step.action)
            self.report.add("duplicate in the file", len(duplicates))
            for where in duplicates:
                self.note(f"        (duplicate in the file: {where}, merged into {record.where})")
            steps.append(step)
        self.create_papers([step for step in steps if step.action == "create"])
        touched = []
        for step in steps:
            if step.action in ("update", "merge"):
                self.note(step.line())
                try:
                    apply_paper_step(step, self.status, merge_papers)
                except ValidationError as error:
                    raise BadImportFile("; ".join(error.messages), step.record.where) from None
            if step.action != "skip":
                touched.append((step.paper.pk,))
        self.insert_rows(TOUCHED, ["paper_id"], touched)
        self.insert_rows(
            REFS,
            ["owner_id", "direction", "scheme", "value"],
            [
                # The strongest identifier names the other paper, as for a pending edge.
                (step.paper.pk, reference.direction, *next(iter(reference.identifiers.items())))
                for step in steps
                for reference in step.record.references
                if reference.identifiers
            ],
        )

    def note(self, line):
        self.report.note(line)

    def create_papers(self, steps):
        if not steps:
            return
        slugs = unique_slugs([step.record.title for step in steps])
        papers = []
        for step, slug in zip(steps, slugs, strict=True):
            paper, identifiers = new_paper(step.record, self.status, slug)
            # The COPY skips save(), where every other write path cleans text (publishing).
            clean_instance_text(paper)
            try:
                # The fields' own rules; identity was checked against the database above.
                paper.clean_fields()
            except ValidationError as error:
                raise BadImportFile("; ".join(error.messages), step.record.where) from None
            papers.append((step, paper, identifiers))
        ids = allocate_ids(Paper, len(papers))
        published_at = self.now if self.status == Status.PUBLISHED else None
        fields = [
            "id", "title", "slug", "byline", "institution", "publication_date", "arxiv_id",
            "doi", "url", "venue", "publication_type", "arxiv_category", "arxiv_versions",
            "abstract", "in_research_index", "status", "published_at", "created_at",
            "updated_at", "version",
        ]  # fmt: skip
        rows = []
        for pk, (step, paper, _) in zip(ids, papers, strict=True):
            paper.pk, paper.published_at = pk, published_at
            paper.created_at = paper.updated_at = self.now
            paper.version = 1
            paper._state.adding = False
            step.paper = paper
            rows.append(tuple(getattr(paper, field) for field in fields))
        write_rows(Paper, fields, rows)
        write_rows(
            PaperIdentifier,
            ["paper", "scheme", "value"],
            [(paper.pk, s, v) for _, paper, identifiers in papers for s, v in identifiers.items()],
        )
        self.create_authorships([(paper.pk, step.record.authors) for step, paper, _ in papers])
        # Their cite keys, in bulk now that their first authors are written: one read of the
        # keys they could take and one update per batch (citations/cite_keys.py).
        keys = assign_cite_keys(ids)
        for _, paper, _ in papers:
            paper.cite_key = keys[paper.pk]

    def create_authorships(self, papers):
        papers = [(pk, [clean_text(name)[:200] for name in authors]) for pk, authors in papers]
        names = list(dict.fromkeys(name for _, authors in papers for name in authors))
        known = dict(Author.objects.filter(name__in=names).values_list("name", "id"))
        new = [name for name in names if name not in known]
        ids = allocate_ids(Author, len(new))
        slugs = free_author_slugs(new)  # the COPY skips Author.save(), which gives slugs
        write_rows(Author, ["id", "name", "slug"], list(zip(ids, new, slugs, strict=True)))
        known.update(zip(new, ids, strict=True))
        rows = []
        for paper_id, authors in papers:
            seen = set()  # as set_authors: a name listed twice is one authorship
            for position, name in enumerate(authors):
                author_id = known[name]
                if author_id not in seen:
                    seen.add(author_id)
                    rows.append((paper_id, author_id, position))
        write_rows(Authorship, ["paper", "author", "position"], rows)

    # -- edges, set-based, once every paper is in ------------------------------------------

    def link(self):
        paper, other = Paper._meta.db_table, PaperIdentifier._meta.db_table
        with connection.cursor() as cursor:
            # Every identifier a paper answers to (identity.identifiers_of, in SQL).
            cursor.execute(
                f"CREATE TEMPORARY TABLE {IDENT} AS "
                f"SELECT scheme, value, paper_id FROM {other} "
                f"UNION ALL SELECT 'arxiv', arxiv_id, id FROM {paper} WHERE arxiv_id <> '' "
                f"UNION ALL SELECT 'doi', LOWER(doi), id FROM {paper} "
                f"WHERE doi <> '' AND LOWER(doi) NOT LIKE %s "
                f"UNION ALL SELECT 'arxiv', SUBSTR(LOWER(doi), 16), id FROM {paper} "
                f"WHERE LOWER(doi) LIKE %s",
                ["10.48550/arxiv.%"] * 2,
            )
            cursor.execute(f"CREATE INDEX {IDENT}_key ON {IDENT} (scheme, value)")
            if self.postgres:
                cursor.execute(f"ANALYZE {REFS}")
                cursor.execute(f"ANALYZE {IDENT}")
            self.say("identifiers gathered")
            joined = (
                f"FROM {REFS} r JOIN {IDENT} i ON i.scheme = r.scheme AND i.value = r.value "
                "WHERE i.paper_id <> r.owner_id"
            )
            ends = self.ends("r.direction", "r.owner_id", "i.paper_id")
            cursor.execute(f"INSERT INTO {RECOUNT} SELECT DISTINCT {ends[1]} {joined}")
            created = self.insert_edges(
                cursor,
                ends,
                {
                    "role": "NULL",
                    "context": "''",
                    "is_influential": "NULL",
                    "source": ("%s", [edge_source("openalex")]),
                    "classified_at": "NULL",
                },
                joined,
            )
            self.report.add("edge create", created)
            self.say(f"{created:,} edges created")
            pending = PendingCitation._meta.db_table
            cursor.execute(
                f"INSERT INTO {pending} "
                "(paper_id, direction, scheme, value, role_slug, context, is_influential, source) "
                f"SELECT r.owner_id, r.direction, r.scheme, r.value, '', '', NULL, %s "
                f"FROM {REFS} r WHERE NOT EXISTS (SELECT 1 FROM {IDENT} i "
                "WHERE i.scheme = r.scheme AND i.value = r.value) "
                "ON CONFLICT DO NOTHING",
                ["openalex"],
            )
            self.report.add("edge pending", max(cursor.rowcount, 0))
            cursor.execute(f"SELECT COUNT(*) FROM {REFS}")
            staged = cursor.fetchone()[0]
            self.report.add(
                "edge skip",
                staged - created - self.report.counts.get("edge pending", 0),
            )
            self.resolve_pending(cursor)

    def resolve_pending(self, cursor):
        """Edges that waited for a paper this file created or changed (apply.resolve_pending)."""
        pending, role = PendingCitation._meta.db_table, CitationRole._meta.db_table
        waiting = (
            f"FROM {pending} p JOIN {IDENT} i ON i.scheme = p.scheme AND i.value = p.value "
            f"JOIN {TOUCHED} t ON t.paper_id = i.paper_id"
        )
        joined = (
            f"{waiting} LEFT JOIN {role} ro ON ro.slug = p.role_slug WHERE p.paper_id <> i.paper_id"
        )
        ends = self.ends("p.direction", "p.paper_id", "i.paper_id")
        cursor.execute(f"INSERT INTO {RECOUNT} SELECT DISTINCT {ends[1]} {joined}")
        imported = CitationSource.imported()
        resolved = self.insert_edges(
            cursor,
            ends,
            {
                "role": "ro.id",
                "context": "p.context",
                "is_influential": "p.is_influential",
                "source": (
                    f"CASE WHEN p.source IN ({', '.join(['%s'] * len(imported))}) "
                    "THEN p.source WHEN ro.id IS NULL THEN %s ELSE %s END",
                    [*imported, CitationSource.NONE, CitationSource.EDITOR],
                ),
                "classified_at": (
                    "CASE WHEN ro.id IS NULL THEN NULL ELSE " + self.cast("classified_at") + " END",
                    [self.now],
                ),
            },
            joined,
        )
        cursor.execute(f"DELETE FROM {pending} WHERE id IN (SELECT p.id {waiting})")
        self.report.add("edge create", resolved)
        self.report.add("pending resolved", max(cursor.rowcount, 0))

    @staticmethod
    def ends(direction, here, other):
        """(citing, cited) SQL for an edge declared by `here` towards `other`."""
        return (
            f"CASE WHEN {direction} = 'cites' THEN {here} ELSE {other} END",
            f"CASE WHEN {direction} = 'cites' THEN {other} ELSE {here} END",
        )

    def cast(self, field_name):
        """A parameter typed as the Citation field (PostgreSQL types a bare NULL as text)."""
        if not self.postgres:
            return "%s"
        return f"CAST(%s AS {Citation._meta.get_field(field_name).cast_db_type(connection)})"

    def insert_edges(self, cursor, ends, columns, joined):
        """INSERT ... SELECT new citations; an edge already here (or twice) is left alone."""
        published_at = self.now if self.status == Status.PUBLISHED else None
        columns = {
            "citing_paper": ends[0],
            "cited_paper": ends[1],
            **columns,
            "classified_by": "NULL",
            "status": (self.cast("status"), [self.status]),
            "published_at": (self.cast("published_at"), [published_at]),
            "created_at": (self.cast("created_at"), [self.now]),
            "updated_at": (self.cast("updated_at"), [self.now]),
            "version": "1",
        }
        names, select, params = [], [], []
        for name, expression in columns.items():
            sql, values = expression if isinstance(expression, tuple) else (expression, [])
            names.append(Citation._meta.get_field(name).column)
            select.append(sql)
            params += values
        for column, value in unnamed_defaults(Citation, columns):
            field = next(f for f in Citation._meta.concrete_fields if f.column == column)
            names.append(column)
            select.append(self.cast(field.name))
            params.append(value)
        cursor.execute(
            f"INSERT INTO {Citation._meta.db_table} ({', '.join(names)}) "
            f"SELECT {', '.join(select)} {joined} ON CONFLICT DO NOTHING",
            params,
        )
        return max(cursor.rowcount, 0)

    def recount(self):
        """The stored citing counts (citations/stats/counts.py), year, tag and layer counts
        (citations/stats/facet_counts.py) of every paper the import touched."""
        if not any(self.report.counts.get(key) for key in ("create", "update", "merge")) and (
            not self.report.counts.get("edge create")
        ):
            return  # a re-run: nothing changed
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {RECOUNT} SELECT paper_id FROM {TOUCHED}")
            if self.postgres:
                # Fresh statistics first: planned blind over a million new rows, the recount's
                # grouped queries are slow (bench/corpus.py measured it).
                cursor.execute(f"ANALYZE {Citation._meta.db_table}, {Paper._meta.db_table}")
            last, total = 0, 0
            while True:
                cursor.execute(
                    f"SELECT DISTINCT paper_id FROM {RECOUNT} WHERE paper_id > %s "
                    "ORDER BY paper_id LIMIT 2000",
                    [last],
                )
                chunk = [row[0] for row in cursor.fetchall()]
                if not chunk:
                    break
                recount_citations(chunk)
                last, total = chunk[-1], total + len(chunk)
        recount_paper_facets()
        self.say(f"recounted {total:,} papers")


def match_batch(records):
    """For each record, (the existing papers it names, "identifiers" or "title"), as
    plan.match_papers says, in a few queries for the whole batch."""
    wanted = {item for record in records for item in record.identifiers.items()}
    by_scheme = {}
    for scheme, value in wanted:
        by_scheme.setdefault(scheme, set()).add(value)
    arxiv = by_scheme.get("arxiv", set())
    dois = by_scheme.get("doi", set()) | {f"10.48550/arxiv.{a}".lower() for a in arxiv}
    ids = set()
    # "Not empty" lets PostgreSQL use the partial unique indexes (a long IN list alone does not).
    if arxiv:
        ids |= set(
            Paper.objects.filter(arxiv_id__in=arxiv)
            .exclude(arxiv_id="")
            .values_list("pk", flat=True)
        )
    if dois:
        ids |= set(
            Paper.objects.filter(doi__in=dois)
            .exclude(doi="")
            .order_by()
            .values_list("pk", flat=True)
        )
    others = PaperIdentifier.objects.none()
    for scheme, values in by_scheme.items():
        others |= PaperIdentifier.objects.filter(scheme=scheme, value__in=values)
    if by_scheme:
        ids |= set(others.values_list("paper_id", flat=True))
    owners = {}
    for paper in matched_papers(ids):
        for key in identifiers_of(paper):
            owners.setdefault(key, []).append(paper)
    found = []
    for record in records:
        papers = {p.pk: p for key in record.identifiers.items() for p in owners.get(key, [])}
        found.append(([papers[pk] for pk in sorted(papers)], "identifiers" if papers else ""))
    unmatched = {
        record.title.upper(): None
        for record, (papers, _) in zip(records, found, strict=True)
        if not papers
    }
    unmatched.pop("", None)
    if unmatched:
        from django.db.models.functions import Upper

        candidates = {}
        same_titles = Paper.objects.annotate(upper_title=Upper("title")).filter(
            upper_title__in=list(unmatched)
        )
        for paper in matched_papers(same_titles.values_list("pk", flat=True)):
            candidates.setdefault(paper.title.upper(), []).append(paper)
        for index, record in enumerate(records):
            if not found[index][0] and record.title.upper() in candidates:
                paper = title_match(record, candidates[record.title.upper()])
                if paper:
                    found[index] = ([paper], "title")
    return found


def matched_papers(ids, chunk=1000):
    """The papers, with what changes_for and identifiers_of read."""
    ids = sorted(ids)
    for start in range(0, len(ids), chunk):
        yield from (
            Paper.objects.filter(pk__in=ids[start : start + chunk])
            .prefetch_related(
                "other_identifiers",
                Prefetch("authorships", queryset=Authorship.objects.select_related("author")),
            )
            .order_by("pk")
        )


def unique_slugs(titles):
    """apply.unique_slug for each title, in a few indexed queries: the first of base, base-2,
    base-3... that no paper (or old slug) has, nor an earlier title of the list."""
    bases = [slugify(title)[:190].strip("-") or "paper" for title in titles]
    taken = slugs_taken(bases)
    wanted = collections.Counter(bases)
    # Bases already taken, or wanted twice: look up numbered slugs in widening windows.
    crowded = {base: 1 for base in wanted if base in taken or wanted[base] > 1}
    while crowded:
        windows = {base: checked * 2 + wanted[base] + 8 for base, checked in crowded.items()}
        taken |= slugs_taken(
            f"{base}-{n}"
            for base, checked in crowded.items()
            for n in range(checked + 1, windows[base] + 1)
        )
        crowded = {
            base: last
            for base, last in windows.items()
            if sum(f"{base}-{n}" not in taken for n in range(2, last + 1)) < wanted[base]
        }
    slugs = []
    for base in bases:
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        slugs.append(slug)
    return slugs


def slugs_taken(slugs):
    slugs = list(slugs)
    taken = set(Paper.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    return taken | set(PaperSlugAlias.objects.filter(slug__in=slugs).values_list("slug", flat=True))
