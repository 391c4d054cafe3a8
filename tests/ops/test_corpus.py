"""generate_corpus: a reproducible synthetic corpus that keeps every database constraint."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count, F

from bottlenecks.models import Layer
from citations.models import Authorship, Citation, CitationPolarity, CitationRole, Paper
from discovery.models import Neighbour, NeighboursComputed
from discovery.neighbours import neighbours_of
from tags.models import Tag

# slow (`make test-all`, CI's slow step): generated corpora.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]

SMALL = {"papers": 200, "citations": 1000, "hubs": 3}


def generate(**options):
    out = StringIO()
    call_command("generate_corpus", **(SMALL | options), stdout=out)
    return out.getvalue()


def snapshot(prefix="synthetic"):
    papers = Paper.objects.filter(slug__startswith=f"{prefix}-").order_by("slug")
    edges = Citation.objects.filter(citing_paper__slug__startswith=f"{prefix}-").values_list(
        "citing_paper__slug", "cited_paper__slug", "role__slug", "polarity__slug"
    )
    return list(papers.values_list("slug", "title", "publication_date")), set(edges)


def test_generates_the_requested_counts_and_reports_progress():
    output = generate(seed=7)
    assert Paper.objects.filter(slug__startswith="synthetic-").count() == 200
    assert Citation.objects.count() == 1000
    assert "citations: 1,000 written" in output
    assert "Generated 200 papers and 1,000 citations" in output


def test_corpus_keeps_the_database_constraints():
    generate(seed=7)
    assert not Citation.objects.filter(citing_paper=F("cited_paper")).exists()
    pairs = Citation.objects.values("citing_paper", "cited_paper").distinct().count()
    assert pairs == Citation.objects.count()
    assert Paper.objects.values("slug").distinct().count() == Paper.objects.count()
    arxiv_ids = list(Paper.objects.exclude(arxiv_id="").values_list("arxiv_id", flat=True))
    assert arxiv_ids and len(arxiv_ids) == len(set(arxiv_ids))
    # Authors are ordered from 0 on every paper that has them.
    for paper in Paper.objects.filter(authorships__isnull=False).distinct()[:20]:
        positions = list(paper.authorships.values_list("position", flat=True))
        assert positions == list(range(len(positions)))
        assert paper.byline == paper.author_names[0]


def test_same_seed_gives_the_same_corpus_and_another_seed_a_different_one():
    generate(seed=7)
    first = snapshot()
    generate(seed=7, replace=True)
    assert snapshot() == first
    assert Citation.objects.count() == 1000
    generate(seed=8, replace=True)
    second = snapshot()
    assert second[0] != first[0]
    assert second[1] != first[1]


def test_hub_papers_are_canonical_references_with_the_most_citing_papers():
    generate(seed=3)
    hubs = set(Paper.objects.filter(is_canonical_reference=True).values_list("pk", flat=True))
    assert len(hubs) == 3
    most_cited = (
        Citation.objects.values("cited_paper")
        .annotate(citing=Count("id"))
        .order_by("-citing")
        .values_list("cited_paper", "citing")[:3]
    )
    assert {pk for pk, _ in most_cited} == hubs
    assert min(citing for _, citing in most_cited) >= 10
    hub = Paper.objects.get(pk=most_cited[0][0])
    assert hub.is_published and hub.in_research_index
    summary = hub.citation_summary()
    assert summary.top_role["slug"] == "background"
    assert 0 < summary.classified < summary.total  # some citations stay unclassified


def test_corpus_is_skewed_has_drafts_and_the_public_never_sees_them():
    generate(seed=7)
    roles = dict(
        Citation.objects.values_list("role__slug")
        .annotate(n=Count("id"))
        .values_list("role__slug", "n")
    )
    assert roles["background"] == max(roles.values())
    assert roles[None] > 0
    drafts = Paper.objects.filter(status="draft")
    assert drafts.exists()
    assert not Paper.objects.published().filter(pk__in=drafts).exists()
    assert not Citation.objects.public().filter(citing_paper__in=drafts).exists()
    assert Paper.objects.filter(tags__name="grpo").exists()
    assert Paper.objects.filter(layers__isnull=False).exists()


def test_corpus_adds_to_the_demo_content_without_touching_it(demo):
    demo_papers = set(Paper.objects.values_list("slug", flat=True))
    demo_edges = Citation.objects.count()
    tags = Tag.objects.count()
    generate(seed=1)
    assert (
        set(Paper.objects.exclude(slug__startswith="synthetic-").values_list("slug", flat=True))
        == demo_papers
    )
    assert (
        Citation.objects.exclude(citing_paper__slug__startswith="synthetic-").count() == demo_edges
    )
    # The demo's vocabularies are reused, not duplicated.
    assert CitationRole.objects.count() == 4
    assert CitationPolarity.objects.count() == 3
    assert Layer.objects.count() == 6
    assert Tag.objects.count() >= tags
    assert Tag.objects.values("slug").distinct().count() == Tag.objects.count()


def test_a_second_corpus_needs_replace_or_another_prefix():
    generate(seed=1)
    with pytest.raises(CommandError, match="--replace"):
        generate(seed=1)
    generate(seed=2, prefix="second")
    assert Paper.objects.filter(slug__startswith="second-").count() == 200
    assert Authorship.objects.filter(paper__slug__startswith="second-").exists()
    assert Citation.objects.count() == 2000


def test_replace_removes_the_old_corpus_with_its_edges_tags_and_authorships():
    generate(seed=1)
    generate(papers=50, citations=100, seed=1, replace=True)
    assert Paper.objects.count() == 50
    assert Citation.objects.count() == 100
    tagged = Paper.tags.through.objects.values("content_object").distinct().count()
    assert tagged == 50


@pytest.mark.parametrize(
    "options",
    [
        {"papers": 10, "citations": 91},
        {"papers": 0, "citations": 0},
        {"papers": 10, "citations": 5, "hubs": 11},
        {"prefix": "Bad_Prefix"},
        {"hub_share": 1.5},
    ],
)
def test_impossible_options_are_refused(options):
    with pytest.raises(CommandError):
        generate(**options)
    assert not Paper.objects.exists()


def test_a_tiny_corpus_still_holds_together():
    generate(papers=5, citations=20, hubs=1)  # every possible edge
    assert Citation.objects.count() == 20
    assert Citation.objects.values("citing_paper", "cited_paper").distinct().count() == 20


def test_hub_share_builds_one_hub_with_thousands_of_citing_papers():
    generate(papers=2500, citations=3000, hubs=1, hub_share=0.9)
    hub = Paper.objects.get(is_canonical_reference=True)
    assert hub.citations_received.count() == 2499  # every other paper, capped at n - 1
    assert Citation.objects.count() == 3000


def test_the_corpus_has_every_published_papers_neighbours_as_the_tasks_would_store_them():
    generate(seed=7)
    published = set(Paper.objects.published().values_list("pk", flat=True))
    assert set(NeighboursComputed.objects.values_list("paper", flat=True)) == published
    hub = Paper.objects.published().order_by("-citation_count__total").first()

    def rows(found):
        return sorted((row.relation, row.rank, row.other_id, row.score) for row in found)

    assert rows(Neighbour.objects.filter(paper=hub)) == rows(neighbours_of(hub.pk))
    assert Neighbour.objects.filter(paper=hub, relation="similar").exists()
