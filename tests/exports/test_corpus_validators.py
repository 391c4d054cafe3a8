"""Validators nobody here wrote accept every export of a 2,000-paper generated corpus (issue 17,
done when): pybtex and bibtexparser parse the combined BibTeX file with no duplicate keys,
citeproc-py renders the CSL-JSON in two real styles, rispy round-trips the RIS, and pyld
expands each paper's JSON-LD. The corpus is generated once for the module and the exports are
rendered by the functions the combined export endpoints use (one paper's JSON-LD has no
combined form: scholarly_article per paper); one tag's combined downloads are fetched over
HTTP too. The corpus is rolled back afterwards."""

import json

import pytest
import rispy
from django.core.management import call_command
from django.db import transaction
from django.db.models import Count
from django.test import Client

from citations.exports.downloads import EXPORT_FORMATS
from citations.exports.formats import scholarly_article
from citations.models import Paper
from tags.models import Tag
from tests.exports.test_bibtex import parsed
from tests.exports.test_validators import SCHEMA, expand, render_bibliography

# One worker generates the corpus for all of them under `make test` (--dist loadgroup).
# slow (`make test-all`, CI's slow step): a 2,000-paper corpus through every validator.
pytestmark = [pytest.mark.slow, pytest.mark.django_db, pytest.mark.xdist_group("corpus-validators")]

CORPUS_SIZE = 2000


@pytest.fixture(scope="module")
def corpus(django_db_setup, django_db_blocker):
    """{"papers": [(slug, title)], "bib"/"json"/"ris": the combined file, "jsonld": [one dict
    per paper], "tag": {extension: the busiest tag's download}}, read before the rollback."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command(
            "generate_corpus", papers=CORPUS_SIZE, citations=2 * CORPUS_SIZE, seed=3, verbosity=0
        )
        # Drafts too: editors export them.
        papers = list(Paper.objects.with_authors().prefetch_related("tags").order_by("pk"))
        exports = {ext: fmt.render(papers) for ext, fmt in EXPORT_FORMATS.items()}
        exports["papers"] = [(paper.slug, paper.title) for paper in papers]
        exports["jsonld"] = [scholarly_article(paper, with_citations=True) for paper in papers]
        tag = (
            Tag.objects.annotate(n=Count("tagged_papers"))
            .order_by("-n")
            .values_list("slug", flat=True)
            .first()
        )
        client = Client()
        exports["tag"] = {ext: client.get(f"/tags/{tag}/papers.{ext}") for ext in EXPORT_FORMATS}
        transaction.set_rollback(True)
    assert len(exports["papers"]) == CORPUS_SIZE
    return exports


def test_both_bibtex_parsers_accept_the_combined_file_with_unique_keys(corpus):
    library, data = parsed(corpus["bib"])
    keys = [entry.key for entry in library.entries]
    assert len(keys) == len(set(keys)) == len(data.entries) == len(corpus["papers"])


def rendered_in_batches(items, style, size=200):
    """Every item rendered, a bibliography of `size` at a time: citeproc-py's sorting and
    name disambiguation grow faster than linearly (APA over 2,000 items took minutes)."""
    return [
        entry
        for start in range(0, len(items), size)
        for entry in render_bibliography(items[start : start + size], style)
    ]


@pytest.mark.parametrize("style", ["ieee", "apa"])
def test_citeproc_renders_the_corpus_in_a_real_style(corpus, style):
    items = json.loads(corpus["json"])
    assert len(items) == len(corpus["papers"])
    rendered = rendered_in_batches(items, style)
    assert len(rendered) == len(items)
    assert all(entry.strip() for entry in rendered)


def test_rispy_round_trips_the_corpus(corpus):
    records = rispy.loads(corpus["ris"])
    assert len(records) == len(corpus["papers"])
    assert rispy.loads(rispy.dumps(records)) == records
    for (_, title), record in zip(corpus["papers"], records, strict=True):
        assert record["title"] == " ".join(title.split())


def test_pyld_expands_every_paper_of_the_corpus(corpus):
    citing_edges = 0
    for data in corpus["jsonld"]:
        (node,) = expand(data)
        assert node["@type"] == [SCHEMA + "ScholarlyArticle"]
        reverse = node.get("@reverse", {})
        citing_edges += len(reverse.get("http://purl.org/spar/cito/hasCitedEntity", []))
    assert citing_edges  # the corpus's typed edges are in the structured data


def test_a_busy_tags_combined_downloads_validate(corpus):
    responses = corpus["tag"]
    assert all(response.status_code == 200 for response in responses.values())
    library, _ = parsed(responses["bib"].content.decode())
    items = json.loads(responses["json"].content)
    records = rispy.loads(responses["ris"].content.decode())
    assert len(library.entries) == len(items) == len(records) > 1
    assert len(rendered_in_batches(items, "apa")) == len(items)
