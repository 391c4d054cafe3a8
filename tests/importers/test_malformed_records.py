"""Malformed and hostile records in every import format: each is refused with a message that
names the record (and the field where there is one), before anything is written, and no
record can cost more than a bounded amount of time or memory to read. Wrong JSON types,
NaN/1e400, NUL, lone surrogates, deep nesting, a 5000-digit year, 1000-deep BibTeX braces, an
arXiv version number in the billions and an OpenAlex abstract index with positions in the
billions were each a 500 (or a worker killed) before."""

import json
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from citations.importers import BadImportFile, make_plan, parse
from citations.models import Paper

pytestmark = pytest.mark.django_db

WORK = {"id": "https://openalex.org/W123", "title": "A title"}
S2 = {"paperId": "abc123", "title": "A title"}
CSL = {"id": "item-1", "type": "article-journal", "title": "A title"}
ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><entry>
<id>http://arxiv.org/abs/2401.00001{version}</id><title>{title}</title>
<published>2024-01-01T00:00:00Z</published></entry></feed>"""


def openalex(**fields):
    return json.dumps({**WORK, **fields})


def ris(**tags):
    """One RIS record: a title and the given tags."""
    lines = [f"{tag}  - {value}" for tag, value in {"TI": "T", **tags}.items()]
    return "\n".join(["TY  - JOUR", *lines, "ER  - ", ""])


def nested(depth):
    return "[" * depth + "]" * depth


CASES = [
    # (format, text, what the message must name)
    ("openalex", openalex(title=123), ["W123", "title"]),
    ("openalex", openalex(title=["a"]), ["W123", "title"]),
    ("openalex", openalex(title="a\x00b"), ["W123", "title"]),
    ("openalex", openalex(title="\ud800 lone"), ["W123", "title"]),
    ("openalex", openalex(publication_year="x")[:-1] + ', "y": NaN}', ["NaN"]),
    ("openalex", openalex()[:-1] + ', "publication_year": 1e400}', ["record 1"]),
    ("openalex", openalex()[:-1] + ', "publication_year": ' + "9" * 5000 + "}", ["record 1"]),
    ("openalex", openalex(publication_year=99999), ["W123", "publication_year"]),
    ("openalex", openalex(publication_year="2024"), ["W123", "publication_year"]),
    ("openalex", openalex(abstract_inverted_index={"a": [10**9]}), ["W123", "abstract"]),
    (
        "openalex",
        openalex(abstract_inverted_index={"a": list(range(60_000))}),
        ["W123", "abstract"],
    ),
    ("openalex", openalex(abstract_inverted_index={"a": "0"}), ["W123", "abstract"]),
    ("openalex", openalex(abstract_inverted_index=[1, 2]), ["W123", "abstract"]),
    ("openalex", openalex(authorships="x"), ["W123"]),
    ("openalex", openalex(authorships=[{"author": 5}]), ["W123"]),
    ("openalex", openalex(ids=5), ["W123"]),
    ("openalex", openalex(locations=[5]), ["W123"]),
    ("openalex", openalex(title="t" * 100_000), ["W123", "title"]),
    ("openalex", openalex()[:-1] + ', "x": ' + nested(100_000) + "}", ["nested"]),
    ("s2", json.dumps({**S2, "title": 123}), ["title"]),
    ("s2", json.dumps({**S2, "year": "9" * 50}), ["year"]),
    ("s2", json.dumps({**S2, "authors": "x"}), ["abc123"]),
    ("s2", json.dumps({**S2, "abstract": {"a": 1}}), ["abstract"]),
    ("csl", json.dumps([{**CSL, "title": ["a"]}]), ["item-1", "title"]),
    ("csl", json.dumps([{**CSL, "issued": {"date-parts": [["9" * 5000]]}}]), ["item-1"]),
    ("csl", json.dumps([{**CSL, "issued": {"date-parts": [[2024, 99]]}}]), ["item-1"]),
    ("csl", json.dumps([{**CSL, "author": [{"family": ["x"]}]}]), ["item-1"]),
    ("bibtex", "@article{k,\n title = {T},\n year = {" + "9" * 5000 + "}\n}\n", ["year"]),
    ("bibtex", "@article{k,\n title = {" + "{" * 1000 + "x" + "}" * 1000 + "}\n}\n", ["line"]),
    ("bibtex", "@article{k,\n title = {T},\n eprint = {2401.00001v5000}\n}\n", ["version"]),
    ("arxiv", ATOM.format(version="v5000", title="T"), ["2401.00001", "version"]),
    ("arxiv", ATOM.format(version="v" + "9" * 20, title="T"), ["2401.00001", "version"]),
    ("arxiv", ATOM.format(version="v1", title="t" * 100_000), ["2401.00001", "title"]),
    ("ris", ris(PY="9" * 5000), ["record 1", "PY"]),
    ("ris", ris(DA="2024/99/99"), ["record 1", "DA"]),
    ("ris", ris(TI="t" * 100_000), ["record 1", "TI"]),
    ("ris", ris(AB="a\n" * 60_000), ["record 1", "AB"]),  # inline: under 256 KB
    ("ris", ris(UR="https://arxiv.org/abs/2401.00001v" + "9" * 20), ["record 1", "version"]),
    ("ris", ris(AU="x\x00y"), ["record 1", "AU"]),
    ("ris", ris(DO="10.1 not a doi"), ["record 1", "DO"]),
    ("ris", ris(VL="v" * 200_000), ["record 1", "VL"]),
    ("ris", ris()[: -len("ER  - \n")], ["record 1", "ER"]),
    ("ris", "TY  - JOUR\nTI  - T\n" + "KW  - k\n" * 20_000 + "ER  - \n", ["record 1", "values"]),
]


@pytest.mark.parametrize(("format", "text", "named"), CASES, ids=range(len(CASES)))
def test_a_malformed_record_is_refused_naming_it(format, text, named):
    started = time.monotonic()
    with pytest.raises(BadImportFile) as refused:
        make_plan(parse(text, format))
    assert time.monotonic() - started < 5
    message = str(refused.value)
    for word in named:
        assert word in message, message


@pytest.mark.parametrize(("format", "text", "named"), CASES[::3], ids=range(len(CASES[::3])))
def test_through_the_api_a_malformed_record_is_a_400_and_nothing_is_written(
    editor, format, text, named
):
    api = APIClient()
    api.force_authenticate(editor)
    response = api.post(
        "/api/v1/imports/", {"text": text, "format": format, "apply": True}, format="json"
    )
    assert response.status_code == 400, response.content[:300]
    assert named[0] in json.dumps(response.json(), ensure_ascii=False)
    assert not Paper.objects.exists()


def test_arxiv_versions_null_in_a_multipart_paper_is_a_400(editor):
    api = APIClient()
    api.force_authenticate(editor)
    for value in ["null", "", "v1,v2", "v99999999999"]:
        response = api.post(
            "/api/v1/papers/", {"title": "A paper", "arxiv_versions": value}, format="multipart"
        )
        assert response.status_code == 400, (value, response.status_code)
        assert "arxiv_versions" in response.json()["errors"]
    assert not Paper.objects.exists()


# -- property: any malformed record, any format ----------------------------------------------

HOSTILE_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(["\x00", "\ud800", "9" * 400, "v" + "9" * 30, "2024-99-99", "{" * 60]),
)
JSON_VALUES = st.recursive(
    HOSTILE_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = {
    "openalex": (WORK, ["title", "display_name", "ids", "doi", "locations", "authorships",
                        "abstract_inverted_index", "publication_date", "publication_year",
                        "primary_location", "referenced_works"]),
    "s2": (S2, ["title", "externalIds", "authors", "abstract", "venue", "publicationTypes",
                "publicationDate", "year", "references", "citations"]),
    "csl": (CSL, ["title", "author", "abstract", "container-title", "URL", "DOI", "issued",
                  "number", "type"]),
}  # fmt: skip


def dumps(document):
    return json.dumps(document, allow_nan=True)


@st.composite
def malformed_json_record(draw):
    format = draw(st.sampled_from(sorted(FIELDS)))
    base, fields = FIELDS[format]
    changes = draw(st.dictionaries(st.sampled_from(fields), JSON_VALUES, min_size=1, max_size=4))
    document = {**base, **changes}
    return format, dumps([document] if format == "csl" else document)


BIB_FIELDS = ["title", "author", "year", "date", "eprint", "doi", "abstract", "journal", "url"]
BIB_VALUES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["9" * 5000, "{" * 300 + "x" + "}" * 300, "2401.00001v99999999999", "\x00"]),
)


@st.composite
def malformed_bibtex_record(draw):
    fields = draw(st.dictionaries(st.sampled_from(BIB_FIELDS), BIB_VALUES, min_size=1, max_size=4))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    return "bibtex", f"@article{{key,\n  title = {{T}},\n{body}\n}}\n"


@st.composite
def malformed_atom_record(draw):
    version = draw(st.one_of(st.integers(min_value=0, max_value=10**25).map(str), st.just("")))
    title = draw(st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=30))
    escaped = title.replace("&", "&amp;").replace("<", "&lt;")
    return "arxiv", ATOM.format(version=f"v{version}" if version else "", title=escaped)


RIS_TAGS = ["TY", "TI", "T1", "AU", "A1", "PY", "DA", "Y1", "T2", "JO", "JF", "DO", "UR",
            "AB", "N1", "N2", "KW", "PB", "AD", "ID", "VL", "UK", "ER", "XX"]  # fmt: skip
RIS_VALUES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["9" * 5000, "2024/99/99", "2024///", "https://arxiv.org/abs/2401.00001v99999999999",
         "arXiv:2401.00001v0", "10.48550/arXiv.x", "\x00", "\ud800", "a;b;;c", "Smith, , Jr.",
         ",", "\nER  - \nTY  - JOUR", "\n  continued", "x" * 6000]
    ),
)  # fmt: skip


@st.composite
def malformed_ris_record(draw):
    tags = draw(st.lists(st.tuples(st.sampled_from(RIS_TAGS), RIS_VALUES), min_size=1, max_size=6))
    lines = ["TY  - JOUR", "TI  - T", *(f"{tag}  - {value}" for tag, value in tags)]
    if draw(st.booleans()):
        lines.append("ER  - ")
    return "ris", "\n".join(lines) + "\n"


# The number of examples comes from the Hypothesis profile (tests/conftest.py): a few in the
# default run, many in the slow step.
PROPERTY = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@PROPERTY
@given(
    case=st.one_of(
        malformed_json_record(),
        malformed_bibtex_record(),
        malformed_atom_record(),
        malformed_ris_record(),
    )
)
def test_every_importer_refuses_or_reads_any_malformed_record(roles, case):
    format, text = case
    started = time.monotonic()
    try:
        plan = make_plan(parse(text, format))
    except BadImportFile:
        pass
    else:
        for record in plan.records if hasattr(plan, "records") else []:
            assert isinstance(record.title, str)
    assert time.monotonic() - started < 5
    assert not Paper.objects.exists()


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    case=st.one_of(
        malformed_json_record(),
        malformed_bibtex_record(),
        malformed_atom_record(),
        malformed_ris_record(),
    )
)
def test_through_the_api_any_malformed_record_is_never_a_5xx(editor, roles, case):
    format, text = case
    # JSON cannot carry a lone surrogate (the client cannot send it); the parsers' own test
    # above feeds them.
    assume(not any(0xD800 <= ord(char) <= 0xDFFF for char in text))
    api = APIClient()
    api.force_authenticate(editor)
    before = Paper.objects.count()
    response = api.post(
        "/api/v1/imports/", {"text": text, "format": format, "apply": True}, format="json"
    )
    assert response.status_code < 500, (case, response.content[:300])
    if response.status_code == 400:
        assert Paper.objects.count() == before
