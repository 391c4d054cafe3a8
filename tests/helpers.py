"""What several test modules share: demo slugs, query ceilings, page text, API clients, admin
forms. Fixtures live in conftest.py; test modules import from here, never from each other."""

import os
import re
import socket
import threading
from html.parser import HTMLParser
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.test import Client
from django.urls import URLResolver, get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.mixins import ListModelMixin
from rest_framework.test import APIClient

from apikit.params import view_query_parameters
from bottlenecks.models import Analysis, AnalysisStep
from citations.corrections.models import CorrectionSuggestion
from citations.identity import PaperIdentifier, PaperSlugAlias
from citations.importers import make_plan, parse
from citations.models import Author, Authorship
from evidence.models import SignalLayer, TestOutcome
from notes.models import GuideSection
from results.tasks import refit
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    ClaimFactory,
    CommunityPostFactory,
    DimensionFactory,
    DiscriminatingTestFactory,
    FailureSignalFactory,
    LayerFactory,
    LoopStageFactory,
    PaperFactory,
    QuestionFactory,
    ResearchNoteFactory,
)
from tests.results.factories import BenchmarkFactory, SeriesFactory, curve_points

# The demo's hub paper (seed 001), cited by most of the demo's edges.
ART_OF_SCALING = "the-art-of-scaling-reinforcement-learning-compute-for-llms"

# Query ceilings per page, pinned against the demo content and held at scale (pages/test_scale_hub).
HOME_QUERY_CEILING = 14
# With the neighbours block (discovery): one read of its three lists; its claims' results, the
# runs it reports and their fits: one read each.
HUB_QUERY_CEILING = 19
INDEX_QUERY_CEILING = 12
# Per API list endpoint: the same at page_size 5 and 50, and for a hub with thousands of edges.
API_LIST_QUERY_CEILINGS = [
    ("/api/v1/papers/", 6),
    ("/api/v1/citations/", 1),
    (f"/api/v1/papers/{ART_OF_SCALING}/citations/", 5),
    ("/api/v1/citation-roles/", 2),
    ("/api/v1/citation-polarities/", 2),
    ("/api/v1/tags/", 4),
    ("/api/v1/notes/", 6),
    ("/api/v1/community-posts/", 2),
    ("/api/v1/questions/", 2),
    ("/api/v1/dimensions/", 2),
    ("/api/v1/loop-stages/", 2),
    ("/api/v1/layers/", 2),
    ("/api/v1/analyses/", 3),
    ("/api/v1/claims/", 7),
]


# Bibliography files (BibTeX, RIS, CSL-JSON, ...) the importer tests read.
IMPORT_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "imports"


def fixture_text(name):
    return (IMPORT_FIXTURES / name).read_text(encoding="utf-8")


def changes_nothing(plan):
    """Every paper and edge of an import plan is skipped: applying it would write nothing."""
    return all(step.action == "skip" for step in [*plan.papers, *plan.edges])


def run_import(*names, apply=True, publish=False):
    """Parse the named fixture files together, plan and (by default) apply; returns the plan."""
    records = [record for name in names for record in parse(fixture_text(name))]
    plan = make_plan(records, publish=publish)
    if apply:
        plan.apply()
    return plan


def text_of(response):
    """The page as text with tags removed and whitespace collapsed, for phrase checks."""
    html = response.content.decode()
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def token_client(user):
    """An API client authenticated with the user's token, as scripts use the API."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def walk(client, url):
    """Every result of a paginated list, following `next` links; and the pages seen."""
    results, pages = [], 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        results += response.json()["results"]
        url = response.json()["next"]
        pages += 1
    return results, pages


def slugs(results):
    return [row["slug"] for row in results]


# Read an admin change form the way a browser would submit it, for tests that POST it back.
SKIPPED_INPUT_TYPES = {"submit", "button", "reset", "file", "image"}


class _FormParser(HTMLParser):
    def __init__(self, form_id):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.in_form = False
        self.fields = []  # (name, value) pairs in document order
        self._textarea = None
        self._select = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        # A history revert form is named after the historical model: historicalpaper_form.
        if tag == "form" and (attrs.get("id") or "").endswith(self.form_id):
            self.in_form = True
        if not self.in_form:
            return
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type", "text") not in SKIPPED_INPUT_TYPES:
            if attrs.get("type") in {"checkbox", "radio"}:
                if "checked" in attrs:
                    self.fields.append((name, attrs.get("value", "on")))
            else:
                self.fields.append((name, attrs.get("value") or ""))
        elif tag == "textarea" and name:
            self._textarea = [name, ""]
        elif tag == "select" and name:
            self._select = {"name": name, "multiple": "multiple" in attrs, "options": []}
        elif tag == "option" and self._select is not None:
            self._select["options"].append((attrs.get("value", ""), "selected" in attrs))

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "form" and self.in_form:
            self.in_form = False
        elif tag == "textarea" and self._textarea is not None:
            # Browsers drop the one newline Django puts after <textarea>.
            name, value = self._textarea
            self.fields.append((name, value[1:] if value.startswith("\n") else value))
            self._textarea = None
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._select["options"] if selected]
            if not chosen and not self._select["multiple"] and self._select["options"]:
                chosen = [self._select["options"][0][0]]
            self.fields.extend((self._select["name"], value) for value in chosen)
            self._select = None


def admin_form_data(response, model):
    """The POST data of the admin change form in ``response`` (without empty inline templates)."""
    parser = _FormParser(f"{model._meta.model_name}_form")
    parser.feed(response.content.decode())
    assert parser.fields, "no admin form found in the response"
    data = {}
    for name, value in parser.fields:
        if "__prefix__" in name:
            continue
        data.setdefault(name, []).append(value)
    return data


def free_port(ports):
    """A port in ``ports`` nothing listens on, starting at an offset per xdist worker (gw0, gw1,
    ...) so that parallel workers do not probe and take the same one."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    offset = (int(worker) * 10 if worker.isdigit() else 0) % len(ports)
    for port in [*ports[offset:], *ports[:offset]]:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError(f"No free port in {ports.start}-{ports.stop - 1}.")


def inline_scripts(html):
    """The <script> elements of `html` that carry code inline (JSON-LD data blocks aside):
    under the strict CSP every script is a static file, only enhancing a page that works
    without it."""
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
    return [
        body
        for attributes, body in scripts
        if "src=" not in attributes and "application/ld+json" not in attributes
    ]


class SilentRedis:
    """A server that accepts connections and never answers: a hung Redis."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.accepted = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.accepted.append(connection)

    def close(self):
        self.listener.close()
        for connection in self.accepted:
            connection.close()


def at(moment):
    """Pretend the clock reads `moment` (every `timezone.now()` call)."""
    return mock.patch("django.utils.timezone.now", return_value=moment)


def get_rendering(client, url, statuses=(200,)):
    """The answer to GET `url` and the names of the templates it rendered, in order."""
    from django.test.signals import template_rendered

    rendered = []

    def count(sender, template, context, **kwargs):
        rendered.append(template.name)

    template_rendered.connect(count)
    try:
        response = client.get(url)
    finally:
        template_rendered.disconnect(count)
    assert response.status_code in statuses, url
    return response, rendered


def linked_content():
    """Rows of every model with history in the admin, linked as editors link them (the tests of
    recovery and of the admin's messages walk them): a hub paper with citing and cited edges,
    an author, identifiers, an old slug, tags and a layer; a note and a claim on it; a series of
    points with fits that the claim reports; a failure signal and a discriminating test on the
    layer; an analysis with steps. Returns the hub paper."""
    role, polarity = CitationRoleFactory(), CitationPolarityFactory()
    hub = PaperFactory(title="The hub paper")
    citing = [PaperFactory(title=f"Citing paper {n}") for n in range(2)]
    edges = [
        CitationFactory(citing_paper=paper, cited_paper=hub, role=role, polarity=polarity)
        for paper in citing
    ]
    CitationFactory(citing_paper=hub, cited_paper=citing[0])
    Authorship.objects.create(paper=hub, author=Author.objects.create(name="Ada"), position=0)
    PaperIdentifier.objects.create(paper=hub, scheme="doi", value="10.1234/hub")
    PaperSlugAlias.objects.create(paper=hub, slug="the-old-hub")
    CorrectionSuggestion.objects.create(citation=edges[0], reason="The role is wrong.")
    layer = LayerFactory()
    hub.tags.add("scaling")
    hub.layers.add(layer)
    note = ResearchNoteFactory(title="A note on the hub")
    note.papers.add(hub)
    note.layers.add(layer)
    note.tags.add("rewards")
    series = SeriesFactory(paper=hub, name="The hub's run")
    points = curve_points(series, count=6)
    refit(series)
    claim = ClaimFactory()
    claim.papers.add(hub)
    claim.notes.add(note)
    claim.results.add(*points[:2])
    claim.layers.add(layer)
    claim.contrasting_citations.add(edges[1])
    ClaimFactory(superseded_by=claim)
    signal = FailureSignalFactory()
    SignalLayer.objects.create(signal=signal, layer=layer)
    check = DiscriminatingTestFactory()
    check.layers.add(layer)
    check.claims.add(claim)
    check.papers.add(hub)
    check.signals.add(signal)
    TestOutcome.objects.create(test=check, layer=layer, observation="It rises.", action="Stop.")
    analysis = Analysis.objects.create(
        title="An analysis", slug="an-analysis", dek="In short.", status="published"
    )
    AnalysisStep.objects.create(analysis=analysis, order=1, title="First step")
    AnalysisStep.objects.create(analysis=analysis, order=2, title="Second step")
    DimensionFactory()
    LoopStageFactory()
    CommunityPostFactory()
    QuestionFactory()
    GuideSection.objects.create(key="a-section", heading="A section")
    # Unused, so that their deletes are not refused (the edges and series protect the others).
    CitationRoleFactory()
    CitationPolarityFactory()
    BenchmarkFactory()
    return hub


def url_patterns(patterns=None, namespace=None):
    """(namespace:name, view) of every named URL pattern."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or namespace
            if namespace and pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}"
            yield from url_patterns(pattern.url_patterns, inner)
        elif pattern.name:
            yield (f"{namespace}:{pattern.name}" if namespace else pattern.name), pattern.callback


def reader_query_parameters():
    """{route: the query parameters it reads} of every list a reader can narrow: each page's
    `@reads_query` declaration, each API list's filters, search, ordering, paging and group_by
    (apikit/params.py, the list the API refuses any other parameter by). An API detail is left
    out: it fetches one row by its key, whatever filters the list beside it has."""
    lists = {}
    for route, view in url_patterns():
        view_class = getattr(view, "cls", None)
        if view_class is None:
            names = getattr(view, "query_parameters", None)
        else:
            actions = getattr(view, "actions", None)
            if actions and actions.get("get") != "list":
                continue
            if not actions and not issubclass(view_class, ListModelMixin):
                continue
            actions = tuple(sorted(actions.items())) if actions else None
            names = view_query_parameters(view_class, actions)
        if names:
            lists[route] = frozenset(names)
    return lists


def sign_in(context, site, user):
    """A browser context signed in as `user`, with the session cookie of a test client's
    force_login. The login form itself is walked by tests/browser/test_admin_csp.py (and
    in-process in tests/admin); the other browser tests start past it, as a form login costs
    about a second of Chromium."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": site}])
    return context
