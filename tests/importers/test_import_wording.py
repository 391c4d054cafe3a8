"""What an import says to editors: sentences and the format's name, never a raw dict, list,
None or "-" (the admin's messages and run pages, the API's answers, the reports, the command);
and the run's page follows its progress until it is done."""

import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from citations.importers import FORMAT_NAMES, FORMATS
from citations.importers.runs import ImportRun
from citations.importers.wording import counts_in_words
from tests.helpers import fixture_text

pytestmark = pytest.mark.django_db

ENTRY = """@article{khatri2025art,
  title  = {The {Art} of Scaling Reinforcement Learning Compute for {LLMs}},
  author = {Khatri, Devvrit and Madaan, Lovish and Tiwari, Rishabh},
  eprint = {2510.13786}, archivePrefix = {arXiv}, year = {2025},
}"""

RAW = re.compile(r"\{'|\['|\bNone\b|>\s*-\s*<")


@pytest.mark.parametrize(
    ("counts", "applied", "words"),
    [
        ({"create": 4, "update": 1}, True, "Created 4 papers and updated 1."),
        ({"create": 1}, False, "Would create 1 paper."),
        ({"edge create": 2, "edge pending": 1}, True, "Created 2 citation edges. 1 citation edge"),
        ({}, True, "Nothing was changed."),
        ({}, False, "Nothing would change."),
    ],
)
def test_counts_in_words(counts, applied, words):
    assert counts_in_words(counts, applied).startswith(words)


def readonly_values(page):
    return re.findall(r'<div class="readonly">(.*?)</div>', page, re.S)


def test_the_admin_says_what_an_import_did_in_sentences(editor_client, roles):
    response = editor_client.post("/admin/citations/importrun/add/", {"text": ENTRY})
    confirm = response["Location"]
    page = editor_client.get(confirm).content.decode()
    assert "1 paper, 0 edges: Would create 1 paper." in page

    response = editor_client.post(confirm, follow=True)

    messages = [str(message) for message in response.context["messages"]]
    assert messages == ["Imported. Created 1 paper."]
    page = response.content.decode()
    values = readonly_values(page)
    assert "BibTeX" in values
    assert "Created 1 paper." in values
    assert not [value for value in values if RAW.search(f">{value}<")], values
    assert "1 paper, 0 edges: Created 1 paper." in page  # the final report
    assert 'http-equiv="refresh"' not in page  # done: nothing left to follow
    run = ImportRun.objects.get()
    changelist = editor_client.get("/admin/citations/importrun/").content.decode()
    assert "Created 1 paper." in changelist and "{'" not in changelist
    assert run.format == "bibtex"


@pytest.mark.parametrize("state", ["queued", "running", "checking"])
def test_a_run_in_progress_refreshes_its_page(editor_client, state):
    run = ImportRun.objects.create(name="works.jsonl", state=state, records=10, processed=4)
    page = editor_client.get(f"/admin/citations/importrun/{run.pk}/change/").content.decode()
    assert 'http-equiv="refresh"' in page
    assert "4 of 10 records (40%)" in page
    assert not [value for value in readonly_values(page) if RAW.search(f">{value}<")]


def test_the_api_names_the_format_and_says_what_it_did(editor, roles):
    api = APIClient()
    api.force_authenticate(editor)
    response = api.post("/api/v1/imports/", {"text": ENTRY}, format="json")
    body = response.json()
    assert (body["format"], body["format_name"]) == ("bibtex", "BibTeX")
    assert body["summary"] == "Would create 1 paper."
    body = api.post(body["url"]).json()
    assert body["summary"] == "Created 1 paper."
    assert body["report"].startswith("1 paper, 0 edges: Created 1 paper.")


def test_the_command_says_what_it_did_in_sentences(roles, capsys, tmp_path):
    source = tmp_path / "one.bib"
    source.write_text(ENTRY)
    call_command("import_papers", str(source), "--batch-size", "10", "--apply")
    out = capsys.readouterr().out
    assert "Created 1 paper." in out and "Total: Created 1 paper." in out
    assert "{" not in out.replace("{Art}", "").replace("{LLMs}", "")


def test_a_guessed_format_is_named_once_the_dry_run_read_it(roles):
    run, _ = ImportRun.preview(fixture_text("openalex_works.jsonl"), name="works.jsonl")
    assert run.dry_run.startswith("3 papers, 4 edges: Would create 3 papers. Would create 3")
    assert (run.format, run.format_name) == ("openalex", "OpenAlex")


def test_every_format_has_the_name_editors_know_it_by():
    assert set(FORMATS) | {"arxiv-ids"} == set(FORMAT_NAMES)
