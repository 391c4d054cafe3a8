"""The versioned public dump: export_dump writes a dated, documented, checksummed
archive of the public content only; import_dump loads it into an empty database with the same
counts (run on SQLite and, with DATABASE_URL, PostgreSQL); /data/dump/latest.zip serves it."""

import csv
import hashlib
import io
import zipfile

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from citations.models import Citation, Paper
from tags.models import Tag
from tests.factories import PaperFactory, UserFactory
from tests.results.factories import ResultFactory, SeriesFactory
from web.dump import latest_dump, tables

pytestmark = pytest.mark.django_db


def public_counts():
    return {name: queryset.count() for name, queryset in tables()}


def empty_the_database():
    for _, queryset in reversed(tables()):
        queryset.model._base_manager.all().delete()
    Tag.objects.all().delete()


def test_the_dump_round_trips_into_an_empty_database(demo, tmp_path):
    PaperFactory(title="A draft that stays out", draft=True)
    expected = public_counts()
    assert expected["papers"] and expected["citations"] and expected["notes"]
    call_command("export_dump", output=str(tmp_path), verbosity=0)
    (archive,) = tmp_path.glob("rlscaling-dump-*.zip")
    empty_the_database()
    assert Paper.objects.count() == Citation.objects.count() == 0
    call_command("import_dump", str(archive), verbosity=0)
    assert {name: qs.model._base_manager.count() for name, qs in tables()} == expected
    assert public_counts() == expected
    assert not Paper.objects.filter(title="A draft that stays out").exists()
    # The loaded content is live: hubs answer, with their citing counts recounted.
    hub = Paper.objects.filter(citations_received__isnull=False).first()
    assert Client().get(hub.get_absolute_url()).status_code == 200
    assert hub.citation_count.total == Citation.objects.public().filter(cited_paper=hub).count()


def test_the_archive_is_documented_checksummed_and_public_only(demo, tmp_path):
    draft = Paper.objects.first()
    Paper.objects.filter(pk=draft.pk).update(status="draft")
    call_command("export_dump", output=str(tmp_path), verbosity=0)
    path = next(tmp_path.glob("rlscaling-dump-*.zip"))
    sidecar = path.with_name(path.name + ".sha256").read_text().split()[0]
    assert sidecar == hashlib.sha256(path.read_bytes()).hexdigest()
    with zipfile.ZipFile(path) as archive:
        root = archive.namelist()[0].split("/")[0]
        names = {name.split("/", 1)[1] for name in archive.namelist()}
        assert {"README.md", "LICENSE.txt", "SHA256SUMS", "csv/edges.csv"} <= names
        for table in ("papers", "authors", "citations", "notes", "claims", "layers"):
            assert f"jsonl/{table}.jsonl" in names and f"csv/{table}.csv" in names
        sums = archive.read(f"{root}/SHA256SUMS").decode().splitlines()
        for line in sums:
            digest, name = line.split("  ")
            assert hashlib.sha256(archive.read(f"{root}/{name}")).hexdigest() == digest
        readme = archive.read(f"{root}/README.md").decode()
        assert "CC BY 4.0" in readme and "edges.csv" in readme
        papers = archive.read(f"{root}/jsonl/papers.jsonl").decode()
        assert draft.slug not in papers
        edges = list(csv.DictReader(io.StringIO(archive.read(f"{root}/csv/edges.csv").decode())))
        assert len(edges) == Citation.objects.public().count()
        assert set(edges[0]) == {
            "citing_paper",
            "cited_paper",
            "role",
            "polarity",
            "source",
            "context",
        }
        assert "classified_by" not in archive.read(f"{root}/jsonl/citations.jsonl").decode()


def test_a_tampered_archive_is_refused(demo_archive, tmp_path):
    path = demo_archive
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(bad, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith("papers.jsonl"):
                data = data.replace(b"Scaling", b"Scalinh", 1)
            target.writestr(name, data)
    from django.core.management.base import CommandError

    empty_the_database()
    with pytest.raises(CommandError, match="checksum"):
        call_command("import_dump", str(bad))


def test_the_latest_dump_has_a_stable_address(demo, tmp_path):
    with override_settings(DUMP_DIR=tmp_path):
        assert Client().get("/data/dump/latest.zip").status_code == 404
        call_command("export_dump", verbosity=0)
        response = Client().get("/data/dump/latest.zip")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        body = b"".join(response.streaming_content)
        assert hashlib.sha256(body).hexdigest() == response["X-Checksum-SHA256"]
        assert latest_dump().name in response["Content-Disposition"]


def test_the_task_queue_regenerates_the_dump_daily(demo, tmp_path):
    from django_tasks_db.models import DBTaskResult

    from web.dump_tasks import regenerate_dump

    with override_settings(DUMP_DIR=tmp_path):
        regenerate_dump.call()
        assert latest_dump() is not None
        queued = DBTaskResult.objects.filter(task_path__endswith="regenerate_dump")
        assert queued.count() == 1 and queued.get().run_after is not None


def test_the_dump_answers_conditional_and_range_requests(demo, tmp_path):
    """Mirrors and resumed downloads: an ETag (the archive's SHA-256), a 304 for it, and one
    byte range at a time."""
    with override_settings(DUMP_DIR=tmp_path):
        call_command("export_dump", verbosity=0)
        url = "/data/dump/latest.zip"
        full = Client().get(url)
        body = b"".join(full.streaming_content)
        assert full["ETag"] == f'"{full["X-Checksum-SHA256"]}"'
        assert full["Accept-Ranges"] == "bytes"
        assert Client().get(url, HTTP_IF_NONE_MATCH=full["ETag"]).status_code == 304

        part = Client().get(url, HTTP_RANGE="bytes=10-19")
        assert part.status_code == 206
        assert part["Content-Range"] == f"bytes 10-19/{len(body)}"
        assert b"".join(part.streaming_content) == body[10:20]
        tail = Client().get(url, HTTP_RANGE="bytes=-5")
        assert b"".join(tail.streaming_content) == body[-5:]
        unsatisfiable = Client().get(url, HTTP_RANGE=f"bytes={len(body) + 10}-")
        assert unsatisfiable.status_code == 416
        assert unsatisfiable["Content-Range"] == f"bytes */{len(body)}"
        backwards = Client().get(url, HTTP_RANGE="bytes=9-0")  # invalid: ignored
        assert backwards.status_code == 200
        b"".join(backwards.streaming_content)
        # A range for another version of the file is ignored: the whole current one comes back.
        stale = Client().get(url, HTTP_RANGE="bytes=0-9", HTTP_IF_RANGE='"other"')
        assert stale.status_code == 200
        b"".join(stale.streaming_content)


def test_results_and_fits_ship_public_only_and_without_editors(demo, tmp_path):
    """Evidence as data is in the dump: benchmarks, series, their points and fits, typed;
    a draft series and its points stay out, and who entered or checked a series (an editor's
    account) is not shipped."""
    from results.models import Result
    from results.tasks import refit

    editor = UserFactory(username="typing-editor")
    public = SeriesFactory(name="Public run", entered_by=editor, checked_by=editor)
    for compute in (10.0, 100.0, 1000.0, 10000.0, 100000.0, 1000000.0):
        ResultFactory(series=public, compute_reported=compute, value=compute**0.1)
    refit(public)
    secret = SeriesFactory(name="Secret run", draft=True)
    ResultFactory(series=secret, value=99.125)
    call_command("export_dump", output=str(tmp_path), verbosity=0)
    path = next(tmp_path.glob("rlscaling-dump-*.zip"))
    with zipfile.ZipFile(path) as archive:
        root = archive.namelist()[0].split("/")[0]

        def read(name):
            return archive.read(f"{root}/{name}").decode()

        assert "Public run" in read("jsonl/series.jsonl")
        assert "Secret run" not in read("jsonl/series.jsonl")
        assert "typing-editor" not in read("jsonl/series.jsonl")
        assert "entered_by" not in read("csv/series.csv").splitlines()[0]
        points = list(csv.DictReader(io.StringIO(read("csv/results.csv"))))
        assert len(points) == Result.objects.public().count()
        assert "99.125" not in read("csv/results.csv")
        assert "sigmoid" in read("csv/fits.csv")
        package = read("datapackage.json")
        for table in ("benchmarks", "series", "results", "fits"):
            assert f'"csv/{table}.csv"' in package
        assert "results.csv" in read("README.md")
