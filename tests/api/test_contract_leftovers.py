"""Contract leftovers: `version` is the integer a client read (3.7 is not 3; "1" and 1e0 are
mistakes in JSON, text only in a form); a query parameter given twice is a 400, not a guess."""

import pytest

from tests.factories import PaperFactory
from tests.helpers import token_client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("version", [3.7, 1.0, "1", "1e0", [1], {"v": 1}, True])
def test_a_json_version_that_is_not_an_integer_is_a_400(editor, version):
    paper = PaperFactory()
    api = token_client(editor)
    response = api.patch(
        f"/api/v1/papers/{paper.slug}/", {"version": version, "title": "Changed"}, format="json"
    )
    assert response.status_code == 400, (version, response.status_code)
    assert "version" in response.json()["errors"]
    paper.refresh_from_db()
    assert paper.title != "Changed"


def test_json_1e0_is_a_400(editor):
    paper = PaperFactory()
    api = token_client(editor)
    body = '{"version": 1e0, "title": "Changed"}'
    response = api.patch(f"/api/v1/papers/{paper.slug}/", body, content_type="application/json")
    assert response.status_code == 400


def test_the_integer_version_and_a_forms_text_version_still_work(editor):
    paper = PaperFactory()
    api = token_client(editor)
    ok = api.patch(f"/api/v1/papers/{paper.slug}/", {"version": paper.version}, format="json")
    assert ok.status_code == 200
    form = api.patch(
        f"/api/v1/papers/{paper.slug}/", {"version": str(paper.version + 1)}, format="multipart"
    )
    assert form.status_code == 200, form.content


@pytest.mark.parametrize(
    "query", ["page_size=1&page_size=2", "status=published&status=draft", "search=a&search=b"]
)
def test_a_parameter_given_twice_is_a_400(editor, query):
    PaperFactory()
    response = token_client(editor).get(f"/api/v1/papers/?{query}")
    assert response.status_code == 400
    name = query.split("=")[0]
    assert name in response.json()["errors"]


def test_sparse_fieldsets_may_repeat(editor):
    PaperFactory()
    response = token_client(editor).get("/api/v1/papers/?fields=slug&fields=title")
    assert response.status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "/api/v1/papers/?status=",
        "/api/v1/papers/?page_size=",
        "/api/v1/papers/?year=",
        "/api/v1/citations/?role=",
        "/api/v1/citations/?status=",
        "/api/v1/notes/?status=",
        "/api/v1/papers/?ordering=",
    ],
)
def test_an_empty_value_is_a_400_naming_the_parameter(editor, query):
    """An empty value is no value the schema allows (a choice, a number): answering as if the
    parameter were absent would be a guess."""
    name = query.rsplit("?", 1)[1].removesuffix("=")
    response = token_client(editor).get(query)
    assert response.status_code == 400, (query, response.status_code)
    assert name in response.json()["errors"]


def test_an_empty_search_is_still_no_search(editor):
    PaperFactory()
    assert token_client(editor).get("/api/v1/papers/?search=").status_code == 200
