"""Bad input gets a 4xx, never a 500: property-based (hypothesis) random and hostile query
strings, paths, form data and JSON bodies, sent to every public page and every API endpoint
and filter. Bounded: a fixed number of examples per URL group, each under a deadline."""

import datetime
import json
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token

from bottlenecks.models import Layer
from citations.api.filters import HubFilterSet
from citations.filters import CitingPaperFilter, ResearchIndexFilter
from citations.models import Author, Citation, Paper
from evidence.diagnosis import DiagnosisForm
from notes.models import ResearchNote
from results.models import Benchmark
from rlscaling.api_urls import router

pytestmark = pytest.mark.django_db

# The number of examples per test comes from the Hypothesis profile (tests/conftest.py): a few
# in the default run, many in the slow step.
FUZZ = settings(
    deadline=datetime.timedelta(seconds=10),  # per example; generous for a loaded CI machine
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HOSTILE = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\x00" * 5,
    "%00",
    "\r\n",
    "\ufeff",
    "\u202e",
    "💥",
    "ß" * 50,
    "x" * 5000,
    "-1",
    "0",
    "1e400",
    "NaN",
    "Infinity",
    "9" * 40,
    "-9" * 20,
    "1.5",
    "0x10",
    "true",
    "false",
    "null",
    "None",
    "[]",
    "{}",
    "2024-13-45",
    "2024-02-30T25:61:61Z",
    "0000-00-00",
    "9999-12-31T23:59:59+99:00",
    "' OR '1'='1",
    "'; DROP TABLE citations_paper; --",
    "1) OR 1=1--",
    '" onmouseover="alert(1)',
    "<script>alert(1)</script>",
    "../../../../etc/passwd",
    "..%2f..%2fetc%2fpasswd",
    "%",
    "%%",
    "%zz",
    "\\",
    "*",
    "?",
    "#",
    "&",
    "=",
    "__proto__",
    "-title",
    "title,-title,,",
    "pk__gt",
    "slug__regex",
    "cD0yMDI0",  # base64 of a fake cursor position
    "bz0xMDAwMDAwMDAwMDAwMDAwMDAwMA==",
    "cD1ub3QtYS1kYXRl",
]

# text() without lone surrogates: they cannot even be put into a URL.
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
values = st.one_of(st.sampled_from(HOSTILE), texts, st.integers().map(str))


def _filter_params(filterset_class):
    """The query parameters a FilterSet reads (range filters read name_after, name_before)."""
    names = set()
    for name, query_filter in filterset_class.base_filters.items():
        suffixes = getattr(query_filter.field.widget, "suffixes", None)
        if suffixes:
            names.update(f"{name}_{suffix}" for suffix in suffixes)
        else:
            names.add(name)
    return names


PAGE_PARAMS = {
    "q", "page", "page_size", "cursor", "search", "ordering", "format", "sort", "order",
    "status", "explorer_page", "citing_page", "p",
}  # fmt: skip
PUBLIC_PARAMS = sorted(
    PAGE_PARAMS
    | _filter_params(ResearchIndexFilter)
    | _filter_params(CitingPaperFilter)
    | set(DiagnosisForm.base_fields)
    | {"status"}  # /claims/
)


def query_strategy(keys):
    key = st.one_of(st.sampled_from(sorted(keys)), texts)
    value = st.one_of(values, st.lists(values, min_size=2, max_size=3))
    return st.dictionaries(key, value, max_size=6)


# -- the URLs ---------------------------------------------------------------------------------


def _named_routes(resolver=None, namespace=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _named_routes(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}{pattern.name}"


def public_route_names():
    admin = {name for name in _named_routes() if name.startswith("admin:")}
    api = {name for name in _named_routes() if name.startswith("api:")}
    return set(_named_routes()) - admin - api


def public_urls():
    """A concrete address for every public page, from the demo content."""
    paper = Paper.objects.in_research_index().filter(citations_received__isnull=False).first()
    note = ResearchNote.objects.published().first()
    layer = Layer.objects.published().first()
    tag = paper.tags.first() or ResearchNote.objects.published().exclude(tags=None)[0].tags.first()
    from web.sitemaps import SITEMAPS

    benchmark = Benchmark.objects.published().first()

    kwargs = {
        "sitemap-section": {"section": next(iter(SITEMAPS))},
        "citations:paper-detail": {"slug": paper.slug},
        "citations:paper-bibtex": {"slug": paper.slug},
        "notes:note-detail": {"slug": note.slug},
        "bottlenecks:layer-detail": {"slug": layer.slug},
        "tag-detail": {"slug": tag.slug},
        "citations:paper-csl": {"slug": paper.slug},
        "citations:paper-ris": {"slug": paper.slug},
        "citations:paper-jsonld": {"slug": paper.slug},
        "citations:hub-export": {"slug": paper.slug, "extension": "bib"},
        "citations:research-export": {"extension": "ris"},
        "citations:tag-export": {"slug": tag.slug, "extension": "json"},
        "citations:layer-export": {"slug": layer.slug, "extension": "bib"},
        "feed-citing": {"slug": paper.slug},
        "feed-tag": {"slug": tag.slug},
        "feed-layer": {"slug": layer.slug},
        "citations:suggest-correction": {"pk": Citation.objects.public().first().pk},
        "paper-card": {"slug": paper.slug},
        "note-card": {"slug": note.slug},
        "discovery:paper-graph": {"slug": paper.slug},
        "discovery:paper-graph-json": {"slug": paper.slug},
        "discovery:paper-graph-graphml": {"slug": paper.slug},
        "results:benchmark": {"slug": benchmark.slug},
        "results:benchmark-csv": {"slug": benchmark.slug},
        "discovery:author-detail": {
            "slug": Author.objects.filter(authorships__paper__in=Paper.objects.published())
            .first()
            .slug
        },
    }
    urls = {name: reverse(name, kwargs=kwargs.get(name)) for name in sorted(public_route_names())}
    # The diagnosis steps after the first need a selection.
    for name in urls:
        if name.startswith("evidence:diagnose-"):
            urls[name] += "?signal=compute-saturated"
    return urls


# Slugged addresses whose last segment the path test replaces with hostile text.
SLUG_PREFIXES = [
    "/papers/",
    "/authors/",
    "/notes/",
    "/tags/",
    "/bottlenecks/",
    "/api/v1/papers/",
    "/api/v1/papers/by-arxiv/",
    "/api/v1/papers/by-doi/",
    "/api/v1/notes/",
    "/api/v1/citations/",
    "/api/v1/layers/",
    "/api/v1/tags/",
    "/api/v1/questions/",
    "/",
    "/api/v1/",
    "/static/",
    "/feeds/",
    "/sitemap-",
]


def api_lists():
    """basename -> (list URL, the query parameters its filters, search and ordering take)."""
    lists = {}
    for _, viewset, basename in router.registry:
        params = set(PAGE_PARAMS)
        if getattr(viewset, "filterset_class", None):
            params |= _filter_params(viewset.filterset_class)
        lists[basename] = (reverse(f"api:{basename}-list"), params)
    params = set(PAGE_PARAMS) | _filter_params(HubFilterSet)
    hub = Paper.objects.published().filter(citations_received__isnull=False).first()
    lists["paper-citations"] = (reverse("api:paper-citations", kwargs={"slug": hub.slug}), params)
    return lists


def assert_not_a_server_error(response, what):
    assert response.status_code < 500, (what, response.status_code, response.content[:500])


@pytest.fixture
def clients(demo, editor):
    """An anonymous client, a logged-in editor, and an editor's API token client."""
    anonymous = Client()
    logged_in = Client()
    logged_in.force_login(editor)
    token = Client(headers={"authorization": f"Token {Token.objects.create(user=editor).key}"})
    return {"anonymous": anonymous, "editor": logged_in, "token": token}


# -- public pages -----------------------------------------------------------------------------


def test_every_public_page_is_fuzzed(demo):
    urls = public_urls()
    assert {"home", "citations:research-index", "citations:paper-detail"} <= set(urls)
    # No dump has been exported in the tests: its address is a plain 404 until then.
    for name, url in urls.items():
        assert Client().get(url).status_code < (500 if name == "dump-latest" else 400), name


@FUZZ
@given(data=st.data())
def test_public_pages_with_hostile_query_strings(clients, data):
    cache.clear()
    urls = public_urls()
    name = data.draw(st.sampled_from(sorted(urls)), label="page")
    query = data.draw(query_strategy(PUBLIC_PARAMS), label="query")
    who = data.draw(st.sampled_from(["anonymous", "editor"]), label="who")
    response = clients[who].get(urls[name], query)
    assert_not_a_server_error(response, (name, query))


@FUZZ
@given(raw=st.binary(max_size=200), page=st.sampled_from(["/", "/research/", "/api/v1/papers/"]))
def test_raw_undecodable_query_strings(clients, raw, page):
    cache.clear()
    # Percent-encoded arbitrary bytes: invalid UTF-8, stray separators, NULs.
    query = "".join(f"%{byte:02x}" if byte not in b"=&" else chr(byte) for byte in raw)
    response = clients["anonymous"].get(page, QUERY_STRING=query)
    assert_not_a_server_error(response, (page, query))


@FUZZ
@given(prefix=st.sampled_from(SLUG_PREFIXES), segment=st.one_of(st.sampled_from(HOSTILE), texts))
def test_hostile_paths(clients, prefix, segment):
    cache.clear()
    path = prefix + quote(segment.replace("\x00", "%00"), safe="/%")
    for suffix in ["", "/", ".bib", ".xml"]:
        response = clients["anonymous"].get(path + suffix)
        assert_not_a_server_error(response, path + suffix)


@FUZZ
@given(data=st.data())
def test_form_posts_to_public_pages(clients, data):
    cache.clear()
    urls = public_urls()
    name = data.draw(st.sampled_from(sorted(urls)), label="page")
    form = data.draw(st.dictionaries(texts, values, max_size=5), label="form")
    response = clients["anonymous"].post(urls[name], form)
    assert_not_a_server_error(response, (name, form))


@FUZZ
@given(form=st.dictionaries(st.sampled_from(["username", "password", "next", "x"]), values))
def test_the_admin_login_form_with_hostile_data(clients, form):
    cache.clear()
    response = clients["anonymous"].post(reverse("admin:login"), form)
    assert_not_a_server_error(response, form)


@FUZZ
@given(data=st.data())
def test_admin_changelists_with_hostile_search_and_filters(clients, data):
    from django.contrib import admin

    models = sorted(
        (m for m in admin.site._registry if m._meta.app_label in {"citations", "notes"}),
        key=lambda m: m.__name__,
    )
    model = data.draw(st.sampled_from(models), label="model")
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    keys = ["q", "o", "p", "status", "status__exact", "e", "_to_field", "all"]
    query = data.draw(query_strategy(keys), label="query")
    response = clients["editor"].get(url, query)
    assert_not_a_server_error(response, (url, query))


# -- the API ----------------------------------------------------------------------------------


def test_every_api_list_is_fuzzed(demo):
    lists = api_lists()
    assert {basename for _, _, basename in router.registry} <= set(lists)
    for basename, (url, _) in lists.items():
        assert Client().get(url).status_code == 200, basename


@FUZZ
@given(data=st.data())
def test_api_filters_with_hostile_values(clients, data):
    cache.clear()
    lists = api_lists()
    basename = data.draw(st.sampled_from(sorted(lists)), label="endpoint")
    url, params = lists[basename]
    query = data.draw(query_strategy(params), label="query")
    who = data.draw(st.sampled_from(["anonymous", "token"]), label="who")
    response = clients[who].get(url, query)
    assert_not_a_server_error(response, (basename, query))
    if response.status_code == 400:
        assert response.json()["status"] == 400  # the API's own error body, not HTML


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.sampled_from(HOSTILE),
        texts,
    ),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(texts, children)),
    max_leaves=6,
)


def _writable_fields(viewset):
    serializer = viewset.serializer_class()
    return sorted(name for name, field in serializer.fields.items() if not field.read_only)


WRITABLE = sorted(
    (basename, viewset)
    for _, viewset, basename in router.registry
    if hasattr(viewset, "create") and "post" in viewset.http_method_names
)


@FUZZ
@given(data=st.data())
def test_api_writes_with_hostile_bodies(clients, data):
    cache.clear()
    basename, viewset = data.draw(st.sampled_from(WRITABLE), label="endpoint")
    fields = _writable_fields(viewset)
    body = data.draw(
        st.dictionaries(st.one_of(st.sampled_from(fields), texts), json_values, max_size=6),
        label="body",
    )
    model = viewset.queryset.model
    target = model.objects.order_by("pk").first()
    lookup = viewset.lookup_field
    detail = reverse(f"api:{basename}-detail", kwargs={lookup: getattr(target, lookup)})
    method, url = data.draw(
        st.sampled_from([("post", reverse(f"api:{basename}-list")), ("patch", detail)]),
        label="request",
    )
    client = clients["token"]
    response = getattr(client, method)(url, json.dumps(body), content_type="application/json")
    assert_not_a_server_error(response, (basename, method, body))


@FUZZ
@given(
    body=st.one_of(st.binary(max_size=100), texts.map(str.encode)),
    content_type=st.sampled_from(
        ["application/json", "application/x-www-form-urlencoded", "multipart/form-data", "text/xml"]
    ),
)
def test_api_writes_with_unparseable_bodies(clients, body, content_type):
    cache.clear()
    response = clients["token"].post("/api/v1/papers/", body, content_type=content_type)
    assert_not_a_server_error(response, (body, content_type))
    assert response.status_code in {400, 415}


@FUZZ
@given(form=st.dictionaries(st.sampled_from(["username", "password", "x"]), json_values))
def test_the_token_endpoint_with_hostile_bodies(clients, form):
    cache.clear()
    response = clients["anonymous"].post(
        reverse("api:token"), json.dumps(form), content_type="application/json"
    )
    assert_not_a_server_error(response, form)


def test_bad_input_leaves_the_content_alone(clients):
    """A sanity check on the fuzzers' targets: drafts stay drafts, edges stay edges."""
    papers, edges = Paper.objects.count(), Citation.objects.count()
    clients["anonymous"].get("/research/", {"q": "'; DROP TABLE citations_paper; --"})
    clients["anonymous"].get("/api/v1/papers/", {"search": "\x00' OR 1=1 --"})
    assert (Paper.objects.count(), Citation.objects.count()) == (papers, edges)
    assert django_settings.DEBUG is False
