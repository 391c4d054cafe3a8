"""Similar papers, prior works and derivative works: counted over public edges only, stored
per paper, refreshed when edges change, shown on the hub and in the API."""

import datetime

import pytest
from django.core.management import call_command
from django.test import override_settings

from citations.models import Citation, Paper
from discovery.bulk import refresh_all
from discovery.models import Neighbour, Relation
from discovery.neighbours import refresh
from publishing.models import Status
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db

IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def cite(citing, cited, **kwargs):
    return CitationFactory(citing_paper=citing, cited_paper=cited, **kwargs)


@pytest.fixture
def web():
    """`a` and `b` both cite r1, r2 and r3 (coupled by 3); x1 and x2 both cite `a` and `c`
    (co-cited twice); `d` cites `a`, `b` and `c` (derivative); `a`, `b` and `c` all cite r1."""
    papers = {
        name: PaperFactory(title=f"Paper {name}", slug=name)
        for name in ["a", "b", "c", "r1", "r2", "r3", "x1", "x2", "d"]
    }
    for citing in ("a", "b"):
        for cited in ("r1", "r2", "r3"):
            cite(papers[citing], papers[cited])
    cite(papers["c"], papers["r1"])
    for citing in ("x1", "x2"):
        cite(papers[citing], papers["a"])
        cite(papers[citing], papers["c"])
    for cited in ("a", "b", "c"):
        cite(papers["d"], papers[cited])
    return papers


def rows(paper, relation):
    return {
        row.other.slug: row for row in Neighbour.objects.shown_for(paper).filter(relation=relation)
    }


def test_similar_papers_by_coupling_and_co_citation(web):
    refresh([web["a"].pk])
    similar = rows(web["a"], Relation.SIMILAR)
    assert similar["b"].shared_references == 3
    assert similar["b"].co_citations == 1  # d cites both
    assert similar["b"].why == "shares 3 references · co-cited 1 time"
    assert similar["c"].shared_references == 1
    assert similar["c"].co_citations == 3  # x1, x2 and d
    assert "a" not in similar
    ranks = [row.rank for row in Neighbour.objects.filter(paper=web["a"], relation="similar")]
    assert ranks == sorted(ranks) and ranks[0] == 1


def test_prior_and_derivative_works(web):
    refresh([web["a"].pk])
    prior = rows(web["a"], Relation.PRIOR)
    derivative = rows(web["a"], Relation.DERIVATIVE)
    # r1 is cited by a, b and c; r2 and r3 by a and b: all by two or more of the neighbourhood.
    assert prior["r1"].neighbourhood_links == 3
    assert prior["r1"].why == "cited by 3 of these papers"
    assert list(prior)[0] == "r1"
    assert derivative["d"].neighbourhood_links == 3
    assert derivative["d"].why == "cites 3 of these papers"
    # Never a paper of the neighbourhood itself (a similar paper is not also a prior work).
    assert not {"a", "b", "c"} & (set(prior) | set(derivative))


def test_draft_edges_and_draft_papers_count_for_nothing(web):
    draft = PaperFactory(draft=True, slug="draft-paper", title="Draft paper")
    for cited in ("r1", "r2", "r3"):
        cite(draft, web[cited])
    cite(web["x1"], draft)
    cite(web["a"], web["x2"], draft=True)  # a draft edge
    refresh([web["a"].pk, draft.pk])
    assert not Neighbour.objects.filter(other=draft).exists()
    assert not Neighbour.objects.filter(paper=draft).exists()
    assert "x2" not in rows(web["a"], Relation.SIMILAR)
    assert rows(web["a"], Relation.SIMILAR)["b"].shared_references == 3


def test_a_paper_unpublished_after_the_refresh_is_never_shown(client, web):
    refresh([web["a"].pk])
    Paper.objects.filter(pk=web["b"].pk).update(status=Status.DRAFT)
    assert "b" not in rows(web["a"], Relation.SIMILAR)
    html = client.get("/papers/a/").content.decode()
    assert "Paper c" in html and "Paper b" not in html
    api = client.get("/api/v1/papers/a/neighbours/").json()
    assert "b" not in [row["slug"] for row in api["similar"]]


def test_the_hub_lists_them_with_why(client, web):
    refresh([web["a"].pk])
    html = client.get("/papers/a/").content.decode()
    assert "Similar papers" in html and "shares 3 references" in html
    assert "Prior works" in html and "cited by 3 of these papers" in html
    assert "Derivative works" in html and "cites 3 of these papers" in html
    assert 'href="/papers/a/graph/"' in html


def test_the_api_lists_them(client, web):
    refresh([web["a"].pk])
    response = client.get("/api/v1/papers/a/neighbours/")
    assert response.status_code == 200
    data = response.json()
    assert data["paper"] == "a"
    top = data["similar"][0]
    assert {"slug", "title", "url", "rank", "shared_references", "co_citations", "why"} <= set(top)
    assert [row["slug"] for row in data["prior"]][0] == "r1"
    assert data["derivative"][0]["slug"] == "d"
    assert client.get("/api/v1/papers/a/neighbours/?page=2").status_code == 400


def test_a_draft_paper_has_no_neighbours_in_the_api(client):
    PaperFactory(slug="hidden", draft=True)
    assert client.get("/api/v1/papers/hidden/neighbours/").status_code == 404
    assert client.get("/api/v1/papers/hidden/graph/").status_code == 404
    assert client.get("/papers/hidden/graph/").status_code == 404


@override_settings(TASKS=IMMEDIATE)
def test_an_edge_saved_refreshes_the_papers_it_reaches(web, django_capture_on_commit_callbacks):
    refresh_all()
    assert rows(web["b"], Relation.SIMILAR)["c"].shared_references == 1
    with django_capture_on_commit_callbacks(execute=True):
        cite(web["c"], web["r2"])  # c and b now share r1 and r2
    # b is in c's ring (c's new reference r2 is cited by b): its list moved too.
    assert rows(web["b"], Relation.SIMILAR)["c"].shared_references == 2
    assert rows(web["c"], Relation.SIMILAR)["b"].shared_references == 2


@override_settings(TASKS=IMMEDIATE)
def test_an_edge_deleted_or_unpublished_refreshes(web, django_capture_on_commit_callbacks):
    refresh_all()
    assert rows(web["a"], Relation.SIMILAR)["b"].shared_references == 3
    with django_capture_on_commit_callbacks(execute=True):
        Citation.objects.get(citing_paper=web["b"], cited_paper=web["r3"]).delete()
    assert rows(web["a"], Relation.SIMILAR)["b"].shared_references == 2
    with django_capture_on_commit_callbacks(execute=True):
        Citation.objects.filter(citing_paper=web["b"], cited_paper=web["r2"]).unpublish()
    assert rows(web["a"], Relation.SIMILAR)["b"].shared_references == 1
    with django_capture_on_commit_callbacks(execute=True):
        edge = Citation.objects.get(citing_paper=web["b"], cited_paper=web["r1"])
        edge.status = Status.DRAFT
        edge.published_at = None
        edge.save()
    # b now shares no reference with a; d still cites both.
    assert rows(web["a"], Relation.SIMILAR)["b"].shared_references == 0


@override_settings(TASKS=IMMEDIATE)
def test_a_paper_unpublished_is_dropped_from_the_lists(web, django_capture_on_commit_callbacks):
    refresh_all()
    b = Paper.objects.get(pk=web["b"].pk)
    with django_capture_on_commit_callbacks(execute=True):
        b.status = Status.DRAFT
        b.published_at = None
        b.save()
    assert not Neighbour.objects.filter(paper=b).exists()
    assert not Neighbour.objects.filter(paper=web["a"], other=b).exists()


def test_one_task_per_transaction(web, django_capture_on_commit_callbacks):
    from django_tasks_db.models import DBTaskResult

    with django_capture_on_commit_callbacks(execute=True):
        cite(web["c"], web["r2"])
        cite(web["c"], web["r3"])
        cite(web["x1"], web["b"])
    queued = DBTaskResult.objects.filter(task_path="discovery.tasks.refresh_neighbours")
    assert queued.count() == 1
    citing, cited = queued.get().args_kwargs["args"]
    assert web["c"].pk in citing and web["x1"].pk in citing
    assert {web["r2"].pk, web["r3"].pk, web["b"].pk} <= set(cited)


def test_editing_a_citing_sentence_queues_nothing(web, django_capture_on_commit_callbacks):
    from django_tasks_db.models import DBTaskResult

    edge = Citation.objects.get(citing_paper=web["a"], cited_paper=web["r1"])
    with django_capture_on_commit_callbacks(execute=True):
        edge.context = "A new sentence."
        edge.save()
    assert not DBTaskResult.objects.filter(task_path="discovery.tasks.refresh_neighbours").exists()


def test_the_command_refreshes_every_paper(web, capsys):
    call_command("refresh_neighbours")
    assert "Refreshed the neighbours of 9 papers" in capsys.readouterr().out
    assert rows(web["a"], Relation.SIMILAR)["b"].shared_references == 3
    call_command("refresh_neighbours", "a")
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("refresh_neighbours", "no-such-paper")


@override_settings(TASKS=IMMEDIATE)
def test_papers_published_in_bulk_join_the_lists(web, django_capture_on_commit_callbacks):
    late = PaperFactory(draft=True, slug="late", title="Late paper")
    for cited in ("r1", "r2", "r3"):
        cite(late, web[cited])
    refresh_all()
    assert "late" not in rows(web["a"], Relation.SIMILAR)
    with django_capture_on_commit_callbacks(execute=True):
        Paper.objects.filter(pk=late.pk).publish()
    assert rows(web["a"], Relation.SIMILAR)["late"].shared_references == 3
    assert rows(late, Relation.SIMILAR)["a"].shared_references == 3


def test_changes_in_a_burst_join_one_queued_task(web, django_capture_on_commit_callbacks):
    """Edges saved in separate transactions (an import of many records, editors at work)
    while a refresh waits in the queue join it: one task, each paper refreshed once; the
    task waits a few seconds for the burst to end."""
    from django_tasks_db.models import DBTaskResult

    from discovery.tasks import DEBOUNCE

    with django_capture_on_commit_callbacks(execute=True):
        cite(web["c"], web["r2"])
    with django_capture_on_commit_callbacks(execute=True):
        cite(web["x1"], web["b"])
    with django_capture_on_commit_callbacks(execute=True):
        cite(web["c"], web["r3"])
    queued = DBTaskResult.objects.filter(task_path="discovery.tasks.refresh_neighbours")
    assert queued.count() == 1
    task = queued.get()
    citing, cited = task.args_kwargs["args"]
    assert {web["c"].pk, web["x1"].pk} <= set(citing) and citing == sorted(set(citing))
    assert {web["r2"].pk, web["r3"].pk, web["b"].pk} <= set(cited)
    assert cited == sorted(set(cited))
    assert task.run_after >= task.enqueued_at + DEBOUNCE - datetime.timedelta(seconds=1)
    # Once a worker has started it, a change queues a task of its own.
    queued.update(status="RUNNING")
    with django_capture_on_commit_callbacks(execute=True):
        cite(web["d"], web["r1"])
    assert queued.count() == 2
