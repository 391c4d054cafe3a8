"""Issue 13, point 10: a 639-character title was cut to 500 without a word. An import may still
have to cut what does not fit a column, but the dry run says so, record by record, and a URL
too long to keep whole is left out rather than cut into one that leads nowhere."""

import pytest
from django.core.management import call_command

from citations.importers import make_plan, parse
from citations.models import Paper
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db

LONG_TITLE = "Scaling " + "reinforcement learning " * 27  # 629 characters
LONG_TITLE = LONG_TITLE + "x" * (639 - len(LONG_TITLE))


def bibtex(title=LONG_TITLE, url="https://example.org/paper", author="Ada Lovelace"):
    return (
        "@article{long2025,\n"
        f"  title = {{{title}}},\n"
        f"  author = {{{author}}},\n"
        "  year = {2025},\n"
        f"  url = {{{url}}},\n"
        "}\n"
    )


def test_the_dry_run_reports_a_title_cut_to_the_column(roles):
    assert len(LONG_TITLE) == 639
    plan = make_plan(parse(bibtex()))
    report = plan.report()
    assert "title cut from 639 to 500 characters" in report
    assert plan.as_dict()["papers"][0]["cut"] == ["title cut from 639 to 500 characters"]
    plan.apply()
    assert Paper.objects.get().title == LONG_TITLE[:500]


def test_a_too_long_url_is_left_out_and_reported(roles):
    url = "https://example.org/" + "a" * 600
    plan = make_plan(parse(bibtex(title="Short", url=url)))
    assert f"URL of {len(url)} characters left out (at most 500)" in plan.report()
    plan.apply()
    assert Paper.objects.get().url == ""


def test_a_too_long_author_name_is_reported(roles):
    plan = make_plan(parse(bibtex(title="Short", author="A" * 250)))
    assert "1 author name(s) cut to 200 characters (the longest had 250)" in plan.report()
    plan.apply()
    assert Paper.objects.get().author_names == ["A" * 200]


def test_nothing_is_reported_when_everything_fits(roles):
    plan = make_plan(parse(bibtex(title="Short")))
    assert "cut" not in plan.report()
    assert plan.as_dict()["papers"][0]["cut"] == []


def test_a_matched_paper_keeps_its_title_and_no_cut_is_reported(roles):
    PaperFactory(title="Editors' title", doi="10.1234/long")
    text = bibtex().replace("  year", "  doi = {10.1234/long},\n  year")
    plan = make_plan(parse(text))
    assert plan.papers[0].action != "create"
    assert "title cut" not in plan.report()


def test_the_command_prints_the_cut_in_its_dry_run(roles, tmp_path, capsys):
    path = tmp_path / "long.bib"
    path.write_text(bibtex())
    call_command("import_papers", str(path))
    out = capsys.readouterr().out
    assert "title cut from 639 to 500 characters" in out
    assert Paper.objects.count() == 0
