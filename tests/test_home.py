import pytest

pytestmark = pytest.mark.django_db


def test_home_page_shows_the_demo_content(client, demo):
    response = client.get("/")
    assert response.status_code == 200
    assert "Environments" in response.content.decode()
