"""One save must not empty the whole cache: rows no public page or API answer shows (the
admin's bookkeeping: import runs and their chunks, duplicate scans, merges, references waiting
for their paper, readers' suggestions, draft revisions) announce nothing (publishing/signals.py)
and leave the page cache alone; every other model of the editorial apps still makes it stale."""

import pytest
from django.apps import apps

from citations.duplicates import DuplicateScan
from pagecache import caching
from publishing.editors import EDITORIAL_APPS
from publishing.signals import shown_to_readers
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db

BOOKKEEPING = {
    "citations.AuthorMerge",
    "citations.CorrectionSuggestion",
    "citations.DuplicateScan",
    "citations.ImportChunk",
    "citations.ImportRun",
    "citations.PaperMerge",
    "citations.PendingCitation",
    "citations.PossibleDuplicatePair",
    "results.ResultsImportRun",
    "rlscaling.DraftRevision",
}


def test_the_models_no_reader_sees_are_these():
    hidden = {
        model._meta.label
        for model in apps.get_models()
        if model._meta.app_label in EDITORIAL_APPS and not shown_to_readers(model)
    }
    assert hidden == BOOKKEEPING


def test_a_bookkeeping_save_leaves_the_generation_alone():
    generation = caching.current_generation()
    DuplicateScan.objects.create()
    assert caching.current_generation() == generation
    PaperFactory()
    assert caching.current_generation() != generation
