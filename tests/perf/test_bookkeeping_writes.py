"""Issue 15 (one save must not empty the whole cache): rows no public page or API answer shows
(the admin's bookkeeping: import runs and their chunks, duplicate scans, merges, references
waiting for their paper, readers' suggestions, draft revisions, the schedule's sweep) leave
the page cache alone; every other model of the editorial apps still makes it stale."""

import pytest
from django.apps import apps

from rlscaling import caching
from rlscaling.publishing.editors import EDITORIAL_APPS
from rlscaling.publishing.schedule import ScheduleSweep
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db

BOOKKEEPING = {
    "citations.CorrectionSuggestion",
    "citations.DuplicateScan",
    "citations.ImportChunk",
    "citations.ImportRun",
    "citations.PaperMerge",
    "citations.PendingCitation",
    "citations.PossibleDuplicatePair",
    "rlscaling.DraftRevision",
    "rlscaling.ScheduleSweep",
}


def test_the_models_no_reader_sees_are_these():
    hidden = {
        model._meta.label
        for model in apps.get_models()
        if model._meta.app_label in EDITORIAL_APPS and not caching.shown_to_readers(model)
    }
    assert hidden == BOOKKEEPING


def test_a_bookkeeping_save_leaves_the_generation_alone():
    generation = caching.current_generation()
    ScheduleSweep.objects.update_or_create(pk=1, defaults={"swept_until": "2026-01-01T00:00Z"})
    assert caching.current_generation() == generation
    PaperFactory()
    assert caching.current_generation() != generation


def test_unsignalled_writes_to_bookkeeping_tables_are_not_editorial():
    tables = caching.editorial_tables()
    assert "citations_importchunk" not in tables and "rlscaling_schedulesweep" not in tables
    assert {"citations_paper", "citations_citation", "citations_paper_layers"} <= tables
