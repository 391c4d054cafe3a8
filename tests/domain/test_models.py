import pytest
from django.db import IntegrityError, transaction

from citations.models import Citation, Paper
from notes.models import ResearchNote
from publishing.models import Status
from tests.factories import CitationFactory, PaperFactory, ResearchNoteFactory

pytestmark = pytest.mark.django_db


def test_duplicate_citation_edge_is_rejected_by_the_database():
    edge = CitationFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Citation.objects.create(citing_paper=edge.citing_paper, cited_paper=edge.cited_paper)
    assert Citation.objects.count() == 1


def test_self_citation_is_rejected_by_the_database():
    paper = PaperFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Citation.objects.create(citing_paper=paper, cited_paper=paper)
    assert Citation.objects.count() == 0


def test_published_hides_drafts_and_scheduled_rows():
    from django.utils import timezone

    visible = PaperFactory()
    PaperFactory(draft=True)
    PaperFactory(published_at=timezone.now() + timezone.timedelta(days=3))
    assert list(Paper.objects.published()) == [visible]


def test_published_is_shared_by_every_editorial_model():
    ResearchNoteFactory(draft=True)
    note = ResearchNoteFactory()
    assert list(ResearchNote.objects.published()) == [note]
    assert list(ResearchNote.objects.drafts()) != [note]


def test_publishing_sets_published_at_and_each_save_bumps_the_version():
    paper = PaperFactory(draft=True)
    assert paper.published_at is None and paper.version == 1
    paper.status = Status.PUBLISHED
    paper.save()
    assert paper.published_at is not None
    assert paper.version == 2
    assert paper.is_published


def test_bulk_publish_and_unpublish():
    drafts = PaperFactory.create_batch(3, draft=True)
    assert Paper.objects.filter(pk__in=[p.pk for p in drafts]).publish() == 3
    assert Paper.objects.published().count() == 3
    Paper.objects.all().unpublish()
    assert Paper.objects.published().count() == 0


def test_citations_from_draft_papers_are_not_public():
    cited = PaperFactory()
    CitationFactory(cited_paper=cited)
    CitationFactory(cited_paper=cited, citing_paper=PaperFactory(draft=True))
    CitationFactory(cited_paper=cited, draft=True)
    assert cited.citation_summary().total == 1


def test_history_is_recorded_for_edits():
    paper = PaperFactory()
    paper.title = "Renamed"
    paper.save()
    assert paper.history.count() == 2
    assert paper.history.first().title == "Renamed"
