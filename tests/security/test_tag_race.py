"""Two editors creating `raceN` and `RACEN` at the same moment, for real: two threads, each
with its own database connection, post through the API behind a barrier (issue 11, point 5).
Every answer is a 201 or a 409, never a 500, and each name ends as one tag. On SQLite the
writers queue behind the database lock, so the race is PostgreSQL's.

The two papers have titles of their own: "Paper race0" and "Paper RACE0" make the same slug, so
one editor's paper could be refused for its slug (a 400 if the other's row was already
committed when the check ran), which is the slug race, not the tag race. The slug race has its
own test below."""

import threading

import pytest
from django.db import connection

from citations.models import Paper
from citations.stats.facet_counts import counted_now, facet_counts
from tags.models import Tag
from tests.helpers import token_client

ROUNDS = 12


def post_paper(client, key, payload, barrier, answers):
    """One editor's request, sent the moment the other editor's is."""
    try:
        barrier.wait()
        answers[key] = client.post("/api/v1/papers/", payload, format="json")
    finally:
        connection.close()


def race(clients, payloads):
    """Both editors' requests at once; their answers in the order of `payloads`."""
    barrier = threading.Barrier(len(payloads))
    answers = {}
    threads = [
        threading.Thread(target=post_paper, args=(client, key, payload, barrier, answers))
        for key, (client, payload) in enumerate(zip(clients, payloads, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return [answers[key] for key in sorted(answers)]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_editors_creating_a_tag_in_two_cases_end_with_one_tag(editor):
    clients = [token_client(editor), token_client(editor)]
    for round_number in range(ROUNDS):
        names = [f"race{round_number}", f"RACE{round_number}"]
        payloads = [
            {"title": f"Paper {number} of round {round_number}", "tags": [name]}
            for number, name in enumerate(names)
        ]
        answers = race(clients, payloads)
        statuses = [answer.status_code for answer in answers]
        assert len(statuses) == 2
        assert set(statuses) <= {201, 409}, [answer.content for answer in answers]
        assert Tag.objects.filter(name__iexact=names[0]).count() == 1
        for answer in answers:
            if answer.status_code == 201:
                assert [tag.lower() for tag in answer.json()["tags"]] == [names[0]]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_editors_creating_papers_of_one_slug_end_with_one_paper(editor):
    """Titles that make one slug: one paper is created, the other editor is told why. Whether
    that is the slug check's 400 or the constraint's 409 depends on which side of the other's
    commit the check ran; both say nothing was saved."""
    clients = [token_client(editor), token_client(editor)]
    for round_number in range(ROUNDS):
        payloads = [{"title": f"Paper slug{round_number}"}, {"title": f"Paper SLUG{round_number}"}]
        answers = race(clients, payloads)
        statuses = sorted(answer.status_code for answer in answers)
        assert statuses[0] == 201, [answer.content for answer in answers]
        assert statuses[1] in {400, 409}, [answer.content for answer in answers]
        refused = next(answer for answer in answers if answer.status_code != 201)
        if refused.status_code == 400:
            assert "slug" in refused.json()["errors"]
        assert Paper.objects.filter(slug=f"paper-slug{round_number}").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_editors_publishing_tagged_papers_leave_the_stored_counts_right(editor):
    """Each save counts its figures again (citations/stats/facet_counts.py); two at once take
    turns on the table, so neither fails and the later one counts what the earlier left."""
    clients = [token_client(editor), token_client(editor)]
    for round_number in range(ROUNDS // 2):
        payloads = [
            {
                "title": f"Counted paper {number} of round {round_number}",
                "status": "published",
                "publication_date": f"{2020 + number}-01-01",
                "summary": "A paper two editors publish at once.",
                "url": f"https://example.org/counted/{round_number}/{number}",
                "tags": ["counted"],
            }
            for number in range(2)
        ]
        answers = race(clients, payloads)
        assert [answer.status_code for answer in answers] == [201, 201], answers[0].content
    stored = {
        (scope, dimension, value): n
        for scope in ("index", "public")
        for dimension, values in facet_counts(scope).items()
        for value, n in values.items()
    }
    fresh = {(s, d, v): n for (s, d, v, q), n in counted_now().items() if d != "layer-q"}
    assert stored == fresh
    assert stored[("index", "tag", Tag.objects.get(name="counted").pk)] == ROUNDS
