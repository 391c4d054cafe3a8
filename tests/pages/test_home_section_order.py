"""The field guide's sections follow GuideSection.order, which editors set in the admin."""

import re

import pytest
from django.urls import reverse

from notes.models import GuideSection

pytestmark = pytest.mark.django_db


def section_ids(client):
    html = client.get(reverse("home")).content.decode()
    return re.findall(r'<section class="section[^"]*" id="([a-z-]+)"', html)


def test_sections_follow_the_editors_order(client, demo):
    seed_order = ["dimensions", "loop", "breaks", "analysis", "evidence"]
    seed_order += ["community", "questions", "latest", "faq"]
    assert section_ids(client) == seed_order

    for key, order in [("faq", 1), ("breaks", 999)]:  # saved as the admin saves them
        section = GuideSection.objects.get(key=key)
        section.order = order
        section.save()
    moved = ["faq", "dimensions", "loop", "evidence", "community", "questions", "latest"]
    # The Bottleneck Map card stays with the layer table it analyses.
    assert section_ids(client) == [*moved, "breaks", "analysis"]
