"""Every filter a reader can set, on every list page and API list, costs no more queries with
~30 rows behind it than with 2, and stays under a ceiling (docs/decisions/0001-performance.md,
line 3: the query count per request is constant across sizes). A smaller count at the larger
size is not growth (`/search/?q=scaling&kind=papers`: 4 queries with 2 matches, 3 with 30).
The filters are what each view declares it reads (tests/helpers.py `reader_query_parameters`),
each requested as the benchmark's row for it (bench/endpoints.py, which
tests/ops/test_bench_filters.py keeps complete), so a new filter is walked here too."""

import datetime
import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.bench import pick_targets
from bench.endpoints import ENDPOINTS, NOT_FILTERS
from bottlenecks.models import Layer
from citations.models import CitationPolarity, CitationRole, Paper
from tags.models import Tag
from tests.factories import CitationFactory, ClaimFactory, PaperFactory, ResearchNoteFactory
from tests.helpers import HUB_QUERY_CEILING, reader_query_parameters

pytestmark = pytest.mark.django_db

# Queries of one uncached request with one filter set: a page renders its lists, facets and
# navigation in a bounded number of reads (the most, the hub explorer's 19), an API list in a
# few.
PAGE_CEILING = HUB_QUERY_CEILING
API_CEILING = 10

# Rows whose count differs between the sizes for what the rows shown happen to be, not for
# how many there are (each with why).
ALLOWED_GROWTH = {
    # No demo paper has the DataCite DOI of the first arXiv id: an empty list at the small
    # size skips the prefetches of a non-empty one.
    "/api/v1/papers/?doi={doi}": 5,
}


def filter_rows(routes=None):
    """The benchmark rows that set each filter of each list: {template: Endpoint}."""
    rows = {}
    for route, names in reader_query_parameters().items():
        if routes is not None and route not in routes:
            continue
        for name in names - NOT_FILTERS.keys():
            setting = [
                endpoint
                for endpoint in ENDPOINTS
                if endpoint.route == route and f"{name}=" in endpoint.template.split("?", 1)[-1]
            ]
            assert setting, f"{route}: no benchmark row sets {name}= (bench/endpoints.py)"
            rows.update((endpoint.template, endpoint) for endpoint in setting)
    return rows


def query_counts(rows):
    """{template: (queries, status)} of one uncached request per row (the second of two, so
    per-process first-use lookups are not counted)."""
    targets, _ = pick_targets()
    client = Client(raise_request_exception=False)
    counts = {}
    for template, endpoint in rows.items():
        path = endpoint.path(targets)
        assert path is not None, f"{template}: the corpus has no target for it"
        for _ in range(2):
            cache.clear()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(path, HTTP_ACCEPT="*/*")
        counts[template] = (len(queries), response.status_code)
    return counts


# Rows behind each filter: a couple at the small size, ~30 at the larger one.
SMALL, LARGE = 2, 30


def grow(count, seed):
    """`count` more rows behind every filter the targets pick: papers and edges, results, and
    the hub's citing papers, research notes and claims on the targets' year, tag, layer and
    roles, so a filtered list is never empty at one size only (an empty list skips the
    prefetches of its rows)."""
    targets, _ = pick_targets()
    prefix = f"grown{seed}"
    call_command(
        "generate_corpus",
        papers=count + 1,
        citations=2 * count,
        hubs=1,
        seed=seed,
        prefix=prefix,
        stdout=io.StringIO(),
    )
    call_command(
        "generate_results_corpus",
        benchmarks=1,
        series=max(1, count // 3),
        points=count,
        widest=max(1, count // 6),
        seed=seed,
        prefix=prefix,
        stdout=io.StringIO(),
    )
    hub = Paper.objects.get(slug=targets["hub"])
    tag = Tag.objects.get(slug=targets["tag"])
    layer = Layer.objects.get(slug=targets["layer"])
    # The grown runs bear on the layer through their papers (`Series.objects.on_layer`).
    for paper in Paper.objects.filter(series__slug__startswith=f"{prefix}-run-").distinct():
        paper.layers.add(layer)
    roles = list(CitationRole.objects.order_by("pk")) or [None]
    polarities = list(CitationPolarity.objects.order_by("pk")) or [None]
    for i in range(count):
        citing = PaperFactory(
            title=f"Scaling policy kimi {prefix} {i}",
            slug=f"{prefix}-citing-{i}",
            publication_date=datetime.date(targets["year"], 6, 1),
            institution="University of Growth",
        )
        citing.layers.add(layer)
        citing.tags.add(tag)
        CitationFactory(
            citing_paper=citing,
            cited_paper=hub,
            role=roles[i % len(roles)],
            polarity=polarities[i % len(polarities)],
            context=f"Following its scaling policy ({i}).",
            is_influential=True,
        )
        note = ResearchNoteFactory(is_featured=True)
        note.papers.add(hub)
        note.layers.add(layer)
        note.tags.add(tag)
        claim = ClaimFactory()
        claim.layers.add(layer)
        claim.papers.add(hub)


def past_the_end(template, status):
    """A second page the small corpus does not have yet (a 404 after one query): only the
    ceiling is asked of it."""
    return status == 404 and "page=" in template


def assert_flat(rows):
    grow(SMALL, seed=1)
    small = query_counts(rows)
    grow(LARGE - SMALL, seed=2)
    large = query_counts(rows)
    grown = {
        template: (small[template][0], large[template][0])
        for template in rows
        if large[template][0] > small[template][0]
        and not past_the_end(template, small[template][1])
        and large[template][0] - small[template][0] != ALLOWED_GROWTH.get(template)
    }
    assert not grown, f"queries at the small and the larger size: {grown}"
    failing = {t: status for t, (_, status) in {**small, **large}.items() if status >= 500}
    assert not failing, failing
    over = {
        template: count
        for template, (count, _) in large.items()
        if count > (API_CEILING if template.startswith("/api/") else PAGE_CEILING)
    }
    assert not over, f"over the ceiling: {over}"


def test_the_filters_of_the_results_list_and_the_claims_api_are_flat(demo):
    """The quick case: a page form's filters and an API filter set's."""
    assert_flat(filter_rows({"results:list", "api:claim-list"}))


@pytest.mark.slow
def test_every_filter_of_every_list_is_flat_and_under_the_ceiling(demo):
    assert_flat(filter_rows())


def test_the_research_layer_filter_compares_the_layers_id(demo):
    """`?layer=<slug>` on the research index and its export finds the layer's id in the query
    (`layer_id = (SELECT ...)`) instead of joining the layers by slug: joined, PostgreSQL
    expected 748 of a layer's 14,816 papers at 1M and read them all to sort the newest 1,001
    (the export's ids query); given the id it walks the index's date order."""
    layer = Layer.objects.published().filter(papers__in_research_index=True).first()
    for path in (f"/research/?layer={layer.slug}", f"/research/papers.bib?layer={layer.slug}"):
        with CaptureQueriesContext(connection) as queries:
            response = Client().get(path)
        assert response.status_code == 200
        listing = [
            q["sql"] for q in queries.captured_queries if "citations_paper_layers" in q["sql"]
        ]
        listing = [sql for sql in listing if 'ORDER BY "citations_paper"' in sql]
        assert listing, path
        assert all('INNER JOIN "bottlenecks_layer"' not in sql for sql in listing), listing
