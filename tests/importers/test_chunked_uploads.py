"""Uploads through the admin and the API are stored in the shared database in chunks, read in
pieces on the way in and one chunk at a time by the worker, and import exactly as the command
imports the same file from disk."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from citations.importers import bulk, runs
from citations.importers.runs import ImportChunk, ImportRun
from citations.models import Paper
from tests.importers.test_bulk import sample, snapshot, wipe

URL = "/api/v1/imports/"
CHUNK = 700  # characters: a few OpenAlex lines, so lines straddle chunks
pytestmark = pytest.mark.django_db


def on_the_queue(test):
    """The worker closes its database connections between tasks: such tests commit."""
    backend = {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}
    return pytest.mark.django_db(transaction=True)(
        override_settings(TASKS={"default": backend})(test)
    )


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(runs, "CHUNK_CHARS", CHUNK)
    monkeypatch.setattr(runs, "READ_BYTES", 256)
    monkeypatch.setattr(bulk, "BULK_FROM", 10)
    monkeypatch.setattr(runs, "BACKGROUND_FROM", 10)


@pytest.fixture
def api(editor):
    # Logged in, not force_authenticate: the middleware must see an editor, or it sets the
    # anonymous statement timeout on the connection, which the committing tests keep.
    client = APIClient()
    client.force_login(editor)
    return client


def work_the_queue():
    call_command("db_worker", "--batch", "--no-startup-delay")


def upload(text, name="works.jsonl"):
    return SimpleUploadedFile(name, text.encode() if isinstance(text, str) else text)


@on_the_queue
def test_an_upload_is_stored_in_chunks_and_imported_as_the_command_imports_it(
    api, roles, small_pieces, tmp_path
):
    text = sample(works=20, references=40)
    path = tmp_path / "works.jsonl"
    path.write_text(text)
    call_command("import_papers", str(path), "--apply", stdout=io.StringIO())
    from_the_command = snapshot()
    assert len(from_the_command[0]) == 20 and from_the_command[1]
    wipe()

    response = api.post(URL, {"file": upload(text), "apply": "true"}, format="multipart")
    assert response.status_code == 202, response.json()
    run = ImportRun.objects.get(pk=response.json()["id"])
    assert run.state == ImportRun.State.QUEUED and run.size == len(text)
    chunks = list(ImportChunk.objects.filter(run=run).order_by("number"))
    assert len(chunks) == -(-len(text) // CHUNK) > 3
    assert [c.number for c in chunks] == list(range(1, len(chunks) + 1))
    assert all(len(c.text) <= CHUNK for c in chunks) and "".join(c.text for c in chunks) == text
    assert list(run.lines()) == text.splitlines(keepends=True)
    assert not Paper.objects.exists()

    work_the_queue()

    run.refresh_from_db()
    assert run.state == ImportRun.State.DONE, run.report
    assert "applied" in run.report and run.processed == 21
    assert snapshot() == from_the_command


@on_the_queue
def test_the_admin_upload_is_dry_run_on_the_queue_from_its_chunks(
    editor_client, roles, small_pieces, monkeypatch
):
    seen = []
    original = runs.bulk_import

    def spy(sources, **kwargs):
        seen.append(kwargs["apply"])
        return original(sources, **kwargs)

    monkeypatch.setattr(runs, "bulk_import", spy)
    text = sample(works=20, references=40)
    response = editor_client.post("/admin/citations/importrun/add/", {"file": upload(text)})
    run = ImportRun.objects.get()
    assert response["Location"].endswith(f"/importrun/{run.pk}/confirm/")
    assert run.state == ImportRun.State.CHECKING and run.records == 21 and seen == []
    assert ImportChunk.objects.filter(run=run).count() > 3

    work_the_queue()

    run.refresh_from_db()
    assert run.state == ImportRun.State.PREVIEWED and seen == [False]
    assert run.counts["create"] == 20 and "dry run (rolled back)" in run.dry_run
    assert not Paper.objects.exists()
    editor_client.post(response["Location"])
    work_the_queue()
    run.refresh_from_db()
    assert run.state == ImportRun.State.DONE and seen == [False, True]
    assert Paper.objects.count() == 20


@on_the_queue
@pytest.mark.parametrize("apply", [False, True])
def test_a_bad_line_in_a_big_upload_fails_the_run_naming_it_and_writes_nothing(
    api, roles, small_pieces, apply
):
    text = sample(works=20, references=40) + "{not json}\n"
    response = api.post(URL, {"file": upload(text), "apply": apply}, format="multipart")
    assert response.status_code == 202
    run = ImportRun.objects.get()

    work_the_queue()

    run.refresh_from_db()
    assert run.state == ImportRun.State.FAILED
    assert "line 22: not valid JSON" in run.report
    assert not Paper.objects.exists()
    detail = api.get(response.json()["url"]).json()
    assert detail["state"] == "failed" and "line 22" in detail["report"]


def test_a_small_upload_is_dry_run_at_once(api, roles, small_pieces):
    text = sample(works=5, references=5)
    response = api.post(URL, {"file": upload(text)}, format="multipart")
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "previewed" and body["plan"]["counts"]["create"] == 5
    assert ImportChunk.objects.filter(run_id=body["id"]).count() > 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        # The bad byte comes after several pieces were read and stored: all of it goes.
        (b'{"id": "https://openalex.org/W1"}\n' * 40 + b"\xff\n", "not UTF-8 text"),
        (b'{"id": "https://openalex.org/W1"}\n' * 3 + b"\x00\n", "line 4: a NUL character"),
        (b"", "empty"),
    ],
)
def test_a_file_that_is_no_text_is_refused_and_nothing_is_stored(
    api, editor_client, small_pieces, content, message
):
    response = api.post(URL, {"file": upload(content)}, format="multipart")
    assert response.status_code == 400
    assert message in " ".join(response.json()["errors"]["file"])
    page = editor_client.post("/admin/citations/importrun/add/", {"file": upload(content)})
    assert page.status_code == 200
    assert not ImportRun.objects.exists() and not ImportChunk.objects.exists()


def test_readers_see_and_confirm_no_run(client, reader, editor, small_pieces):
    run, _ = ImportRun.preview("2510.13786\n", user=editor)
    client.force_login(reader)
    assert client.get(f"/admin/citations/importrun/{run.pk}/confirm/").status_code in (302, 403)
    assert client.post(f"/admin/citations/importrun/{run.pk}/confirm/").status_code in (302, 403)
    api = APIClient()
    assert api.get(f"{URL}{run.pk}/").status_code == 401
    api.force_authenticate(reader)
    assert api.get(f"{URL}{run.pk}/").status_code == 403
    assert api.post(f"{URL}{run.pk}/").status_code == 403
    run.refresh_from_db()
    assert run.state == ImportRun.State.PREVIEWED and not Paper.objects.exists()


def many_records(format, count):
    """A text of `count` records in `format`, each tiny: what costs is the number of records
    (a lookup each), not the size of the text."""
    if format == "arxiv-ids":
        return "".join(f"2501.{n:05d}\n" for n in range(1, count + 1))
    if format == "bibtex":
        return "".join(f"@misc{{k{n}, title={{Paper {n}}}}}\n" for n in range(count))
    if format == "ris":
        return "".join(f"TY  - GEN\nTI  - Paper {n}\nER  - \n" for n in range(count))
    if format == "arxiv":
        entries = "".join(
            f"<entry><id>http://arxiv.org/abs/2501.{n:05d}v1</id><title>P {n}</title></entry>"
            for n in range(1, count + 1)
        )
        return f'<feed xmlns="http://www.w3.org/2005/Atom">{entries}</feed>'
    return "[" + ",".join(f'{{"type": "article", "title": "P {n}"}}' for n in range(count)) + "]"


@on_the_queue
@pytest.mark.parametrize("format", ["arxiv-ids", "bibtex", "arxiv", "csl"])
def test_a_short_text_of_many_records_is_dry_run_on_the_queue(roles, monkeypatch, format):
    """A list of thousands of arXiv ids is a few KB but thousands of lookups: whether a dry run
    leaves the request depends on the records a text holds, in every format, not on its size
    alone."""
    monkeypatch.setattr(runs, "BACKGROUND_FROM", 10)
    text = many_records(format, 11)
    run, plan = ImportRun.preview(text)
    assert plan is None
    assert run.state == ImportRun.State.CHECKING and run.task_id
    small, plan = ImportRun.preview(many_records(format, 3))
    assert plan is not None and small.state == ImportRun.State.PREVIEWED
