"""The suite's own set-up (tests/conftest.py): the demo content is shared by the tests that ask
for it and absent for the others, and what a test writes never reaches the next one."""

import pytest

from citations.models import Paper
from tests.factories import PaperFactory
from tests.helpers import ART_OF_SCALING

# slow (`make test-all`, CI's slow step): the tooling's own check (tests/conftest.py), not the site.
pytestmark = pytest.mark.slow


def test_without_demo_the_database_is_empty(db):
    assert not Paper.objects.exists()


def test_with_demo_the_content_is_there(demo):
    assert Paper.objects.filter(slug=ART_OF_SCALING).exists()


@pytest.mark.parametrize("round", [1, 2])
def test_a_write_over_the_demo_is_gone_by_the_next_test(demo, round):
    assert Paper.objects.filter(slug=ART_OF_SCALING).exists()
    assert not Paper.objects.filter(slug="written-by-a-test").exists()
    PaperFactory(slug="written-by-a-test")
    Paper.objects.filter(slug=ART_OF_SCALING).delete()


def test_the_shared_copy_is_dropped_and_loaded_again_on_demand(_shared_demo, django_db_blocker):
    with django_db_blocker.unblock():
        _shared_demo.load()
        assert Paper.objects.filter(slug=ART_OF_SCALING).exists()
        _shared_demo.drop()
        assert not Paper.objects.exists()
        _shared_demo.load()
        assert Paper.objects.filter(slug=ART_OF_SCALING).exists()
