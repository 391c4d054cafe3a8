"""A URL cannot add fields to a BibTeX entry (issue 11, point 10)."""

import bibtexparser
import pytest
from django.test import Client

from tests.factories import PaperFactory

pytestmark = pytest.mark.django_db

HOSTILE_URLS = [
    "https://example.org/a},note={injected",
    "https://example.org/a}\n@misc{evil,title={x}",
    'https://example.org/a"},note="injected',
    "https://example.org/a\\}},note={injected",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_a_hostile_url_stays_inside_its_field(url):
    paper = PaperFactory(url=url, title="Safe title")
    response = Client().get(f"/papers/{paper.slug}.bib")
    assert response.status_code == 200
    library = bibtexparser.parse_string(response.content.decode())
    assert not library.failed_blocks
    assert len(library.entries) == 1
    fields = {field.key: field.value for field in library.entries[0].fields}
    assert "note" not in fields
    assert fields["url"].startswith("https://example.org/a")
    assert "{" not in fields["url"] and "}" not in fields["url"]
