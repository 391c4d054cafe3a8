"""The possible duplicates page reads stored pairs (found by a scan in the task queue, not on
each request: 6 s of CPU at 100k papers), pages through them, and lets editors dismiss a pair."""

import datetime
import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from citations import duplicates
from citations.admin import identity as admin_identity
from citations.duplicates import (
    DuplicateScan,
    PossibleDuplicatePair,
    possible_duplicates,
    scan_for_duplicates,
    store_possible_duplicates,
)
from citations.models import Paper
from tests.factories import PaperFactory, UserFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

DAY = datetime.date(2025, 10, 15)
PAGE = reverse("admin:citations_paper_duplicates")


def stored():
    return {
        (pair.first_id, pair.second_id): (pair.reason, pair.score)
        for pair in PossibleDuplicatePair.objects.all()
    }


def computed():
    return {
        (pair.first.pk, pair.second.pk): (pair.reason, pair.score) for pair in possible_duplicates()
    }


@pytest.fixture
def alike():
    """Three pairs: an arXiv id and its DOI, an identical title, a near-identical one; and a
    paper of another year that pairs with none."""
    papers = {
        "arxiv": PaperFactory(title="Something else", arxiv_id="2402.03300"),
        "doi": PaperFactory(title="Another thing entirely", doi="10.48550/arXiv.2402.03300"),
        "a": PaperFactory(title="The Art of Scaling RL Compute for LLMs", publication_date=DAY),
        "b": PaperFactory(title="The art of scaling RL compute for LLMs.", publication_date=DAY),
        "c": PaperFactory(title="Reward models at scale for agents", publication_date=DAY),
        "d": PaperFactory(title="Reward models at scale for agent", publication_date=DAY),
        "other year": PaperFactory(
            title="The Art of Scaling RL Compute for LLMs", publication_date=DAY.replace(year=2019)
        ),
    }
    return papers


def test_a_scan_stores_the_pairs_possible_duplicates_finds(alike):
    scan = store_possible_duplicates()
    assert len(stored()) == 3
    assert stored() == computed()
    assert scan.finished_at is not None and scan.pairs == 3


def test_a_scan_of_the_demo_stores_the_same_pairs(demo):
    store_possible_duplicates()
    assert stored() == computed()


def test_the_task_runs_the_requested_scan(alike):
    scan = DuplicateScan.objects.create()
    assert scan_for_duplicates.call(scan.pk) == 3
    scan.refresh_from_db()
    assert scan.finished_at is not None
    assert DuplicateScan.pending() is None


def test_a_new_scan_follows_edits_and_keeps_dismissals(alike, editor):
    store_possible_duplicates()
    a, b, c = alike["a"], alike["b"], alike["c"]
    PossibleDuplicatePair.objects.get(first=c).dismiss(editor)
    b.title = "A paper about something else"
    b.save()
    alike["c"].title = "Reward models at scale for agents!"
    alike["c"].save()
    store_possible_duplicates()
    assert (a.pk, b.pk) not in stored()
    assert stored() == computed()
    assert PossibleDuplicatePair.objects.get(first=c).dismissed_at is not None


def test_the_page_lists_stored_pairs_a_page_at_a_time(
    editor_client, alike, monkeypatch, django_assert_max_num_queries
):
    store_possible_duplicates()

    def never(*args, **kwargs):
        raise AssertionError("the page compared titles")

    monkeypatch.setattr(duplicates, "possible_duplicates", never)
    monkeypatch.setattr(admin_identity, "DUPLICATES_SHOWN", 2)
    with django_assert_max_num_queries(12):
        first = editor_client.get(PAGE)
    assert first.status_code == 200
    strongest = sorted(computed().items(), key=lambda item: (-item[1][1], item[0]))
    assert [(p.first_id, p.second_id) for p in first.context["pairs"]] == [
        key for key, _ in strongest[:2]
    ]
    assert "strongest first: 1–2 of 3" in text_of(first)
    second = editor_client.get(PAGE, {"p": 2})
    assert [(p.first_id, p.second_id) for p in second.context["pairs"]] == [strongest[2][0]]
    assert not DuplicateScan.objects.filter(finished_at=None).exists()  # nothing changed


def test_the_page_queries_do_not_grow_with_the_pairs(editor_client, django_assert_max_num_queries):
    for n in range(30):
        PaperFactory(title=f"Identical title number {n}", publication_date=DAY)
        PaperFactory(title=f"Identical title number {n}", publication_date=DAY)
    store_possible_duplicates()
    with django_assert_max_num_queries(12):
        response = editor_client.get(PAGE)
    assert len(response.context["pairs"]) == min(PossibleDuplicatePair.objects.count(), 100) >= 30


def test_the_page_queues_one_scan_when_papers_changed(
    editor_client, alike, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        editor_client.get(PAGE)  # never scanned
    assert "Not searched yet" in text_of(editor_client.get(PAGE))
    assert DuplicateScan.objects.count() == 1  # the second view found it pending
    assert DBTaskResult.objects.filter(task_path=scan_for_duplicates.module_path).count() == 1
    scan_for_duplicates.call(DuplicateScan.objects.get().pk)

    editor_client.get(PAGE)
    assert DuplicateScan.objects.count() == 1  # nothing changed since

    paper = Paper.objects.get(pk=alike["c"].pk)
    paper.title = "A new title"
    paper.save()
    editor_client.get(PAGE)
    assert DuplicateScan.pending() is not None


def test_a_scan_can_be_asked_for(editor_client, alike):
    store_possible_duplicates()
    response = editor_client.post(PAGE, {"scan": "1"})
    assert response.status_code == 302
    assert DuplicateScan.pending() is not None


def test_dismiss_and_restore_a_pair(editor_client, editor, alike):
    store_possible_duplicates()
    pair = PossibleDuplicatePair.objects.get(first=alike["a"])
    response = editor_client.post(PAGE, {"dismiss": pair.pk})
    assert response.status_code == 302
    pair.refresh_from_db()
    assert pair.dismissed_by == editor and pair.dismissed_at is not None
    assert pair not in editor_client.get(PAGE).context["pairs"]
    assert list(editor_client.get(PAGE, {"dismissed": "1"}).context["pairs"]) == [pair]

    editor_client.post(PAGE, {"restore": pair.pk})
    pair.refresh_from_db()
    assert pair.dismissed_at is None
    assert pair in editor_client.get(PAGE).context["pairs"]


def test_merging_a_pair_removes_the_merged_papers_pairs(editor_client, alike):
    store_possible_duplicates()
    keep, other = alike["a"], alike["b"]
    response = editor_client.post(PAGE, {"keep": keep.pk, "other": other.pk})
    assert response.status_code == 302
    assert not Paper.objects.filter(pk=other.pk).exists()
    assert not PossibleDuplicatePair.objects.filter(second=other.pk).exists()
    assert len(stored()) == 2


def test_only_those_who_may_merge_see_or_change_the_pairs(client, alike):
    store_possible_duplicates()
    pair = PossibleDuplicatePair.objects.first()
    assert client.get(PAGE).status_code == 302  # to the login page
    user = UserFactory(is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="change_paper"),
        Permission.objects.get(codename="view_papermerge"),
    )
    client.force_login(user)
    assert client.get(PAGE).status_code == 403
    assert client.post(PAGE, {"dismiss": pair.pk}).status_code == 403
    assert client.post(PAGE, {"scan": "1"}).status_code == 403
    pair.refresh_from_db()
    assert pair.dismissed_at is None
    assert DuplicateScan.pending() is None


def test_a_scan_finding_the_same_pairs_writes_none(alike):
    """A scan rewrote every pair (37k rows at 100k papers) even when nothing had changed."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    store_possible_duplicates()
    before = set(PossibleDuplicatePair.objects.values_list("pk", "first", "second"))
    with CaptureQueriesContext(connection) as captured:
        store_possible_duplicates()
    writes = [
        query["sql"]
        for query in captured.captured_queries
        if "possibleduplicatepair" in query["sql"]
        and query["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes == []
    assert set(PossibleDuplicatePair.objects.values_list("pk", "first", "second")) == before


def test_the_page_keeps_to_the_content_security_policy(editor_client, alike):
    """No inline style or script the policy (style-src 'self') would block: the "Search again"
    form had `style="display:inline"`."""
    store_possible_duplicates()
    html = editor_client.get(PAGE).content.decode()
    assert 'id="duplicate-rescan"' in html
    assert not re.search(r"\sstyle=", html) and not re.search(r"\son[a-z]+=", html)
