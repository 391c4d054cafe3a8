"""Query counts per list endpoint that stay the same at page_size 5 and 50."""

import pytest
from django.db import transaction

from citations.models import Paper
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    ClaimFactory,
    CommunityPostFactory,
    DimensionFactory,
    LayerFactory,
    LoopStageFactory,
    QuestionFactory,
    ResearchNoteFactory,
)
from tests.helpers import API_LIST_QUERY_CEILINGS, ART_OF_SCALING

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("crowded")]


@pytest.fixture(scope="module")
def crowded(_shared_demo, django_db_blocker):
    """The demo plus enough rows that every list has more than 50 to page through, added once
    for this module in a savepoint over the shared demo content and rolled back after it."""
    with django_db_blocker.unblock(), transaction.atomic():
        hub = Paper.objects.get(slug=ART_OF_SCALING)
        layers = LayerFactory.create_batch(55)
        for n in range(55):
            note = ResearchNoteFactory()
            note.papers.add(hub)
            note.layers.add(layers[n])
            note.tags.add(f"extra-{n}", "grpo")
            ClaimFactory(figure=f"{n}%", unit="a figure").notes.add(note)
            CitationFactory(cited_paper=hub)
        CitationRoleFactory.create_batch(55)
        CitationPolarityFactory.create_batch(55)
        CommunityPostFactory.create_batch(55)
        QuestionFactory.create_batch(55)
        DimensionFactory.create_batch(55)
        LoopStageFactory.create_batch(55)
        for n in range(55):
            claim = ClaimFactory()
            claim.layers.add(layers[n])
            claim.papers.add(hub)
        yield
        transaction.set_rollback(True)


@pytest.mark.parametrize(("url", "ceiling"), API_LIST_QUERY_CEILINGS)
def test_list_query_count_does_not_grow_with_page_size(
    anon, editor_api, django_assert_max_num_queries, url, ceiling
):
    for page_size in (5, 50):
        with django_assert_max_num_queries(ceiling):
            response = anon.get(f"{url}?page_size={page_size}")
        assert response.status_code == 200
        if "analyses" not in url:  # there is one analysis
            assert len(response.json()["results"]) == page_size
        # An editor's token lookup and permission checks add a fixed three.
        with django_assert_max_num_queries(ceiling + 3):
            assert editor_api.get(f"{url}?page_size={page_size}").status_code == 200
