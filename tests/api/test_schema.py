"""The OpenAPI 3 schema and the human docs, served from our own static files."""

import importlib
import re

import pytest
from django.contrib.staticfiles import finders
from drf_spectacular.generators import SchemaGenerator

from apikit.schema import BuiltOnceSchemaGenerator

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema_builds(monkeypatch, settings):
    """The schema builds made during the test, which starts with no schema kept; every request
    reaches the view."""
    settings.PAGE_CACHE_SECONDS = 0
    monkeypatch.setattr(BuiltOnceSchemaGenerator, "built", {})
    builds = []
    original = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        builds.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    return builds


def test_openapi_schema_describes_every_resource(anon):
    response = anon.get("/api/v1/schema/")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    for path in [
        "/api/v1/papers/",
        "/api/v1/papers/{slug}/",
        "/api/v1/papers/{slug}/citations/",
        "/api/v1/papers/by-arxiv/{arxiv_id}/",
        "/api/v1/papers/by-doi/{doi}/",
        "/api/v1/citations/",
        "/api/v1/citations/{id}/",
        "/api/v1/notes/",
        "/api/v1/community-posts/",
        "/api/v1/questions/",
        "/api/v1/dimensions/",
        "/api/v1/loop-stages/",
        "/api/v1/layers/",
        "/api/v1/analyses/{slug}/",
        "/api/v1/citation-roles/",
        "/api/v1/citation-polarities/",
        "/api/v1/tags/",
        "/api/v1/auth/token/",
    ]:
        assert path in paths, path
    papers = paths["/api/v1/papers/"]["get"]
    parameters = {parameter["name"] for parameter in papers["parameters"]}
    assert {"tag", "layer", "year", "is_canonical_reference", "search", "ordering", "cursor"} <= (
        parameters
    )
    assert papers["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/Error"
    )
    patch = paths["/api/v1/papers/{slug}/"]["patch"]
    assert {"409", "412"} <= set(patch["responses"])
    assert "If-Match" in {parameter["name"] for parameter in patch["parameters"]}
    paper = schema["components"]["schemas"]["Paper"]
    assert paper["properties"]["version"]["readOnly"] is True
    assert "version" not in schema["components"]["schemas"]["PatchedPaperRequest"]["properties"]


def local_assets(html):
    return re.findall(r'(?:src|href)="([^"]+)"', html)


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_docs_pages_load_nothing_from_another_origin(anon, url):
    response = anon.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assets = local_assets(html)
    assert assets
    for asset in assets:
        assert asset.startswith("/"), asset
    assert "googleapis" not in html and "cdn" not in html.lower()
    assert "default-src 'self'" in response["Content-Security-Policy"]


def test_sidecar_assets_are_our_own_static_files():
    for path in [
        "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css",
        "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js",
    ]:
        assert finders.find(path), path


def test_swagger_initialiser_is_a_script_file_not_inline(anon):
    html = anon.get("/api/v1/docs/").content.decode()
    assert "<script>" not in html
    script = anon.get("/api/v1/docs/?script=")
    assert script.status_code == 200
    assert "SwaggerUIBundle" in script.content.decode()


def test_schema_generates_without_warnings_and_validates(tmp_path):
    from django.core.management import call_command

    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert "/api/v1/papers/{slug}/citations/" in out.read_text()


def test_every_operation_has_a_short_summary_and_the_schema_names_its_licence(anon):
    """API browsers and generated clients list operations by their summary: each one has its
    own, short, and the standard actions say what they do to which kind of row."""
    schema = anon.get("/api/v1/schema/").json()
    summaries = {
        (method, path): operation.get("summary")
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
    }
    assert all(summaries.values()), [key for key, value in summaries.items() if not value]
    assert all(len(summary) <= 80 for summary in summaries.values())
    assert summaries[("get", "/api/v1/papers/")] == "List papers"
    assert summaries[("patch", "/api/v1/notes/{slug}/")] == "Update a research note"
    assert summaries[("get", "/api/v1/analyses/{slug}/")] == "Read an analysis"
    assert summaries[("post", "/api/v1/papers/batch")] == "Look up many papers at once"
    assert "CC BY 4.0" in schema["info"]["license"]["name"]
    assert schema["servers"] == [{"url": "/", "description": "This site"}]
    cursor_page = schema["components"]["schemas"]["PaginatedPaperList"]
    assert not cursor_page["properties"]["next"]["example"].endswith('"')


def test_the_schema_is_built_once_per_process(anon, schema_builds):
    """A build takes about half a second at any size and depends on the code alone."""
    first, second = anon.get("/api/v1/schema/"), anon.get("/api/v1/schema/")
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert len(schema_builds) == 1


def test_a_served_process_builds_the_schema_before_its_first_request(anon, schema_builds):
    """The build (about half a second) happens when the WSGI application is loaded, not on
    the first reader's request for the schema: that request was each worker's p99 of about a
    second at the bench (docs/decisions/0015)."""
    importlib.reload(importlib.import_module("rlscaling.wsgi"))  # what a new worker does
    assert len(schema_builds) == 1
    response = anon.get("/api/v1/schema/")
    assert response.status_code == 200
    assert response.json()["info"]["title"]
    assert len(schema_builds) == 1
