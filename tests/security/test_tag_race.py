"""Two editors creating `raceN` and `RACEN` at the same moment, for real: two threads, each
with its own database connection, post through the API behind a barrier (issue 11, point 5).
Every answer is a 201 or a 409, never a 500, and each name ends as one tag. On SQLite the
writers queue behind the database lock, so the race is PostgreSQL's."""

import threading

import pytest
from django.db import connection

from rlscaling.models import Tag
from tests.helpers import token_client

ROUNDS = 12


def post_paper(client, name, barrier, answers):
    """One editor's request, sent the moment the other editor's is."""
    try:
        barrier.wait()
        answers[name] = client.post(
            "/api/v1/papers/", {"title": f"Paper {name}", "tags": [name]}, format="json"
        )
    finally:
        connection.close()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_concurrent_editors_creating_a_tag_in_two_cases_end_with_one_tag(editor):
    clients = [token_client(editor), token_client(editor)]
    for round_number in range(ROUNDS):
        names = [f"race{round_number}", f"RACE{round_number}"]
        barrier = threading.Barrier(len(names))
        answers = {}

        threads = [
            threading.Thread(target=post_paper, args=(client, name, barrier, answers))
            for client, name in zip(clients, names, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        statuses = sorted(answer.status_code for answer in answers.values())
        assert len(statuses) == 2
        assert set(statuses) <= {201, 409}, [answer.content for answer in answers.values()]
        assert Tag.objects.filter(name__iexact=names[0]).count() == 1
        for answer in answers.values():
            if answer.status_code == 201:
                assert [tag.lower() for tag in answer.json()["tags"]] == [names[0]]
