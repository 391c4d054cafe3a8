"""The versioned public dump: every published paper, author, citation edge (role, polarity and
provenance), note, claim and the bottleneck framework, as JSONL (Django's serialisation, which
`import_dump` loads back) and CSV, with a README, the licence and SHA-256 checksums, zipped.

`write_dump(directory)` writes `rlscaling-dump-<date>.zip` (and its `.sha256`) there; the site
serves the newest one at /data/dump/latest.zip (`latest_dump`). Drafts, scheduled and expired
items never enter: each table holds the public rows only, and relations to hidden rows are left
out. Editors' accounts never do either (`classified_by` is dropped)."""

import csv
import datetime
import hashlib
import io
import json
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings
from django.core import serializers
from django.core.management import call_command
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Prefetch, Q
from django.utils import timezone

from bottlenecks.models import Analysis, AnalysisStep, Dimension, Layer, LoopStage
from citations.dates import known_date
from citations.models import (
    Author,
    Authorship,
    Citation,
    CitationPolarity,
    CitationRole,
    Paper,
    TaggedPaper,
)
from evidence.models import Claim, DiscriminatingTest, FailureSignal, SignalLayer
from notes.models import (
    CommunityPost,
    GuideSection,
    Question,
    ResearchNote,
    TaggedNote,
)
from results.models import Benchmark, Fit, Result, Series
from tags.models import Tag
from web.datapackage import data_dictionary, data_package

FORMAT_VERSION = "1"
PREFIX = "rlscaling-dump-"
# Fields that name editors' accounts (not public data) and the search index PostgreSQL's
# trigger rebuilds on load. The cite key travels: it is how people cite the paper.
PRIVATE_FIELDS = {
    "classified_by",
    "merged_by",
    "created_by",
    "entered_by",
    "checked_by",
    "search_document",
    # A claim's proposed status is the editors' review queue, not something the site states.
    "proposed_status",
    "proposal_reason",
    "evidence_changed_at",
}


def dump_directory():
    return Path(settings.DUMP_DIR)


def tables():
    """(file name, queryset) of every dumped table, in an order `loaddata` can follow."""

    papers = Paper.objects.published()
    notes = ResearchNote.objects.published()
    layers = Layer.objects.published()
    claims = Claim.objects.published()
    signals = FailureSignal.objects.published()
    citations = Citation.objects.public()
    analyses = Analysis.objects.published()
    series = Series.objects.public()
    results = Result.objects.public()
    paper_tags = TaggedPaper.objects.filter(content_object__in=papers)
    note_tags = TaggedNote.objects.filter(content_object__in=notes)
    tags = Tag.objects.filter(
        Q(pk__in=paper_tags.values("tag"))
        | Q(pk__in=note_tags.values("tag"))
        | Q(pk__in=series.values("recipe_tags"))
    )
    return [
        ("dimensions", Dimension.objects.published()),
        ("loop_stages", LoopStage.objects.published()),
        ("layers", layers),
        ("analyses", analyses),
        ("analysis_steps", AnalysisStep.objects.filter(analysis__in=analyses)),
        ("failure_signals", signals.prefetch_related(Prefetch("layers", queryset=layers))),
        ("signal_layers", SignalLayer.objects.filter(signal__in=signals, layer__in=layers)),
        ("citation_roles", CitationRole.objects.all()),
        ("citation_polarities", CitationPolarity.objects.all()),
        # Before the rows that name them: papers and notes by their tag tables, series directly.
        ("tags", tags),
        ("authors", Author.objects.filter(authorships__paper__in=papers).distinct()),
        ("papers", papers.prefetch_related(Prefetch("layers", queryset=layers))),
        ("authorships", Authorship.objects.filter(paper__in=papers)),
        ("citations", citations),
        (
            "notes",
            notes.prefetch_related(
                Prefetch("papers", queryset=papers), Prefetch("layers", queryset=layers)
            ),
        ),
        ("benchmarks", Benchmark.objects.published()),
        ("series", series.prefetch_related(Prefetch("recipe_tags", queryset=tags))),
        ("results", results),
        ("fits", Fit.objects.public()),
        (
            "claims",
            claims.filter(Q(superseded_by=None) | Q(superseded_by__in=claims)).prefetch_related(
                Prefetch("contrasting_citations", queryset=citations),
                Prefetch("results", queryset=results),
                Prefetch("layers", queryset=layers),
                Prefetch("papers", queryset=papers),
                Prefetch("notes", queryset=notes),
            ),
        ),
        (
            "discriminating_tests",
            DiscriminatingTest.objects.published().prefetch_related(
                Prefetch("layers", queryset=layers),
                Prefetch("claims", queryset=claims),
                Prefetch("papers", queryset=papers),
            ),
        ),
        ("community_posts", CommunityPost.objects.published()),
        ("questions", Question.objects.published()),
        ("guide_sections", GuideSection.objects.all()),
        ("paper_tags", paper_tags),
        ("note_tags", note_tags),
    ]


def public_fields(model):
    names = [f.name for f in model._meta.get_fields() if getattr(f, "concrete", False)]
    names += [f.name for f in model._meta.many_to_many]
    return [name for name in names if name not in PRIVATE_FIELDS and name != model._meta.pk.name]


def serialised(queryset):
    records = serializers.serialize(
        "python",
        queryset.order_by("pk"),
        fields=public_fields(queryset.model),
        use_natural_foreign_keys=True,
    )
    dates = DATED_FIELDS.get(queryset.model)
    if dates:
        for record in records:
            without_placeholder_date(record["fields"], *dates)
    return records


# The dated models' date field and its precision field.
DATED_FIELDS = {
    Paper: ("publication_date", "date_precision"),
    Claim: ("reported_on", "reported_on_precision"),
}


def without_placeholder_date(fields, date="publication_date", precision="date_precision"):
    """A date ships only as far as it is a fact (citations/dates.py): a placeholder, kept only
    to order the editor's lists, ships as null with its precision "unknown"."""
    fields[date] = known_date(fields[date], fields[precision])


# OWASP's CSV-injection guidance: a cell starting with one of these is a formula to a
# spreadsheet (=HYPERLINK(...), +cmd|..., @SUM(...)); a leading single quote makes it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """`value` as a CSV cell no spreadsheet runs: text starting as a formula gets a quote."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class SafeCsvWriter:
    """csv.writer whose every text cell goes through `csv_cell`."""

    def __init__(self, out):
        self.writer = csv.writer(out)

    def writerow(self, row):
        self.writer.writerow([csv_cell(value) for value in row])


def csv_text(records):
    """The records as CSV: the primary key, then each field; lists joined with "; "."""
    out = io.StringIO()
    names = sorted({name for record in records for name in record["fields"]})
    writer = SafeCsvWriter(out)
    writer.writerow(["id", *names])
    for record in records:
        row = [record["pk"]]
        for name in names:
            value = record["fields"].get(name)
            if isinstance(value, list | tuple):
                value = "; ".join(str(item) for item in value)
            elif value is None:
                value = ""
            elif not isinstance(value, str):
                value = json.loads(json.dumps(value, cls=DjangoJSONEncoder))
            row.append(value)
        writer.writerow(row)
    return out.getvalue()


def edges_csv():
    """The citation graph by paper slugs: the table most people want first."""
    out = io.StringIO()
    writer = SafeCsvWriter(out)
    writer.writerow(["citing_paper", "cited_paper", "role", "polarity", "source", "context"])
    edges = (
        Citation.objects.public()
        .select_related("citing_paper", "cited_paper", "role", "polarity")
        .order_by("pk")
    )
    for edge in edges.iterator(chunk_size=2000):
        writer.writerow(
            [
                edge.citing_paper.slug,
                edge.cited_paper.slug,
                edge.role.slug if edge.role else "",
                edge.polarity.slug if edge.polarity else "",
                edge.source,
                edge.context,
            ]
        )
    return out.getvalue()


README = """# {site} public data dump, {date}

Format version {version}. Generated {generated} from {url}.

Every published paper, author, citation edge (with its role, polarity and provenance), research
note, claim and the bottleneck framework. Drafts, scheduled and expired items are not included,
nor are editors' accounts.

## Files

- `jsonl/<table>.jsonl`: one row per line, as Django serialises it (`model`, `pk`, `fields`);
  relations are primary keys of the other tables (tags by their content type's natural key).
  `python manage.py import_dump <this zip>` loads them into an empty database.
- A paper's `publication_date` is a fact only as far as its `date_precision` says (day, month
  or year); a paper whose date is not known has `publication_date` null and precision
  `unknown`. A claim's `reported_on` follows the same rule with `reported_on_precision`.
- `csv/<table>.csv`: the same rows as CSV (`id`, then the fields; lists joined with "; ").
  A text cell that a spreadsheet would run as a formula (starting with = + - @, a tab or a
  carriage return) starts with a single quote; the JSONL files keep the text as it is.
- `csv/edges.csv`: the citation graph by paper slug: citing_paper, cited_paper, role, polarity,
  source (who classified the edge) and the citing sentence.
- `SHA256SUMS`: the SHA-256 checksum of every file (`sha256sum -c SHA256SUMS`).

Row counts: {counts}

Citation roles and polarities map to the Citation Typing Ontology as listed on {url}/about/data/.

## Licence

{licence}
"""

LICENCE = (
    "The data (summaries, classifications, notes, claims and the framework) is published under "
    "the Creative Commons Attribution 4.0 International licence (CC BY 4.0): "
    "https://creativecommons.org/licenses/by/4.0/. Credit: {site}, {url}. Titles, abstracts "
    "and author names of papers are facts about third-party works and are given for "
    "identification."
)


def dump_files():
    """{path inside the archive: bytes} of one dump."""
    files, counts = {}, {}
    for name, queryset in tables():
        records = serialised(queryset)
        counts[name] = len(records)
        lines = "".join(
            json.dumps(r, cls=DjangoJSONEncoder, ensure_ascii=False) + "\n" for r in records
        )
        files[f"jsonl/{name}.jsonl"] = lines.encode()
        files[f"csv/{name}.csv"] = csv_text(records).encode()
    files["csv/edges.csv"] = edges_csv().encode()
    now = timezone.now()
    site, url = settings.SITE_NAME, settings.SITE_URL
    licence = LICENCE.format(site=site, url=url)
    files["LICENSE.txt"] = (licence + "\n").encode()
    files["README.md"] = README.format(
        site=site,
        date=now.date().isoformat(),
        version=FORMAT_VERSION,
        generated=now.isoformat(timespec="seconds"),
        url=url,
        counts=", ".join(f"{name} {count}" for name, count in counts.items()),
        licence=licence,
    ).encode()
    add_data_package(files, dict(tables()))
    sums = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {path}\n" for path, data in sorted(files.items())
    )
    files["SHA256SUMS"] = sums.encode()
    return files


def add_data_package(files, querysets):
    """`datapackage.json` (the CSV files' column types) and the data dictionary in the README."""
    package = data_package(
        files,
        {name: queryset.model for name, queryset in querysets.items()},
        title=f"{settings.SITE_NAME} public data dump",
        version=FORMAT_VERSION,
        licence_url="https://creativecommons.org/licenses/by/4.0/",
    )
    files["datapackage.json"] = (json.dumps(package, indent=2, ensure_ascii=False) + "\n").encode()
    files["README.md"] += data_dictionary(package).encode()


def write_dump(directory, date=None):
    """Write rlscaling-dump-<date>.zip and its .sha256 in `directory`; the zip's path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    date = date or timezone.now().date()
    stem = f"{PREFIX}{date.isoformat()}"
    path = directory / f"{stem}.zip"
    partial = directory / f".{stem}.zip.partial"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in dump_files().items():
            info = zipfile.ZipInfo(
                f"{stem}/{name}", date_time=(date.year, date.month, date.day, 0, 0, 0)
            )
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    digest = hashlib.sha256(partial.read_bytes()).hexdigest()
    partial.replace(path)  # readers never see a half-written archive
    (directory / f"{stem}.zip.sha256").write_text(f"{digest}  {path.name}\n")
    return path


def latest_dump(directory=None):
    """The newest dump archive in the directory, or None."""
    directory = Path(directory or dump_directory())
    dumps = sorted(directory.glob(f"{PREFIX}????-??-??.zip")) if directory.is_dir() else []
    return dumps[-1] if dumps else None


def latest_dump_details():
    """{"name", "date", "size", "sha256"} of the newest dump, for /about/data/; or None."""
    path = latest_dump()
    if path is None:
        return None
    digest = path.with_name(path.name + ".sha256")
    return {
        "name": path.name,
        "date": datetime.date.fromisoformat(path.stem.removeprefix(PREFIX)),
        "size": path.stat().st_size,
        "sha256": digest.read_text().split()[0] if digest.exists() else "",
    }


def read_dump(path, scratch):
    """[(table, JSONL file in `scratch`, rows)] of a dump archive, in load order. Nothing in
    the archive is trusted: only the public tables (`tables()`) are read, each file must be
    listed in SHA256SUMS and match it, each entry is copied in bounded pieces (its declared
    size checked first: a small zip can inflate to gigabytes), and every row must be of the
    model its file names (else a crafted `papers.jsonl` could carry an account)."""
    limit = settings.DUMP_MAX_ENTRY_BYTES
    models = {name: queryset.model for name, queryset in tables()}
    with zipfile.ZipFile(path) as archive:
        entries = {
            info.filename.split("/", 1)[1]: info
            for info in archive.infolist()
            if "/" in info.filename and not info.is_dir()
        }
        for name, info in entries.items():
            if info.file_size > limit:
                raise ValueError(f"{name} is larger than {limit} bytes (DUMP_MAX_ENTRY_BYTES)")
        if "SHA256SUMS" not in entries:
            raise ValueError("no SHA256SUMS in the archive")
        expected = {}
        for line in archive.read(entries["SHA256SUMS"]).decode().splitlines():
            digest, _, name = line.partition("  ")
            expected[name] = digest
        for name in entries:
            if name.startswith("jsonl/"):
                table = name.removeprefix("jsonl/").removesuffix(".jsonl")
                if table not in models:
                    raise ValueError(f"{name}: not a table of the public dump")
                if name not in expected:
                    raise ValueError(f"{name}: not listed in SHA256SUMS")
        loaded = []
        for table, model in models.items():
            name = f"jsonl/{table}.jsonl"
            if name not in entries:
                continue
            file = Path(scratch) / f"{table}.jsonl"
            digest = hashlib.sha256()
            with archive.open(entries[name]) as source, open(file, "wb") as target:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    target.write(chunk)
            if digest.hexdigest() != expected[name]:
                raise ValueError(f"{name}: checksum mismatch")
            loaded.append((table, file, rows_of(file, name, model._meta.label_lower)))
    return loaded


def rows_of(file, name, label):
    """How many rows `file` holds, each checked to be a row of `label`."""
    rows = 0
    with open(file, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                model = json.loads(line).get("model")
            except (ValueError, AttributeError):
                raise ValueError(f"{name}, line {number}: not a JSON object") from None
            if model != label:
                raise ValueError(f"{name}, line {number}: a row of {model}, not of {label}")
            rows += 1
    return rows


def load_dump(path, overwrite=False):
    """Load a dump into an empty database (or over the rows with the same keys, when
    `overwrite`), as `loaddata` does; returns {table: rows}."""
    if not overwrite:
        holding = [name for name, queryset in tables() if queryset.model._base_manager.exists()]
        if holding:
            raise ValueError(
                f"the database already holds content ({', '.join(holding)}): a dump loads into "
                "an empty one; --overwrite replaces the rows with the same keys"
            )
    with tempfile.TemporaryDirectory() as scratch:
        loaded = read_dump(path, scratch)
        # An empty table (no fits computed yet, say) is no fixture: loaddata warns about it.
        files = [str(file) for _, file, rows in loaded if rows]
        if files:
            call_command("loaddata", *files, verbosity=0)
    call_command("recount_citations", verbosity=0)
    return {table: rows for table, _, rows in loaded}
