import pytest
from rest_framework.test import APIClient

from tests.helpers import token_client


@pytest.fixture
def anon():
    return APIClient()


@pytest.fixture
def editor_api(editor):
    """An editor authenticated with an API token, as scripts use the API."""
    return token_client(editor)
