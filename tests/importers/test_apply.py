"""Dry run, apply, re-apply: one paper per identity, idempotent, order-independent."""

import itertools

import pytest

from citations.identity import PaperIdentifier, PendingCitation
from citations.importers import BadImportFile, make_plan, parse
from citations.models import Author, Citation, CitationSource, Paper
from publishing.models import Status
from tests.factories import PaperFactory
from tests.helpers import changes_nothing, fixture_text, run_import

pytestmark = pytest.mark.django_db

ALL_FILES = [
    "papers.bib",
    "arxiv_query.xml",
    "openalex_works.jsonl",
    "openalex_work.json",
    "s2_paper.json",
    "zotero.json",
]


def snapshot():
    """Everything an import writes, in a comparable form (no ids, no timestamps)."""
    papers = {
        paper.title: (
            paper.arxiv_id,
            paper.doi,
            paper.publication_date,
            paper.status,
            paper.in_research_index,
            tuple(paper.author_names),
            tuple(sorted(paper.other_identifiers.values_list("scheme", "value"))),
        )
        for paper in Paper.objects.prefetch_related("authorships__author")
    }
    edges = set(
        Citation.objects.values_list(
            "citing_paper__title", "cited_paper__title", "role__slug", "source", "is_influential"
        )
    )
    pending = set(PendingCitation.objects.values_list("paper__title", "scheme", "value"))
    return papers, edges, pending


def test_the_dry_run_writes_nothing_and_says_why(roles):
    plan = run_import("papers.bib", apply=False)
    assert Paper.objects.count() == 0
    assert plan.counts() == {"create": 4}
    report = plan.report()
    assert "duplicate in the file: line 21 (@misc{ppo-duplicate}), merged" in report
    assert "new paper, draft" in report


def test_apply_creates_drafts_with_authors_in_order(roles):
    run_import("papers.bib")
    workshop = Paper.objects.get(doi="10.5555/rlscale.2024.17")
    assert workshop.status == Status.DRAFT
    assert workshop.author_names[:3] == ["Jan van der Berg", "Jörg Müller", "John Smith, Jr."]
    assert workshop.byline == "Jan van der Berg"
    ppo = Paper.objects.get(arxiv_id="1707.06347")
    assert ppo.slug == "proximal-policy-optimization-algorithms"
    assert Paper.objects.filter(title="A Release Note Without Authors or Year").exists()


def test_publish_is_a_choice(roles):
    run_import("papers.bib", publish=True)
    assert set(Paper.objects.values_list("status", flat=True)) == {Status.PUBLISHED}


@pytest.mark.parametrize("name", ALL_FILES)
def test_re_importing_a_file_changes_nothing(roles, name):
    run_import(name)
    before = snapshot()
    plan = run_import(name, apply=False)
    assert changes_nothing(plan), plan.report()
    plan.apply()
    assert snapshot() == before


def test_the_same_paper_in_every_format_is_one_paper(roles):
    run_import(*ALL_FILES)
    art = Paper.objects.get(title="The Art of Scaling Reinforcement Learning Compute for LLMs")
    assert art.arxiv_id == "2510.13786"
    assert set(art.other_identifiers.values_list("scheme", "value")) == {
        ("openalex", "W4403100001"),
        ("s2", "5d3f1c6a9e0b2f47c81a3e9d0b6f2a4c7e1d9b83"),
    }
    assert len(art.author_names) == 9 and art.author_names[0] == "Devvrit Khatri"
    assert Paper.objects.filter(title__icontains="Proximal Policy").count() == 1
    assert Paper.objects.filter(title__icontains="Overoptimization").count() == 1
    assert Author.objects.filter(name="John Schulman").count() == 1


@pytest.mark.parametrize(
    "order",
    [
        ["papers.bib", "arxiv_query.xml", "openalex_works.jsonl", "s2_paper.json", "zotero.json"],
        ["zotero.json", "s2_paper.json", "openalex_works.jsonl", "arxiv_query.xml", "papers.bib"],
        ["s2_paper.json", "papers.bib", "zotero.json", "arxiv_query.xml", "openalex_works.jsonl"],
    ],
)
def test_importing_in_another_order_gives_the_same_result(roles, order):
    for name in [
        "papers.bib",
        "arxiv_query.xml",
        "openalex_works.jsonl",
        "s2_paper.json",
        "zotero.json",
    ]:
        run_import(name)
    expected = snapshot()
    Paper.objects.all().delete()
    Author.objects.all().delete()
    for name in order:
        run_import(name)
    assert snapshot() == expected


def test_openalex_references_become_edges_or_wait_for_the_other_end(roles):
    run_import("openalex_works.jsonl")
    titles = set(Citation.objects.values_list("citing_paper__title", "cited_paper__title"))
    art = "The Art of Scaling Reinforcement Learning Compute for LLMs"
    math = "DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language Models"
    ppo = "Proximal Policy Optimization Algorithms"
    assert titles == {(art, ppo), (art, math), (math, ppo)}
    assert set(Citation.objects.values_list("source", flat=True)) == {CitationSource.OPENALEX}
    pending = PendingCitation.objects.get()
    assert (pending.paper.title, pending.value) == (art, "W4403199999")

    run_import("openalex_work.json")
    assert not PendingCitation.objects.exists()
    rmo = Paper.objects.get(arxiv_id="2210.10760")
    assert Citation.objects.filter(citing_paper__title=art, cited_paper=rmo).exists()
    assert Citation.objects.filter(citing_paper=rmo, cited_paper__title=ppo).exists()


def test_semantic_scholar_edges_carry_roles_contexts_and_provenance(roles):
    run_import("s2_paper.json")
    art = Paper.objects.get(arxiv_id="2510.13786")
    edges = {e.citing_paper.title: e for e in art.citations_received.select_related("role")}
    method = edges["Predicting RL Post-Training Outcomes from Early Checkpoints"]
    assert method.role.slug == "method" and method.is_influential is True
    assert method.context.startswith("Following the sigmoidal")
    assert edges["Off-Policy Corrections at Scale"].role.slug == "comparison"
    assert edges["An Unclassified Citing Paper"].role is None
    assert {e.source for e in edges.values()} == {CitationSource.SEMANTIC_SCHOLAR}
    assert art.citations_made.get().cited_paper.arxiv_id == "1707.06347"
    citing = Paper.objects.get(title="A Survey of Reasoning Model Post-Training")
    assert citing.in_research_index is False and citing.status == Status.DRAFT


def test_an_import_updates_an_existing_paper_without_touching_editors_text(roles):
    paper = PaperFactory(
        title="The Art of Scaling Reinforcement Learning Compute for LLMs",
        slug="the-art",
        summary="Editors' summary.",
        abstract="Editors' abstract.",
        arxiv_id="",
        publication_date=None,
    )
    plan = run_import("arxiv_query.xml", apply=False)
    step = plan.papers[0]
    assert (step.action, step.paper) == ("update", paper)
    assert "by title" in step.reason
    plan.apply()
    paper.refresh_from_db()
    assert paper.arxiv_id == "2510.13786"
    assert paper.abstract == "Editors' abstract." and paper.summary == "Editors' summary."
    assert paper.author_names[0] == "Devvrit Khatri"


def test_a_record_naming_two_papers_merges_them(roles):
    by_arxiv = PaperFactory(title="ScaleRL (arXiv)", slug="scalerl-arxiv", arxiv_id="2510.13786")
    by_openalex = PaperFactory(title="ScaleRL (OpenAlex)", slug="scalerl-openalex", arxiv_id="")
    PaperIdentifier.objects.create(paper=by_openalex, scheme="openalex", value="W4403100001")
    plan = run_import("openalex_works.jsonl", apply=False)
    step = next(s for s in plan.papers if s.record.identifiers.get("openalex") == "W4403100001")
    assert step.action == "merge" and step.paper == by_arxiv
    plan.apply()
    assert not Paper.objects.filter(pk=by_openalex.pk).exists()
    assert by_arxiv.slug_aliases.filter(slug="scalerl-openalex").exists()
    assert by_arxiv.other_identifiers.filter(value="W4403100001").exists()


def test_a_bad_file_writes_nothing(roles):
    good = parse(fixture_text("papers.bib"))
    with pytest.raises(BadImportFile):
        good + parse(fixture_text("broken.jsonl"))
    assert Paper.objects.count() == 0


def test_a_failure_while_applying_rolls_everything_back(roles, monkeypatch):
    from citations.importers import apply as applier

    plan = make_plan(parse(fixture_text("openalex_works.jsonl")))
    calls = itertools.count()

    def fail_on_the_third(*args, **kwargs):
        if next(calls) == 2:
            raise RuntimeError("disk full")
        return original(*args, **kwargs)

    original = applier.create_paper
    monkeypatch.setattr(applier, "create_paper", fail_on_the_third)
    with pytest.raises(RuntimeError):
        plan.apply()
    assert Paper.objects.count() == 0 and Citation.objects.count() == 0


def test_a_name_listed_twice_is_one_author_and_re_importing_changes_nothing(roles):
    text = "@misc{k, title={Twice}, author={Doe, Jane and Roe, Richard and Doe, Jane}}"
    make_plan(parse(text)).apply()
    assert Paper.objects.get().author_names == ["Jane Doe", "Richard Roe"]
    assert changes_nothing(make_plan(parse(text)))


def test_an_edge_declared_from_both_ends_is_planned_once(roles):
    plan = run_import("openalex_works.jsonl", "s2_paper.json", apply=False)
    pairs = [
        (e.citing.record.title, e.cited.record.title) for e in plan.edges if e.action == "create"
    ]
    assert len(pairs) == len(set(pairs))


def test_a_record_the_model_refuses_fails_naming_it_and_writes_nothing(roles):
    records = parse(fixture_text("papers.bib"))
    records[3].url = "javascript:alert(1)"  # not a web address the model accepts
    plan = make_plan(records)
    with pytest.raises(BadImportFile, match=r"line 28 \(@inproceedings\{vanderberg2024\}\)"):
        plan.apply()
    assert Paper.objects.count() == 0


def test_an_update_is_held_to_the_model_rules_too(roles):
    PaperFactory(title="Proximal Policy Optimization Algorithms", arxiv_id="1707.06347", url="")
    records = parse(fixture_text("papers.bib"))
    records[1].url = "javascript:alert(1)"
    with pytest.raises(BadImportFile, match="schulman2017ppo"):
        make_plan(records).apply()
    assert Paper.objects.get().url == ""
