"""Every parameter a reader can set on a list, page or API, has a row in the benchmark
(bench/endpoints.py), so its time at 100k papers / 1M citations is measured with every cache
off (docs/decisions/0001-performance.md, line 3). The parameters come from what each view
declares it reads (`@reads_query` on pages, the filter sets, search, ordering, paging and
group_by of API lists), so a new filter fails here until it is given a row."""

from urllib.parse import parse_qsl, urlsplit

from bench.endpoints import ENDPOINTS, EXCLUDED, NOT_FILTERS, TARGETS
from tests.helpers import reader_query_parameters

DUMMY = dict.fromkeys(TARGETS, "1")


def benchmarked_parameters():
    """{route: the parameters its rows set}."""
    seen = {}
    for endpoint in ENDPOINTS:
        query = urlsplit(endpoint.template.format(**DUMMY)).query
        seen.setdefault(endpoint.route, set()).update(name for name, _ in parse_qsl(query))
    return seen


def excluded(route):
    return any(route == key or route.startswith(f"{key}:") for key in EXCLUDED)


def test_every_parameter_of_every_list_has_a_benchmark_row():
    seen = benchmarked_parameters()
    missing = {
        route: sorted(names - NOT_FILTERS.keys() - seen.get(route, set()))
        for route, names in reader_query_parameters().items()
        if not excluded(route)
    }
    missing = {route: names for route, names in missing.items() if names}
    assert not missing, f"add a row to bench/endpoints.py for each: {missing}"


def test_the_lists_include_the_pages_and_the_api():
    """The walk finds pages' forms and API filter sets alike (it would pass vacuously on none)."""
    lists = reader_query_parameters()
    assert {"q", "tag", "layer", "year", "sort", "page"} <= lists["citations:research-index"]
    assert {"benchmark", "task_family", "sort"} <= lists["results:list"]
    assert {"layer", "status"} <= lists["evidence:claims"]
    assert {"cites", "search", "ordering", "group_by"} <= lists["api:paper-list"]
    assert {"role", "polarity", "provenance"} <= lists["api:paper-citations"]
    assert "api:paper-detail" not in lists


def test_not_filters_are_read_somewhere_and_say_why():
    read = set().union(*reader_query_parameters().values())
    assert NOT_FILTERS.keys() <= read, "stale NOT_FILTERS entries"
    assert all(len(reason) > 20 for reason in NOT_FILTERS.values())
