import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import transaction
from rest_framework.test import APIClient

from rlscaling.demo_content import DemoLoader
from rlscaling.editors import EDITORS_GROUP
from tests.helpers import token_client


@pytest.fixture(autouse=True)
def fresh_throttles():
    """Throttle counters live in the cache; every test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(scope="module")
def demo_once(django_db_setup, django_db_blocker):
    """The demo content, loaded once for a whole module and rolled back after it. Each test
    still runs in its own savepoint inside, so what one test writes the next never sees."""
    with django_db_blocker.unblock(), transaction.atomic():
        DemoLoader().load()
        yield
        transaction.set_rollback(True)


@pytest.fixture
def anon():
    return APIClient()


@pytest.fixture
def editor_api(editor):
    """An editor authenticated with an API token, as scripts use the API."""
    return token_client(editor)


@pytest.fixture
def reader_api(reader):
    """An authenticated account without editorial permissions."""
    return token_client(reader)


@pytest.fixture
def second_editor(db):
    user = get_user_model().objects.create_user(
        "editor2", "editor2@example.org", "another-long-editor-password", is_staff=True
    )
    user.groups.add(Group.objects.get(name=EDITORS_GROUP))
    return user
