import pytest
from django.core.management import CommandError, call_command

from citations.models import Citation, Paper
from tests.helpers import IMPORT_FIXTURES

pytestmark = pytest.mark.django_db


def test_dry_run_by_default(roles, capsys):
    call_command("import_papers", str(IMPORT_FIXTURES / "papers.bib"))
    out = capsys.readouterr().out
    assert "create  line 2 (@article{khatri2025art})" in out
    assert "Dry run: nothing written" in out
    assert Paper.objects.count() == 0


def test_apply_writes_and_a_second_run_is_all_skips(roles, capsys):
    paths = [str(IMPORT_FIXTURES / name) for name in ("papers.bib", "s2_paper.json")]
    call_command("import_papers", *paths, "--apply")
    count = Paper.objects.count()
    assert count == 8  # 4 in the BibTeX file, 4 more citing papers from Semantic Scholar
    capsys.readouterr()
    call_command("import_papers", *paths, "--apply")
    out = capsys.readouterr().out
    assert "create" not in out and "update" not in out
    assert Paper.objects.count() == count


def test_format_can_be_forced(roles, capsys):
    with pytest.raises(CommandError, match="not an OpenAlex work"):
        call_command("import_papers", str(IMPORT_FIXTURES / "zotero.json"), "--format", "openalex")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("broken.bib", r"broken\.bib: line 7: BibTeX '@article\{broken2024,'"),
        ("broken.jsonl", r"broken\.jsonl: line 2: not valid JSON"),
        ("missing.bib", r"missing\.bib: No such file"),
    ],
)
def test_a_bad_file_fails_naming_the_record_and_writes_nothing(roles, name, message):
    with pytest.raises(CommandError, match=message):
        call_command(
            "import_papers",
            str(IMPORT_FIXTURES / "papers.bib"),
            str(IMPORT_FIXTURES / name),
            "--apply",
        )
    assert Paper.objects.count() == 0


# slow (`make test-all`, CI's slow step): manage.py in a subprocess, for its exit status.
@pytest.mark.slow
def test_exit_status_is_non_zero(roles, tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "manage.py", "import_papers", str(IMPORT_FIXTURES / "broken.bib")],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DATABASE_URL": "sqlite:///" + str(tmp_path / "x.db")},
    )
    assert result.returncode != 0
    assert "line 7" in result.stderr


def test_batches_stream_a_jsonl_file_to_the_same_result(roles, capsys):
    call_command("import_papers", str(IMPORT_FIXTURES / "openalex_works.jsonl"), "--apply")
    whole = sorted(Paper.objects.values_list("title", "arxiv_id"))
    edges = sorted(Citation.objects.values_list("citing_paper__title", "cited_paper__title"))
    Paper.objects.all().delete()
    capsys.readouterr()

    call_command(
        "import_papers",
        str(IMPORT_FIXTURES / "openalex_works.jsonl"),
        "--apply",
        "--batch-size",
        "1",
    )
    out = capsys.readouterr().out
    assert "batch 4: 1 records" in out
    assert sorted(Paper.objects.values_list("title", "arxiv_id")) == whole
    assert (
        sorted(Citation.objects.values_list("citing_paper__title", "cited_paper__title")) == edges
    )


def test_a_bad_line_in_a_streamed_file_is_named(roles):
    with pytest.raises(CommandError, match=r"broken\.jsonl: line 2: not valid JSON"):
        call_command("import_papers", str(IMPORT_FIXTURES / "broken.jsonl"), "--batch-size", "10")


def test_an_applied_import_makes_cached_pages_stale(roles, django_capture_on_commit_callbacks):
    """Issue 11, point 6: importers write in bulk; the page cache is told once they commit."""
    from pagecache.caching import current_generation

    before = current_generation()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_papers", str(IMPORT_FIXTURES / "papers.bib"), "--apply")
    assert current_generation() != before
