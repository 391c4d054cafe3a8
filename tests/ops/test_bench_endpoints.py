"""The benchmark's endpoint list (bench/endpoints.py) covers the whole site: every URL pattern,
every page in the README, every filter, search and ordering of every API list and page form;
what it leaves out is excluded by name with a reason. A new endpoint or parameter that is not
added to the list fails here instead of going unmeasured."""

import json
import re
from collections import defaultdict
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.urls import URLResolver, get_resolver, resolve
from rest_framework.mixins import ListModelMixin

from bench.endpoints import ENDPOINTS, EXCLUDED, TARGETS
from citations.filters import CitingPaperFilter, ResearchIndexFilter
from web.sitemaps import SITEMAPS

# slow (`make test-all`, CI's slow step): the tooling's own check (the bench list).
pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / "README.md"
NUMERIC_TARGETS = {"citation", "question", "post_year", "year", "result"}
DUMMY = {name: 1 if name in NUMERIC_TARGETS or name.endswith("_page") else "x" for name in TARGETS}


def url_names(patterns=None, namespace=None):
    """namespace:name of every named pattern."""
    names = set()
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or namespace
            if namespace and pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}"
            names |= url_names(pattern.url_patterns, inner)
        elif pattern.name:
            names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)
    return names


def excluded(name):
    return any(name == key or name.startswith(f"{key}:") for key in EXCLUDED)


def filled(endpoint):
    return urlsplit(endpoint.template.format(**DUMMY))


def queries_by_route():
    params = defaultdict(set)
    for endpoint in ENDPOINTS:
        for key, value in parse_qsl(filled(endpoint).query):
            params[endpoint.route].add(key)
            if key == "ordering":
                params[endpoint.route].add(f"ordering={value.lstrip('-')}")
            if key == "group_by":
                params[endpoint.route].add(f"group_by={value}")
    return params


def filter_params(filterset_class):
    """The query parameters a FilterSet reads (range filters read name_after, name_before)."""
    names = set()
    for name, query_filter in filterset_class.base_filters.items():
        suffixes = getattr(query_filter.field.widget, "suffixes", None)
        names |= {f"{name}_{suffix}" for suffix in suffixes} if suffixes else {name}
    return names


def test_every_url_pattern_is_benchmarked_or_excluded_with_a_reason():
    names = url_names()
    benchmarked = {endpoint.route for endpoint in ENDPOINTS}
    missing = {name for name in names if name not in benchmarked and not excluded(name)}
    assert not missing, f"add these to bench/endpoints.py (or to EXCLUDED, with why): {missing}"
    assert benchmarked <= names, "bench/endpoints.py names routes that no longer exist"
    for key in EXCLUDED:
        assert any(name == key or name.startswith(f"{key}:") for name in names), f"stale: {key}"
    assert all(len(reason) > 20 for reason in EXCLUDED.values())


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda endpoint: endpoint.template)
def test_each_endpoint_is_the_route_it_says_with_known_placeholders(endpoint):
    assert endpoint.placeholders <= set(TARGETS), "say what the placeholder is in TARGETS"
    assert resolve(filled(endpoint).path).view_name == endpoint.route


def test_the_rows_are_unique():
    templates = [endpoint.template for endpoint in ENDPOINTS]
    assert len(templates) == len(set(templates))


def api_views():
    """route -> the DRF view class of each API list the benchmark requests."""
    views = {}
    for endpoint in ENDPOINTS:
        match = resolve(filled(endpoint).path)
        view = getattr(match.func, "cls", None)
        actions = getattr(match.func, "actions", None)  # a viewset's {method: action}
        if actions and actions.get("get") == "list":
            views[endpoint.route] = view
        elif not actions and isinstance(view, type) and issubclass(view, ListModelMixin):
            views[endpoint.route] = view  # a plain list view (a paper's citations)
    return views


def test_every_api_filter_search_and_ordering_is_benchmarked():
    seen = queries_by_route()
    for route, view in api_views().items():
        wanted = set()
        if getattr(view, "filterset_class", None):
            wanted |= filter_params(view.filterset_class)
        if getattr(view, "search_fields", None):
            wanted.add("search")
        ordering_fields = getattr(view, "ordering_fields", None)
        if isinstance(ordering_fields, list | tuple):
            wanted |= {f"ordering={field}" for field in ordering_fields}
        wanted |= {f"group_by={name}" for name in getattr(view, "group_by_fields", {})}
        assert wanted <= seen[route], f"{route}: add {sorted(wanted - seen[route])}"


def test_every_filter_of_the_research_index_and_the_hub_explorer_is_benchmarked():
    seen = queries_by_route()
    index = filter_params(ResearchIndexFilter)
    assert index <= seen["citations:research-index"] | {"page"}
    assert {"page"} <= seen["citations:research-index"]
    explorer = filter_params(CitingPaperFilter)
    assert explorer | {"page"} <= seen["citations:paper-detail"]


def test_every_sitemap_section_is_benchmarked():
    sections = {
        filled(endpoint).path.removeprefix("/sitemap-").removesuffix(".xml")
        for endpoint in ENDPOINTS
        if endpoint.route == "sitemap-section"
    }
    assert sections == set(SITEMAPS)


def test_every_page_and_parameter_the_readme_lists_is_benchmarked():
    section = README.read_text().split("## The public site", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `/")]
    assert rows
    seen = queries_by_route()
    benchmarked = {endpoint.route for endpoint in ENDPOINTS}
    for row in rows:
        addresses, description = row.split("|")[1:3]
        routes = set()
        for address in re.findall(r"`(/[^`]*)`", addresses):
            route = resolve(re.sub(r"<[^>]+>", "x", address).split("?")[0]).view_name
            assert route in benchmarked, address
            routes.add(route)
        for param in re.findall(r"\?(\w+)=", description):
            assert any(param in seen[route] for route in routes), (addresses, param)


def test_every_growth_reason_names_a_benchmarked_row():
    """A row over the growth target gets its reason in the table from bench/growth_reasons.py;
    a reason for a row that no longer exists would never be read."""
    from bench.growth_reasons import GROWTH_REASONS

    templates = {endpoint.template for endpoint in ENDPOINTS}
    assert set(GROWTH_REASONS) <= templates, set(GROWTH_REASONS) - templates
    for reason in GROWTH_REASONS.values():
        assert "Next:" in reason or "next step" in reason.lower(), reason


def test_a_saved_run_is_reported_under_the_commit_it_measured(tmp_path, monkeypatch):
    """`--load FILE` reports the measurements again; the header names the commit that was
    measured (kept in the file), not whatever is checked out when the report is written."""
    from bench import bench

    options = {"workers": 2, "connections": 2, "rounds": 2, "duration": 0.5, "baseline": 0.25}
    saved = {"runs": [], "options": options, "command": "make bench", "commit": "abc1234"}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(saved))
    reported = []
    monkeypatch.setattr(bench, "report", lambda *args: reported.append(args[-1]))
    bench.main(["--load", str(path)])
    assert reported == ["abc1234"]


def test_the_report_says_which_contract_lines_a_run_meets():
    """The table's contract section reads lines 1, 3 and 4 of the performance contract off the
    run: the median cached share of pages and of the API, every row over the miss ceiling by
    name, and the worker's peak RSS."""
    from bench import bench

    def row(name, p50, p99, cached_share):
        return {
            "name": name,
            "state": "ok",
            "uncached": {"p50": p50, "p99": p99, "errors": 0, "requests": 10},
            "cached": {"ratio": cached_share},
        }

    run = {
        "name": "bench_large",
        "rss": [150.0, 120.0],
        "rows": [
            row("/healthz", 1, 2, 0.1),  # the baseline itself is not judged
            row("/", 20, 40, 0.95),
            row("/papers/{hub}/", 280, 1200, 0.85),
            row("/api/v1/papers/", 30, 60, 0.7),
        ],
    }
    verdict = bench.contract(run)
    assert verdict["shares"] == {"pages": pytest.approx(0.9), "API": 0.7}
    assert not verdict["cached_met"]
    assert [slow["name"] for slow in verdict["slow"]] == ["/papers/{hub}/"]
    assert verdict["rss_met"]
    text = "\n".join(bench.contract_lines([run]))
    assert "0.90 / 0.70: **not met**" in text
    assert "2 of 3 rows: **not met**" in text
    assert "`/papers/{hub}/` p50 280 ms, p99 1,200 ms" in text
