"""The dump's column types and data dictionary: a Frictionless Data Package (`datapackage.json`,
https://specs.frictionlessdata.io/tabular-data-package/) over its CSV files, and the same in
words for its README.

Typed loaders guess otherwise: pandas and duckdb read `arxiv_id` as a number and drop a trailing
zero (`1912.06680` becomes `1912.0668`). With the declared types, identifiers are strings."""

import csv
import io

from django.db import models

# Django field classes to Frictionless types (the first match in the field's class order).
FIELD_TYPES = [
    (models.BooleanField, "boolean"),
    (models.DateTimeField, "datetime"),
    (models.DateField, "date"),
    (models.AutoField, "integer"),
    (models.BigAutoField, "integer"),
    (models.IntegerField, "integer"),
    (models.FloatField, "number"),
    (models.DecimalField, "number"),
]
EDGE_FIELDS = [
    ("citing_paper", "The citing paper's slug (papers.csv `slug`)."),
    ("cited_paper", "The cited paper's slug."),
    ("role", "How the citing paper uses the cited one (citation_roles.csv `slug`); empty when "
     "not yet classified."),
    ("polarity", "Whether it supports or contrasts with it (citation_polarities.csv `slug`); "
     "empty when not yet classified."),
    ("source", "Who classified the edge."),
    ("context", "The citing sentence, where known."),
]  # fmt: skip
# What a column means beyond its field's own description.
NOTES = {
    "date_precision": "How much of `publication_date` is a fact: `day` (all of it), `month` "
    "(year and month; the day is the 1st), `year` (the year; the date is 1 January), "
    "`unknown` (none of it: the date is a placeholder that only keeps the editors' order, "
    "never a publication date).",
    "reported_on_precision": "How much of a claim's `reported_on` is a fact, as "
    "`date_precision` is for a paper; `reported_on` is empty when it is `unknown`.",
    "arxiv_id": "The arXiv identifier as a string (e.g. `1912.06680`, `hep-th/9901001`); never "
    "read it as a number.",
    "doi": "The DOI, lower case, without resolver URL; a string.",
}


def column_type(model, name):
    """The Frictionless type (and format) of one CSV column of `model`'s table."""
    if name == "id":
        return {"type": "integer"}
    try:
        field = model._meta.get_field(name)
    except Exception:  # noqa: BLE001 - a column without a model field is text
        return {"type": "string"}
    if field.many_to_many:
        return {"type": "string"}  # the related rows' keys, joined with "; "
    if field.is_relation:
        related = field.related_model
        natural = hasattr(related, "natural_key")
        return {"type": "string"} if natural else column_type(related, "id")
    for field_class, kind in FIELD_TYPES:
        if isinstance(field, field_class):
            # Times as Django writes them (ISO 8601, with fractions of a second and a zone).
            return {"type": kind, "format": "any"} if kind == "datetime" else {"type": kind}
    return {"type": "string"}


def describe(model, name):
    if name in NOTES:
        return NOTES[name]
    if name == "id":
        return "The row's id (other tables refer to it)."
    try:
        field = model._meta.get_field(name)
    except Exception:  # noqa: BLE001
        return ""
    text = str(getattr(field, "help_text", "") or getattr(field, "verbose_name", "") or "")
    if field.many_to_many:
        text = f"{text} (ids of {field.related_model._meta.verbose_name_plural}, joined with '; ')"
    return text.strip()


def header(data):
    return next(csv.reader(io.StringIO(data.decode())), [])


def resource(name, path, fields):
    return {
        "name": name,
        "path": path,
        "profile": "tabular-data-resource",
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8",
        "schema": {"fields": fields, "missingValues": [""]},
    }


def data_package(files, models_by_table, title, version, licence_url):
    """The descriptor (a dict) of the CSV files among `files` ({path: bytes}), typed from the
    models of `models_by_table` ({table name: model})."""
    resources = []
    for table, model in models_by_table.items():
        path = f"csv/{table}.csv"
        fields = [
            {"name": column, **column_type(model, column), "description": describe(model, column)}
            for column in header(files[path])
        ]
        described = resource(table, path, fields)
        described["schema"]["primaryKey"] = "id"
        resources.append(described)
    edges = [{"name": name, "type": "string", "description": text} for name, text in EDGE_FIELDS]
    resources.append(resource("edges", "csv/edges.csv", edges))
    return {
        "profile": "tabular-data-package",
        "name": "rlscaling-dump",
        "title": title,
        "version": version,
        "licenses": [{"name": "CC-BY-4.0", "path": licence_url, "title": "CC BY 4.0"}],
        "resources": resources,
    }


def data_dictionary(package):
    """The package's tables and columns in Markdown, for the README."""
    lines = [
        "",
        "## Data dictionary",
        "",
        "Column types for typed loaders are in `datapackage.json` (a Frictionless Data "
        "Package): read `arxiv_id`, `doi` and every slug as strings, e.g. with pandas "
        "`pd.read_csv(path, dtype=str, keep_default_na=False)`. An empty cell is no value.",
    ]
    for described in package["resources"]:
        lines += [
            "",
            f"### `{described['path']}`",
            "",
            "| column | type | meaning |",
            "|---|---|---|",
        ]
        for field in described["schema"]["fields"]:
            meaning = field["description"].replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{field['name']}` | {field['type']} | {meaning} |")
    return "\n".join(lines) + "\n"
