"""Every history reason fits simple-history's 100-character column (cut with an ellipsis by
one helper), and an import run reports a sentence, never a raw database error."""

import pytest
from django.db import IntegrityError
from django.urls import reverse

from citations.identity import PaperIdentifier
from citations.importers.runs import ImportRun
from citations.merging import merge_papers, undo_merge
from citations.models import Paper
from publishing.history import HISTORY_REASON_LENGTH, fit_change_reason
from tests.factories import PaperFactory
from tests.helpers import fixture_text

pytestmark = pytest.mark.django_db

LONG = "the-art-of-scaling-reinforcement-learning-compute-for-large-language-models-a-study"


def test_the_helper_cuts_with_an_ellipsis_and_keeps_short_reasons():
    assert fit_change_reason("Typo") == "Typo"
    assert fit_change_reason(None) is None
    cut = fit_change_reason("x" * 150)
    assert len(cut) == HISTORY_REASON_LENGTH and cut.endswith("…")


def test_any_save_with_a_long_reason_is_recorded_cut():
    paper = PaperFactory()
    paper._change_reason = "A reason " * 30
    paper.save()
    reason = paper.history.first().history_change_reason
    assert len(reason) <= HISTORY_REASON_LENGTH and reason.endswith("…")


def test_merging_papers_with_long_slugs_keeps_a_reason_that_fits():
    keep = PaperFactory(slug=LONG, title="Scaling study")
    other = PaperFactory(slug=LONG + "-copy", title="Scaling study.")
    merge = merge_papers(keep, other, reason="a long explanation " * 5)
    keep.refresh_from_db()
    assert len(keep.history.first().history_change_reason) <= HISTORY_REASON_LENGTH
    undo_merge(merge)
    assert len(keep.history.first().history_change_reason) <= HISTORY_REASON_LENGTH


def test_keep_the_first_on_possible_duplicates_with_long_slugs(editor_client):
    keep = PaperFactory(slug=LONG, title="Scaling study")
    other = PaperFactory(slug=LONG + "-duplicate-entry", title="Scaling study.")
    response = editor_client.post(
        reverse("admin:citations_paper_duplicates"), {"keep": keep.pk, "other": other.pk}
    )
    assert response.status_code == 302
    assert not Paper.objects.filter(pk=other.pk).exists()
    reason = keep.history.first().history_change_reason
    # SQLite does not enforce the column's length; PostgreSQL refused the save (a 500).
    assert reason.startswith(f"Merged {LONG}-dup") and len(reason) <= HISTORY_REASON_LENGTH


def test_an_import_that_merges_papers_with_long_slugs(editor_client, editor):
    by_arxiv = PaperFactory(title="ScaleRL (arXiv)", slug=LONG, arxiv_id="2510.13786")
    by_openalex = PaperFactory(title="ScaleRL (OpenAlex)", slug=LONG + "-openalex", arxiv_id="")
    PaperIdentifier.objects.create(paper=by_openalex, scheme="openalex", value="W4403100001")
    run, _ = ImportRun.preview(fixture_text("openalex_works.jsonl"), user=editor)
    response = editor_client.post(reverse("admin:citations_importrun_confirm", args=[run.pk]))
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.state == ImportRun.State.DONE, run.report
    assert not Paper.objects.filter(pk=by_openalex.pk).exists()
    assert by_arxiv.slug_aliases.filter(slug=LONG + "-openalex").exists()
    reasons = by_arxiv.history.values_list("history_change_reason", flat=True)
    assert all(len(reason or "") <= HISTORY_REASON_LENGTH for reason in reasons)


def test_an_import_run_reports_a_sentence_not_a_database_error(editor_client, editor, monkeypatch):
    from citations.importers import apply as applier

    def refused(*args, **kwargs):
        raise IntegrityError(
            'duplicate key value violates unique constraint "citations_paper_slug"'
        )

    monkeypatch.setattr(applier, "create_paper", refused)
    run, _ = ImportRun.preview(fixture_text("papers.bib"), user=editor)
    response = editor_client.post(reverse("admin:citations_importrun_confirm", args=[run.pk]))
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.state == ImportRun.State.FAILED
    assert "IntegrityError" not in run.report and "constraint" not in run.report
    assert "nothing was imported" in run.report.lower()
    assert Paper.objects.count() == 0
