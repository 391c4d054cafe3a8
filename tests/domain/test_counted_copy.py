"""Typed sentences that count what the site lists are computed from it: the field guide's
"six coupled dimensions" follows the published dimensions (a seventh added, or one taken
down), at no extra query."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bottlenecks.models import Dimension
from tests.factories import DimensionFactory
from web.templatetags.counted_copy import counted

pytestmark = pytest.mark.django_db


def test_the_dimensions_sentence_follows_the_dimensions(client, demo):
    published = Dimension.objects.published().count()
    assert published == 6
    assert "how six coupled dimensions grow together" in client.get("/").content.decode()
    DimensionFactory(name="Memory")
    with CaptureQueriesContext(connection) as seven:
        page = client.get("/").content.decode()
    assert "how seven coupled dimensions grow together" in page
    assert "six coupled dimensions" not in page
    memory = Dimension.objects.get(name="Memory")
    memory.status = "draft"
    memory.save()  # announced: the cached home page is dropped
    with CaptureQueriesContext(connection) as six:
        page = client.get("/").content.decode()
    assert "how six coupled dimensions grow together" in page
    assert len(six.captured_queries) <= len(seven.captured_queries)


def test_only_the_number_that_counts_the_rows_changes():
    rows = [DimensionFactory.build(), DimensionFactory.build()]
    assert (
        counted("Six coupled dimensions, six times.", rows) == "Two coupled dimensions, six times."
    )
    assert counted("Across 6 dimensions.", rows) == "Across 2 dimensions."
    assert counted("Six layers.", rows) == "Six layers."
    assert counted("Six dimensions.", None) == "Six dimensions."
