"""An editor pastes a BibTeX entry in the admin, sees the dry run, confirms, and finds the
draft paper with its authors in order (headless Chromium, under the site's CSP)."""

import pytest

from citations.models import CitationRole
from tests.factories import USER_PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

ENTRY = r"""@article{vanderberg2024,
  title  = {Sch{\"o}nheit at Scale: {RL} with Clipping},
  author = {van der Berg, Jan and M{\"u}ller, J{\"o}rg and Smith, Jr., John},
  eprint = {2401.01234v2}, archivePrefix = {arXiv}, year = {2024},
}"""


def test_paste_see_the_dry_run_confirm_and_find_the_draft(transactional_db, live_server, chromium):
    UserFactory(editor=True, username="import-editor")
    CitationRole.objects.get_or_create(slug="background", defaults={"name": "Background"})
    page = chromium.new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "import-editor")
    page.fill("#id_password", USER_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")

    page.goto(f"{live_server.url}/admin/citations/importrun/add/")
    page.fill("#id_text", ENTRY)
    page.click("input[type=submit][value='Show the dry run']")
    dry_run = page.locator("#dry-run").inner_text()
    assert "create  line 1 (@article{vanderberg2024})" in dry_run
    assert "Schönheit at Scale: RL with Clipping" in dry_run

    page.click("input[type=submit][value='Confirm the import']")
    assert "Imported" in page.locator(".messagelist").inner_text()

    page.goto(f"{live_server.url}/admin/citations/paper/?q=2401.01234")
    page.click("text=Schönheit at Scale: RL with Clipping")
    names = [page.input_value(f"#id_authorships-{i}-name") for i in range(3)]
    assert names == ["Jan van der Berg", "Jörg Müller", "John Smith, Jr."]
    assert page.locator("#id_status").input_value() == "draft"
    assert not problems
