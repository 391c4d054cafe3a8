"""The OpenAPI schema as client generators read it: request bodies in JSON (the format the README
documents), anonymous reads declared as such, every property typed; and a Python client
generated from it by openapi-python-client, used against a live server end to end."""

import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from django.core.management import call_command

from citations.models import Paper
from tests.factories import USER_PASSWORD

METHODS = ("get", "put", "post", "patch", "delete")


@pytest.fixture
def schema(anon, db):
    response = anon.get("/api/v1/schema/")
    assert response.status_code == 200
    return response.json()


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


# The imports and their runs: editors' and contributors' work, never anonymous.
EDITORS_ONLY = ("/api/v1/imports/", "/api/v1/results/import/")


def test_request_bodies_are_declared_as_json(schema):
    declared = {}
    for path, method, operation in operations(schema):
        if "requestBody" in operation:
            declared[f"{method.upper()} {path}"] = list(operation["requestBody"]["content"])
    assert declared["POST /api/v1/papers/batch"] == ["application/json"]
    assert declared["POST /api/v1/auth/token/"] == ["application/json"]
    # An upload needs multipart; every other body is JSON only (form bodies declared with the
    # same schema make generated clients repeat list fields).
    for upload in ("POST /api/v1/imports/", "POST /api/v1/results/import/"):
        assert declared.pop(upload) == ["application/json", "multipart/form-data"]
    wrong = {name: types for name, types in declared.items() if types != ["application/json"]}
    assert not wrong


def test_reads_anyone_may_make_declare_no_credentials_needed(schema):
    missing = [
        f"{method.upper()} {path}"
        for path, method, operation in operations(schema)
        if method == "get" and not path.startswith(EDITORS_ONLY)
        if {} not in operation.get("security", [])
    ]
    assert not missing
    for path, method, operation in operations(schema):
        if method in ("put", "patch", "delete") or path.startswith(EDITORS_ONLY):
            assert {} not in operation["security"], (method, path)
    assert {} in schema["paths"]["/api/v1/auth/token/"]["post"]["security"]
    assert {} in schema["paths"]["/api/v1/papers/batch"]["post"]["security"]


def untyped(node, path=()):
    """Property and item schemas that say nothing of their type, and `nullable` without the
    `type` it qualifies (OpenAPI 3.0 adds null only to a type beside it)."""
    if isinstance(node, dict):
        typed = {"type", "$ref", "allOf", "oneOf", "anyOf"} & set(node)
        if (path[-2:-1] == ("properties",) or path[-1:] == ("items",)) and not typed:
            yield "/".join(path)
        if node.get("nullable") and "type" not in node:
            yield "/".join(path) + " (nullable without type)"
        for key, value in node.items():
            yield from untyped(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from untyped(value, (*path, str(index)))


def test_every_property_has_a_type(schema):
    assert list(untyped(schema)) == []
    components = schema["components"]["schemas"]
    versions = components["Paper"]["properties"]["arxiv_versions"]
    assert versions["type"] == "array" and versions["items"]["type"] == "string"
    value = components["FacetRow"]["properties"]["value"]
    assert {branch["type"] for branch in value["anyOf"]} == {"string", "integer", "boolean"}


def test_the_batch_answers_nulls_are_valid_under_its_schema(schema):
    jsonschema = pytest.importorskip("jsonschema")
    items = schema["components"]["schemas"]["BatchResponse"]["properties"]["results"]["items"]

    # OpenAPI 3.0's `nullable` read as JSON Schema: a `type` beside it admits null too.
    def as_json_schema(node):
        if isinstance(node, dict):
            node = {key: as_json_schema(value) for key, value in node.items()}
            if node.pop("nullable", False) and "type" in node:
                node["type"] = [node["type"], "null"]
                if "enum" in node and None not in node["enum"]:
                    node["enum"].append(None)
            return node
        if isinstance(node, list):
            return [as_json_schema(value) for value in node]
        return node

    resolved = as_json_schema({**items, "components": schema["components"]})
    validator = jsonschema.Draft7Validator(resolved)
    assert validator.is_valid(None)
    assert not validator.is_valid("a string")


def generator():
    found = Path(sys.executable).parent / "openapi-python-client"
    return str(found) if found.exists() else shutil.which("openapi-python-client")


def generate_client(directory):
    """The schema as `manage.py spectacular` writes it, and a client package generated from it
    (`rlscaling_client` in `directory`)."""
    schema = directory / "schema.yaml"
    call_command("spectacular", file=str(schema))
    package = directory / "rlscaling_client"
    tools = str(Path(sys.executable).parent)  # the generator runs ruff over its output
    subprocess.run(
        [generator(), "generate", "--path", str(schema), "--output-path", str(package)]
        + ["--meta", "none"],
        check=True,
        capture_output=True,
        env={"PATH": f"{tools}:/usr/bin:/bin", "HOME": str(directory)},
        timeout=300,
    )
    return package


def import_all(package_name):
    package = importlib.import_module(package_name)
    failures, count = {}, 0
    for module in pkgutil.walk_packages(package.__path__, f"{package_name}."):
        count += 1
        try:
            importlib.import_module(module.name)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            failures[module.name] = repr(error)
    return count, failures


@pytest.fixture
def generated(tmp_path, monkeypatch):
    generate_client(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "rlscaling_client"
    for name in [name for name in sys.modules if name.split(".")[0] == "rlscaling_client"]:
        del sys.modules[name]


def cursor_of(url):
    return parse_qs(urlparse(url).query)["cursor"][0] if url else None


@pytest.mark.slow
def test_a_generated_client_reads_pages_filters_batches_and_writes(
    generated, live_server, demo, editor
):
    count, failures = import_all(generated)
    assert count > 200 and failures == {}

    client_module = importlib.import_module(generated)
    api = importlib.import_module(f"{generated}.api.papers")
    models = importlib.import_module(f"{generated}.models")
    types = importlib.import_module(f"{generated}.types")
    papers_list = importlib.import_module(f"{api.__name__}.papers_list")
    papers_retrieve = importlib.import_module(f"{api.__name__}.papers_retrieve")
    papers_batch = importlib.import_module(f"{api.__name__}.papers_batch")
    papers_create = importlib.import_module(f"{api.__name__}.papers_create")
    papers_update = importlib.import_module(f"{api.__name__}.papers_partial_update")
    token_create = importlib.import_module(f"{generated}.api.auth.auth_token_create")

    anonymous = client_module.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    with anonymous:
        read_page_filter_and_batch(anonymous, papers_list, papers_batch, models, types)
        token = token_create.sync(
            client=anonymous,
            body=models.TokenRequestRequest(username=editor.username, password=USER_PASSWORD),
        )
    assert isinstance(token, models.TokenRequest)

    # Write with the token obtained through the client.
    editor_client = client_module.AuthenticatedClient(
        base_url=live_server.url, token=token.token, prefix="Token", raise_on_unexpected_status=True
    )
    with editor_client:
        write(editor_client, papers_create, papers_update, papers_retrieve, models)


def read_page_filter_and_batch(anonymous, papers_list, papers_batch, models, types):

    # Read and page: every published paper once, through the cursor links.
    published = set(Paper.objects.published().values_list("slug", flat=True))
    seen, cursor = [], types.UNSET
    while True:
        page = papers_list.sync(client=anonymous, page_size=7, cursor=cursor)
        assert isinstance(page, models.PaginatedPaperList)
        seen += [paper.slug for paper in page.results]
        cursor = cursor_of(page.next_) or types.UNSET
        if cursor is types.UNSET:
            break
    assert len(seen) == len(set(seen)) and set(seen) == published

    # Filter.
    tagged = Paper.objects.published().filter(tags__isnull=False).first()
    tag = tagged.tags.first()
    with_tag = set(Paper.objects.published().filter(tags=tag).values_list("slug", flat=True))
    page = papers_list.sync(client=anonymous, tag=tag.slug, page_size=100)
    assert {paper.slug for paper in page.results} == with_tag
    facets = papers_list.sync(client=anonymous, group_by=models.PapersListGroupBy.YEAR)
    assert isinstance(facets, models.Facets)
    assert sum(row.count for row in facets.groups) == facets.total == len(published)

    # Batch: one answer per identifier, in order, null for an unknown one.
    first, second = Paper.objects.published().exclude(arxiv_id="").order_by("pk")[:2]
    answer = papers_batch.sync(
        client=anonymous,
        body=models.BatchRequestRequest(
            ids=[first.slug, "no-such-paper", f"arxiv:{second.arxiv_id}"]
        ),
    )
    assert isinstance(answer, models.BatchResponse)
    assert [paper.slug if paper else None for paper in answer.results] == [
        first.slug,
        None,
        second.slug,
    ]


def write(editor_client, papers_create, papers_update, papers_retrieve, models):
    created = papers_create.sync(
        client=editor_client,
        body=models.PaperRequest(
            title="A paper written by a generated client",
            byline="Client et al.",
            authors=["Ada Client", "Bo Generated"],
            tags=["generated-client", "schema"],
        ),
    )
    assert isinstance(created, models.Paper), created
    assert created.authors == ["Ada Client", "Bo Generated"]
    assert sorted(created.tags) == ["generated-client", "schema"]
    changed = papers_update.sync(
        created.slug,
        client=editor_client,
        body=models.PatchedPaperRequest(tags=["schema"], arxiv_versions=["v1"]),
    )
    assert isinstance(changed, models.Paper), changed
    assert changed.tags == ["schema"] and changed.arxiv_versions == ["v1"]
    again = papers_retrieve.sync(created.slug, client=editor_client)
    assert again.tags == ["schema"]
