"""Figures kept once per content generation (`rlscaling.caching.cached_by_generation`: a hub's
role and polarity counts and its citing timeline) live as long as the cards do
(FRAGMENT_CACHE_SECONDS), not as long as whole pages: with the page cache off
(PAGE_CACHE_SECONDS=0, the benchmark's uncached server) a page-cache miss used to count them
again on every request."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rlscaling import caching
from tests.factories import timeline_hub

pytestmark = pytest.mark.django_db

STORED_GROUPS = '"citations_citingtimelinecount"'


def group_reads(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return sum(STORED_GROUPS in query["sql"] for query in queries.captured_queries)


def test_with_the_page_cache_off_a_hubs_figures_are_counted_once_per_generation(client, settings):
    settings.PAGE_CACHE_SECONDS = 0
    url = timeline_hub().get_absolute_url()
    assert group_reads(client, url) == 1
    assert group_reads(client, url) == 0
    caching.bump_generation()  # an editorial change
    assert group_reads(client, url) == 1


def test_with_no_fragment_cache_a_hubs_figures_are_counted_on_every_request(client, settings):
    settings.FRAGMENT_CACHE_SECONDS = 0
    settings.PAGE_CACHE_SECONDS = 0
    url = timeline_hub().get_absolute_url()
    reads = group_reads(client, url)
    assert reads >= 1
    assert group_reads(client, url) == reads
