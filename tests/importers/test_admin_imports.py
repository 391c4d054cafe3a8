"""The admin: paste or upload, see the dry run, confirm; large files on the task queue;
possible duplicates and merges."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings

from citations.duplicates import store_possible_duplicates
from citations.identity import PaperMerge
from citations.importers import runs
from citations.importers.runs import ImportRun
from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import IMPORT_FIXTURES, fixture_text

pytestmark = pytest.mark.django_db

ENTRY = """@article{khatri2025art,
  title  = {The {Art} of Scaling Reinforcement Learning Compute for {LLMs}},
  author = {Khatri, Devvrit and Madaan, Lovish and Tiwari, Rishabh},
  eprint = {2510.13786}, archivePrefix = {arXiv}, year = {2025},
}"""


def test_paste_dry_run_confirm(editor_client, roles):
    response = editor_client.post("/admin/citations/importrun/add/", {"text": ENTRY})
    assert response.status_code == 302
    confirm = editor_client.get(response["Location"])
    assert "create  line 1 (@article{khatri2025art})" in confirm.content.decode()
    assert Paper.objects.count() == 0

    response = editor_client.post(response["Location"])
    assert response.status_code == 302
    paper = Paper.objects.get(arxiv_id="2510.13786")
    assert paper.status == "draft"
    assert paper.author_names == ["Devvrit Khatri", "Lovish Madaan", "Rishabh Tiwari"]
    run = ImportRun.objects.get()
    assert run.state == ImportRun.State.DONE and run.counts == {"create": 1}
    # A confirmed run cannot be applied twice.
    editor_client.post(f"/admin/citations/importrun/{run.pk}/confirm/")
    assert Paper.objects.count() == 1


def test_upload_a_file(editor_client, roles):
    upload = SimpleUploadedFile(
        "works.jsonl", (IMPORT_FIXTURES / "openalex_works.jsonl").read_bytes()
    )
    response = editor_client.post("/admin/citations/importrun/add/", {"file": upload})
    run = ImportRun.objects.get()
    assert response["Location"].endswith(f"/importrun/{run.pk}/confirm/")
    assert run.name == "works.jsonl" and run.records == 4


def test_a_bad_paste_shows_the_error_and_writes_nothing(editor_client):
    response = editor_client.post(
        "/admin/citations/importrun/add/", {"text": fixture_text("broken.bib")}
    )
    assert response.status_code == 200
    assert "line 7: BibTeX" in response.content.decode()
    assert not ImportRun.objects.exists() and not Paper.objects.exists()


def test_readers_cannot_import(client, reader):
    client.force_login(reader)
    response = client.post("/admin/citations/importrun/add/", {"text": ENTRY})
    assert response.status_code in (302, 403)
    assert not Paper.objects.exists()


# The worker closes its database connections between tasks, as a real one must: the test
# commits instead of rolling back a transaction.
@pytest.mark.django_db(transaction=True)
@override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
)
def test_a_large_file_is_dry_run_and_applied_on_the_task_queue(editor_client, roles, monkeypatch):
    monkeypatch.setattr(runs, "BACKGROUND_FROM", 2)
    monkeypatch.setattr(runs, "BATCH_SIZE", 2)
    upload = SimpleUploadedFile("works.jsonl", fixture_text("openalex_works.jsonl").encode())
    response = editor_client.post("/admin/citations/importrun/add/", {"file": upload})
    run = ImportRun.objects.get()
    assert response["Location"].endswith(f"/importrun/{run.pk}/confirm/")
    # The request answered before any dry run: the worker makes it.
    assert run.state == ImportRun.State.CHECKING and run.task_id and not run.dry_run
    page = editor_client.get(response["Location"]).content.decode()
    assert "is running in the background" in page and 'http-equiv="refresh"' in page
    assert "Confirm the import" not in page
    confirming_too_early = editor_client.post(response["Location"])
    assert confirming_too_early.status_code == 302
    run.refresh_from_db()
    assert run.state == ImportRun.State.CHECKING

    call_command("db_worker", "--batch", "--no-startup-delay")

    run.refresh_from_db()
    assert run.state == ImportRun.State.PREVIEWED and run.records == 4
    assert run.counts["create"] == 3 and not Paper.objects.exists()
    page = editor_client.get(response["Location"]).content.decode()
    assert "create  line 1" in page and "Confirm the import" in page
    assert 'http-equiv="refresh"' not in page

    editor_client.post(response["Location"])
    run.refresh_from_db()
    assert run.state == ImportRun.State.QUEUED and not Paper.objects.exists()

    call_command("db_worker", "--batch", "--no-startup-delay")

    run.refresh_from_db()
    assert run.state == ImportRun.State.DONE and run.percent == 100
    assert Paper.objects.count() == 3
    page = editor_client.get("/admin/citations/importrun/")
    assert '<progress max="100" value="100">' in page.content.decode()


def test_duplicates_list_and_merge(editor_client):
    keep = PaperFactory(
        title="Proximal Policy Optimization Algorithms", slug="ppo", publication_date=None
    )
    other = PaperFactory(
        title="Proximal policy optimization algorithms.", slug="ppo-2", publication_date=None
    )
    store_possible_duplicates()  # the scan the task queue runs when papers changed
    page = editor_client.get("/admin/citations/papermerge/duplicates/")
    assert "same title" in page.content.decode()
    response = editor_client.post(
        "/admin/citations/papermerge/duplicates/", {"keep": keep.pk, "other": other.pk}
    )
    assert response.status_code == 302
    assert not Paper.objects.filter(pk=other.pk).exists()
    merge = PaperMerge.objects.get()
    editor_client.post(
        "/admin/citations/papermerge/",
        {"action": "undo", "_selected_action": [merge.pk]},
    )
    assert Paper.objects.filter(slug="ppo-2").exists()
