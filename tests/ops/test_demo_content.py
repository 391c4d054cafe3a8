import pytest
from django.core.management import call_command

from bottlenecks.models import Analysis, Dimension, Layer, LoopStage
from citations.models import Citation, Paper
from notes.models import CommunityPost, GuideSection, Question, ResearchNote
from tests.helpers import ART_OF_SCALING

pytestmark = pytest.mark.django_db

MODELS = [
    Dimension,
    LoopStage,
    Layer,
    Analysis,
    Paper,
    Citation,
    ResearchNote,
    CommunityPost,
    Question,
    GuideSection,
]


def snapshot():
    return {
        model.__name__: sorted(
            (obj.pk, getattr(obj, "version", 0), str(obj)) for obj in model.objects.all()
        )
        for model in MODELS
    }


def test_load_demo_twice_changes_nothing(capsys):
    call_command("load_demo")
    first = snapshot()
    history = Paper.history.count()
    call_command("load_demo")
    assert snapshot() == first
    assert Paper.history.count() == history
    assert "nothing missing" in capsys.readouterr().out


def test_demo_content_has_every_seed_item(demo):
    assert [d.name for d in Dimension.objects.published()] == [
        "Compute",
        "Data",
        "Environments",
        "Rollouts",
        "Rewards",
        "Agents",
    ]
    assert [s.name for s in LoopStage.objects.published()] == [
        "Environment",
        "Rollouts",
        "Rewards",
        "Optimization",
        "Evaluation",
    ]
    assert Layer.objects.published().count() == 6
    analysis = Analysis.objects.published().get()
    assert [step.title for step in analysis.steps.all()] == [
        "State the plateau",
        "List competing bottlenecks",
        "Choose a discriminating test",
        "Change one pressure at a time",
    ]
    assert Paper.objects.in_research_index().count() == 18
    assert ResearchNote.objects.featured().count() == 3
    assert CommunityPost.objects.published().count() == 4
    assert Question.objects.published().filter(kind=Question.Kind.TEAM).count() == 4
    assert Question.objects.published().filter(kind=Question.Kind.FAQ).count() == 5
    latest = [paper.institution for paper in Paper.objects.latest_research()[:6]]
    assert latest[:2] == ["Zhejiang University", "Tsinghua University"]


def test_hub_figures_come_from_the_data(demo):
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    summary = hub.citation_summary()
    assert hub.is_canonical_reference
    assert summary.total == 30
    assert summary.classified == 6
    assert summary.top_role["slug"] == "background"
    assert summary.top_role["count"] == 6
    assert summary.top_role["percent"] == 100
    representatives = hub.citations_received.filter(is_representative=True)
    assert representatives.count() == 6
    assert all(edge.representative_reason for edge in representatives)


def test_load_demo_on_a_database_with_the_old_23_representatives(demo, capsys):
    """Before the limit the demo flagged 23 of the hub's edges: a plain load leaves an existing
    database's flags alone (an editor may have chosen them) and the hub shows 6; --reset
    brings back the curated 6 with their reasons."""
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    old = hub.citations_received.exclude(citing_paper__title__startswith="Zone of Proximal")
    old = old.filter(pk__in=list(old.values_list("pk", flat=True)[:23]))
    hub.citations_received.update(is_representative=False)
    old.update(is_representative=True, representative_reason="")
    call_command("load_demo")
    assert hub.citations_received.filter(is_representative=True).count() == 23
    assert len(hub.representative_citations()) == 6
    call_command("load_demo", "--reset", "--noinput")
    curated = hub.citations_received.filter(is_representative=True)
    assert curated.count() == 6
    assert all(edge.representative_reason for edge in curated)


def test_hub_figures_follow_an_editors_change(demo):
    hub = Paper.objects.get(slug=ART_OF_SCALING)
    edge = hub.citations_received.filter(role__isnull=True).first()
    edge.role_id = hub.citations_received.filter(role__isnull=False).first().role_id
    edge.save()
    assert hub.citation_summary().classified == 7
