"""Issue 17: a public API changelog and deprecation policy, linked from the API docs and the
README."""

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from apikit.changelog import CHANGELOG

pytestmark = pytest.mark.django_db


def test_the_changelog_page_shows_every_release_and_the_policy(db):
    response = Client().get("/about/api/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Deprecation policy" in html
    for release in CHANGELOG:
        assert release["version"] in html
    assert "Sunset" in html and "/api/v2/" in html
    assert 'href="/api/v1/docs/"' in html and 'href="/api/v1/changelog/"' in html
    assert "<script" not in html.split("</header>", 1)[1]  # no inline script on the page body


def test_the_changelog_as_json_for_tools(anon):
    body = anon.get("/api/v1/changelog/").json()
    assert body["releases"][0]["version"] == settings.SPECTACULAR_SETTINGS["VERSION"]
    assert {"kind", "text"} == set(body["releases"][0]["changes"][0])
    assert body["policy"]


def test_the_schema_and_the_readme_link_it(anon):
    schema = anon.get("/api/v1/schema/").json()
    assert "/about/api/" in schema["info"]["description"]
    assert schema["info"]["version"] == CHANGELOG[0]["version"]
    assert "/api/v1/changelog/" in schema["paths"]
    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    assert "`/about/api/`" in readme


def test_releases_are_newest_first_with_a_known_kind_of_change():
    versions = [tuple(map(int, r["version"].split("."))) for r in CHANGELOG]
    assert versions == sorted(versions, reverse=True)
    dates = [r["date"] for r in CHANGELOG]
    assert dates == sorted(dates, reverse=True)
    for release in CHANGELOG:
        for kind, _ in release["changes"]:
            assert kind in {"added", "changed", "deprecated", "removed"}
