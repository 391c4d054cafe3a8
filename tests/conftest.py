import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache

from rlscaling.demo_content import DemoLoader
from rlscaling.editors import EDITORS_GROUP


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: the database rolls back between tests, and cached
    pages (rlscaling/caching.py) must not outlive the rows they were rendered from."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def demo(db):
    """The full demo content set, as `make run` loads it."""
    DemoLoader().load()


@pytest.fixture
def editor(db):
    user = get_user_model().objects.create_user(
        "editor", "editor@example.org", "a-long-editor-password", is_staff=True
    )
    user.groups.add(Group.objects.get(name=EDITORS_GROUP))
    return user


@pytest.fixture
def reader(db):
    """An authenticated account with no editorial permissions."""
    return get_user_model().objects.create_user("reader", "reader@example.org", "a-long-password")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client
