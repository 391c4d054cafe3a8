"""The dump's column types: a Frictionless `datapackage.json` over its CSV files, and a data
dictionary in its README. Loaded by pandas with the declared types, every identifier comes
back exactly (guessing, pandas reads arXiv ids as numbers: `1912.06680` became `1912.0668`)."""

import io
import json
import zipfile

import pandas as pd
import pytest
from django.core.management import call_command

from citations.models import Paper
from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db

PANDAS_TYPES = {
    "string": "string",
    "integer": "Int64",
    "number": "Float64",
    "boolean": "boolean",
}


_files = {}


@pytest.fixture
def dump(demo, tmp_path):
    """The files of the demo's dump with a draft beside it. Every test reads the same archive,
    so it is exported once per test process (the demo is the same in every test)."""
    if not _files:
        PaperFactory(title="A draft that stays out", draft=True, arxiv_id="2512.99010")
        call_command("export_dump", output=str(tmp_path), verbosity=0)
        (archive,) = tmp_path.glob("rlscaling-dump-*.zip")
        with zipfile.ZipFile(archive) as opened:
            _files.update({name.split("/", 1)[1]: opened.read(name) for name in opened.namelist()})
    return _files


def typed_frame(files, resource):
    """The resource's CSV as pandas reads it with the package's declared types."""
    fields = resource["schema"]["fields"]
    dtypes = {f["name"]: PANDAS_TYPES[f["type"]] for f in fields if f["type"] in PANDAS_TYPES}
    dates = [f["name"] for f in fields if f["type"] in ("date", "datetime")]
    return pd.read_csv(
        io.BytesIO(files[resource["path"]]),
        dtype={**dtypes, **dict.fromkeys(dates, "string")},
        keep_default_na=False,
        na_values={name: [""] for name in dtypes if dtypes[name] != "string"},
    )


def test_the_package_declares_every_csv_column_and_identifiers_as_strings(dump):
    package = json.loads(dump["datapackage.json"])
    assert package["profile"] == "tabular-data-package"
    paths = {resource["path"] for resource in package["resources"]}
    assert paths == {name for name in dump if name.startswith("csv/")}
    papers = next(r for r in package["resources"] if r["name"] == "papers")
    types = {field["name"]: field["type"] for field in papers["schema"]["fields"]}
    assert types["arxiv_id"] == types["doi"] == types["slug"] == "string"
    assert types["id"] == "integer" and types["publication_date"] == "date"
    for resource in package["resources"]:
        header = dump[resource["path"]].decode().splitlines()[0].split(",")
        assert [field["name"] for field in resource["schema"]["fields"]] == header


def test_pandas_with_the_declared_types_gives_every_identifier_back(dump):
    package = json.loads(dump["datapackage.json"])
    frames = {r["name"]: typed_frame(dump, r) for r in package["resources"]}
    papers = frames["papers"]
    stored = {
        pk: (slug, arxiv_id, doi)
        for pk, slug, arxiv_id, doi in Paper.objects.published().values_list(
            "pk", "slug", "arxiv_id", "doi"
        )
    }
    loaded = {
        int(row.id): (row.slug, row.arxiv_id, row.doi) for row in papers.itertuples(index=False)
    }
    assert loaded == stored
    assert "1912.06680" in set(papers["arxiv_id"])
    assert "2512.99010" not in set(papers["arxiv_id"])  # the draft
    # Guessing, pandas would have read the ids as numbers.
    guessed = pd.read_csv(io.BytesIO(dump["csv/papers.csv"]))
    assert "1912.06680" not in {str(value) for value in guessed["arxiv_id"]}


def test_the_readme_has_a_data_dictionary_with_date_precision(dump):
    readme = dump["README.md"].decode()
    assert "## Data dictionary" in readme and "datapackage.json" in readme
    assert "| `date_precision` |" in readme and "placeholder" in readme
    assert "| `arxiv_id` | string |" in readme
