"""The bulk path for big OpenAlex JSONL files: the same result as the ordinary import, streamed
in batches, idempotent, all or nothing."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from bench.openalex_sample import generate
from citations.identity import PaperIdentifier, PendingCitation
from citations.importers import BadImportFile, bulk, make_plan, parse, runs
from citations.importers.bulk import bulk_import, record_batches
from citations.importers.runs import ImportRun
from citations.models import Author, Citation, CitationCount, Paper
from tests.factories import PaperFactory
from tests.helpers import changes_nothing

pytestmark = pytest.mark.django_db


def sample(works=40, references=200, seed=3):
    """A generated OpenAlex JSONL snapshot, with one work repeated at the end (a duplicate
    record in a later batch)."""
    out = io.StringIO()
    generate(out, works, references, seed=seed, outside_share=0.1)
    lines = out.getvalue().splitlines(keepends=True)
    return "".join([*lines, lines[2]])


def works_of(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def openalex_id(paper):
    return next(v for s, v in paper.other_identifiers.values_list("scheme", "value"))


def snapshot():
    """Everything an import writes, keyed by OpenAlex id (no pks, no timestamps)."""
    key = {
        paper.pk: paper.other_identifiers.filter(scheme="openalex")
        .values_list("value", flat=True)
        .first()
        or paper.slug
        for paper in Paper.objects.all()
    }
    papers = {
        key[paper.pk]: (
            paper.title,
            paper.slug,
            paper.arxiv_id,
            paper.doi,
            paper.publication_date,
            paper.status,
            bool(paper.published_at),
            paper.in_research_index,
            paper.byline,
            paper.institution,
            paper.venue,
            paper.abstract,
            tuple(paper.arxiv_versions),
            tuple(paper.author_names),
            tuple(sorted(paper.other_identifiers.values_list("scheme", "value"))),
            getattr(CitationCount.objects.filter(paper=paper).first(), "total", None),
        )
        for paper in Paper.objects.prefetch_related("authorships__author")
    }
    edges = {
        (key[e.citing_paper_id], key[e.cited_paper_id], e.role_id, e.source, e.status)
        + (bool(e.published_at), e.context, e.is_influential)
        for e in Citation.objects.all()
    }
    pending = {
        (key[p.paper_id], p.direction, p.scheme, p.value, p.source)
        for p in PendingCitation.objects.all()
    }
    authors = set(Author.objects.values_list("name", flat=True))
    return papers, edges, pending, authors


def existing_state(works):
    """What the site holds before the import: a paper one work names by its DOI (missing its
    abstract, which the import fills in), and a pending edge waiting for another work."""
    with_doi = next(work for work in works if work["doi"] and work.get("abstract_inverted_index"))
    PaperFactory(
        title="Known by DOI",
        slug="known-by-doi",
        doi=with_doi["doi"].removeprefix("https://doi.org/"),
        arxiv_id="",
        abstract="",
        institution="",
        publication_date=None,
    )
    waiting = PaperFactory(
        title="Waits for a work", slug="waits", arxiv_id="", doi="", publication_date=None
    )
    PendingCitation.objects.create(
        paper=waiting,
        direction="cited_by",
        scheme="openalex",
        value=works[7]["id"].rsplit("/", 1)[-1],
        source="semantic_scholar",
    )


def wipe():
    for model in (Citation, PendingCitation, PaperIdentifier, Paper, Author):
        model.objects.all().delete()


@pytest.mark.parametrize("publish", [False, True])
def test_the_bulk_path_writes_what_the_ordinary_import_writes(roles, publish):
    text = sample()
    works = works_of(text)
    existing_state(works)
    make_plan(parse(text, "openalex"), publish=publish).apply()
    ordinary = snapshot()
    wipe()
    existing_state(works)
    report = bulk_import([("", io.StringIO(text))], apply=True, publish=publish, batch_size=7)
    bulked = snapshot()
    for ours, theirs in zip(bulked, ordinary, strict=True):
        if isinstance(ours, dict):
            assert {k: v for k, v in ours.items() if theirs.get(k) != v} == {
                k: v for k, v in theirs.items() if ours.get(k) != v
            }
        assert ours - theirs == theirs - ours if isinstance(ours, set) else True
    papers, edges, pending, _ = ordinary
    # The sample exercises every case: new papers, an update, edges, pending edges, resolved.
    assert report.counts["create"] == 40 - 1 and report.counts["update"] == 1
    assert report.counts["pending resolved"] == 1
    assert len(edges) > 100 and len(pending) > 5
    known = next(paper for paper in papers.values() if paper[1] == "known-by-doi")
    assert known[11] and known[14][0][0] == "openalex"  # abstract and OpenAlex id added
    assert report.applied and report.records == 41


def test_the_dry_run_writes_nothing_and_counts_what_applying_does(roles):
    text = sample()
    dry = bulk_import([("", io.StringIO(text))], apply=False, batch_size=9)
    assert not Paper.objects.exists() and not PendingCitation.objects.exists()
    assert not Author.objects.exists()
    applied = bulk_import([("", io.StringIO(text))], apply=True, batch_size=9)
    assert dry.counts == applied.counts
    assert "dry run (rolled back)" in dry.report()
    assert Paper.objects.count() == applied.counts["create"] == 40


def test_re_running_the_file_changes_nothing(roles):
    text = sample()
    bulk_import([("", io.StringIO(text))], apply=True, batch_size=9)
    before = snapshot()
    again = bulk_import([("", io.StringIO(text))], apply=True, batch_size=9)
    assert snapshot() == before
    # Notes say what the file holds that is not imported (OpenAlex's counts); they change nothing.
    assert set(again.counts) - {"more notes"} == {"skip", "edge skip"}
    # And the ordinary path agrees that there is nothing to do.
    assert changes_nothing(make_plan(parse(text, "openalex")))


def test_new_papers_are_drafts_with_their_identifiers_authors_and_provenance(roles):
    text = sample(works=10, references=30)
    bulk_import([("", io.StringIO(text))], apply=True, batch_size=4)
    work = works_of(text)[0]
    paper = Paper.objects.get(other_identifiers__value=work["id"].rsplit("/", 1)[-1])
    assert paper.status == "draft" and paper.published_at is None
    assert paper.author_names == [a["author"]["display_name"] for a in work["authorships"]]
    assert paper.publication_date.isoformat() == work["publication_date"]
    assert set(Citation.objects.values_list("source", flat=True)) == {"openalex"}
    assert not Citation.objects.exclude(status="draft").exists()


@pytest.mark.parametrize("batch_size", [5, 100])
def test_a_bad_line_in_the_middle_writes_nothing_and_names_the_line(roles, batch_size):
    lines = sample(works=30, references=60).splitlines(keepends=True)
    lines[16] = '{"id": "https://openalex.org/W1", "title": "Cut off\n'
    with pytest.raises(BadImportFile, match=r"^works\.jsonl: line 17: not valid JSON"):
        bulk_import([("works.jsonl", io.StringIO("".join(lines)))], apply=True, batch_size=5)
    lines[16] = '{"title": "No id"}\n'
    with pytest.raises(BadImportFile, match=r"line 17: not an OpenAlex work"):
        bulk_import([("", io.StringIO("".join(lines)))], apply=True, batch_size=batch_size)
    assert not Paper.objects.exists() and not Author.objects.exists()
    assert not PendingCitation.objects.exists() and not Citation.objects.exists()


def test_the_reader_holds_one_batch_of_lines_at_a_time():
    text = sample(works=30, references=60)
    read = []

    def lines():
        for line in io.StringIO(text):
            read.append(line)
            yield line

    batches = record_batches(lines(), size=8)
    first = next(batches)
    assert len(first) == 8 and len(read) == 8  # nothing read ahead
    assert [len(batch) for batch in batches] == [8, 8, 7]
    assert len(read) == 31


def test_every_batch_is_planned_and_written_on_its_own(roles, monkeypatch):
    sizes = []
    original = bulk._BulkImport.import_batch

    def spy(self, records):
        sizes.append(len(records))
        return original(self, records)

    monkeypatch.setattr(bulk._BulkImport, "import_batch", spy)
    bulk_import([("", io.StringIO(sample()))], apply=True, batch_size=6)
    assert max(sizes) == 6 and sum(sizes) == 41


def test_the_command_takes_big_openalex_files_the_bulk_way(roles, tmp_path, monkeypatch):
    monkeypatch.setattr(bulk, "BULK_FROM", 10)
    path = tmp_path / "works.jsonl"
    path.write_text(sample(works=20, references=40))
    out = io.StringIO()
    call_command("import_papers", str(path), stdout=out)
    assert "dry run (rolled back)" in out.getvalue() and not Paper.objects.exists()
    call_command("import_papers", str(path), "--apply", stdout=out)
    assert "applied" in out.getvalue() and Paper.objects.count() == 20

    path.write_text(path.read_text() + "{not json}\n")
    with pytest.raises(CommandError, match=r"works\.jsonl: line 22: not valid JSON"):
        call_command("import_papers", str(path), "--apply", stdout=out)


def test_small_files_keep_the_record_by_record_report(roles, tmp_path):
    path = tmp_path / "works.jsonl"
    path.write_text(sample(works=5, references=5))
    out = io.StringIO()
    call_command("import_papers", str(path), stdout=out)
    assert "create  line 1 (W4100000001)" in out.getvalue()


def test_the_admin_and_api_runs_use_the_bulk_path(roles, monkeypatch):
    monkeypatch.setattr(bulk, "BULK_FROM", 10)
    monkeypatch.setattr(runs, "BACKGROUND_FROM", 10**6)  # applied inline here
    text = sample(works=20, references=40)
    run, report = ImportRun.preview(text)
    assert isinstance(report, bulk.BulkReport) and run.records == 21
    assert run.counts["create"] == 20 and not Paper.objects.exists()
    assert report.as_dict()["counts"] == run.counts
    run.confirm()
    run.refresh_from_db()
    assert run.state == ImportRun.State.DONE and run.processed == 21
    assert Paper.objects.count() == 20


def test_slugs_are_the_first_free_ones_as_for_a_single_paper():
    from citations.identity import PaperSlugAlias

    for slug in ("scaling-rl", "scaling-rl-2", "scaling-rl-4", "other"):
        PaperFactory(slug=slug)
    PaperSlugAlias.objects.create(paper=Paper.objects.get(slug="other"), slug="scaling-rl-3")
    titles = ["Scaling RL", "Fresh title", "Scaling RL", "Fresh Title", "Scaling RL"]
    slugs = bulk.unique_slugs(titles)
    assert slugs == ["scaling-rl-5", "fresh-title", "scaling-rl-6", "fresh-title-2", "scaling-rl-7"]


# The worker closes its database connections between tasks: the test commits.
@pytest.mark.django_db(transaction=True)
@override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
)
def test_a_big_file_runs_on_the_task_queue_through_the_bulk_path(roles, monkeypatch):
    monkeypatch.setattr(bulk, "BULK_FROM", 10)
    monkeypatch.setattr(runs, "BACKGROUND_FROM", 10)
    seen = []
    monkeypatch.setattr(runs, "bulk_import", spying(runs.bulk_import, seen))
    run, plan = ImportRun.preview(sample(works=20, references=40))
    assert plan is None and run.state == ImportRun.State.CHECKING  # the dry run is queued
    call_command("db_worker", "--batch", "--no-startup-delay")
    run.refresh_from_db()
    assert run.state == ImportRun.State.PREVIEWED and run.counts["create"] == 20
    run.confirm()
    run.refresh_from_db()
    assert run.state == ImportRun.State.QUEUED and not Paper.objects.exists()

    call_command("db_worker", "--batch", "--no-startup-delay")

    run.refresh_from_db()
    assert run.state == ImportRun.State.DONE and run.processed == 21 and run.percent == 100
    assert Paper.objects.count() == 20 and run.counts["create"] == 20
    assert seen == [False, True]  # the dry run, then the apply


def spying(function, seen):
    def spy(*args, apply=False, **kwargs):
        seen.append(apply)
        return function(*args, apply=apply, **kwargs)

    return spy


def test_a_title_too_long_is_cut_and_the_report_says_so(roles):
    work = works_of(sample(works=3, references=2))[0]
    work["title"] = "Scaling " * 80  # 640 characters
    report = bulk_import([("", io.StringIO(json.dumps(work) + "\n"))], apply=True)
    assert len(Paper.objects.get().title) == 500
    assert "cut from 640 to 500 characters" in report.report()


def test_control_characters_are_cleaned_as_on_every_other_write_path(roles):
    """Raw ESC, BEL and BS from a bulk file reached the hub, .bib, .ris and list exports."""
    work = works_of(sample(works=3, references=2))[0]
    work["title"] = "Scaling\x1b[31m RL\x07 with\x08 care"
    work["authorships"][0]["author"]["display_name"] = "Ada\x1b Lovelace"
    work["primary_location"] = {"source": {"display_name": "Venue\x07 of\x1b[0m record"}}
    bulk_import([("", io.StringIO(json.dumps(work) + "\n"))], apply=True)
    paper = Paper.objects.get()
    stored = [
        paper.title,
        paper.venue,
        paper.byline,
        *Author.objects.values_list("name", flat=True),
    ]
    assert not any(ch in value for value in stored for ch in "\x1b\x07\x08\x00"), stored
    assert paper.title == "Scaling[31m RL with care"
    assert "Ada Lovelace" in Author.objects.values_list("name", flat=True)
