"""An editor pastes a BibTeX entry in the admin, sees the dry run, confirms, and finds the
draft paper with its authors in order (headless Chromium, under the site's CSP)."""

import pytest
from django.core.management import call_command

from citations.importers import runs
from citations.models import CitationRole
from tests.factories import UserFactory
from tests.helpers import IMPORT_FIXTURES, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-import-journey")]

ENTRY = r"""@article{vanderberg2024,
  title  = {Sch{\"o}nheit at Scale: {RL} with Clipping},
  author = {van der Berg, Jan and M{\"u}ller, J{\"o}rg and Smith, Jr., John},
  eprint = {2401.01234v2}, archivePrefix = {arXiv}, year = {2024},
}"""


def test_paste_see_the_dry_run_confirm_and_find_the_draft(transactional_db, live_server, chromium):
    editor = UserFactory(editor=True, username="import-editor")
    CitationRole.objects.get_or_create(slug="background", defaults={"name": "Background"})
    page = sign_in(chromium.new_context(), live_server.url, editor).new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.goto(f"{live_server.url}/admin/citations/importrun/add/")
    page.fill("#id_text", ENTRY)
    page.click("input[type=submit][value='Show the dry run']")
    dry_run = page.locator("#dry-run").inner_text()
    assert "create  line 1 (@article{vanderberg2024})" in dry_run
    assert "Schönheit at Scale: RL with Clipping" in dry_run

    page.click("input[type=submit][value='Confirm the import']")
    assert "Imported. Created 1 paper." in page.locator(".messagelist").inner_text()

    page.goto(f"{live_server.url}/admin/citations/paper/?q=2401.01234")
    page.click("text=Schönheit at Scale: RL with Clipping")
    names = [page.input_value(f"#id_authorships-{i}-name") for i in range(3)]
    assert names == ["Jan van der Berg", "Jörg Müller", "John Smith, Jr."]
    assert page.locator("#id_status").input_value() == "draft"
    assert not problems


# slow (`make test-all`, CI's slow step): a task worker's import, followed
# page by page.
@pytest.mark.slow
def test_a_large_import_follows_its_dry_run_and_its_application(
    transactional_db, live_server, chromium, settings, monkeypatch
):
    """The dry run and, once confirmed, the run's own page refresh themselves while the worker
    works, and end by saying what it did in a sentence."""
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}
    }
    monkeypatch.setattr(runs, "BACKGROUND_FROM", 2)
    editor = UserFactory(editor=True, username="import-editor")
    page = sign_in(chromium.new_context(), live_server.url, editor).new_page()

    page.goto(f"{live_server.url}/admin/citations/importrun/add/")
    page.set_input_files("#id_file", str(IMPORT_FIXTURES / "openalex_works.jsonl"))
    page.click("input[type=submit][value='Show the dry run']")
    assert "running in the background" in page.locator("#dry-run-progress").inner_text()
    call_command("db_worker", "--batch", "--no-startup-delay")
    page.locator("#dry-run").wait_for(timeout=15_000)  # no reload by the test

    page.click("input[type=submit][value='Confirm the import']")
    assert "Queued 4 records for the worker" in page.locator(".messagelist").inner_text()
    assert "This import is queued" in page.locator("#import-progress").inner_text()
    assert "OpenAlex" in page.locator(".field-format_name").inner_text()
    call_command("db_worker", "--batch", "--no-startup-delay")

    outcome = page.locator(".field-outcome .readonly", has_text="Created 3 papers")
    outcome.wait_for(timeout=15_000)  # the page refreshed itself
    assert not page.locator("#import-progress").count()
    assert "{'" not in page.locator("#content").inner_text()
