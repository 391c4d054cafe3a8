"""Author slugs (every writer of authors gives one), the author page and the author search:
published papers only."""

import datetime

import pytest
from django.core.exceptions import ValidationError

from citations.models import Author, Authorship, DatePrecision
from citations.models.authors import free_author_slugs
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db


def author_on(paper, name, position=0):
    author, _ = Author.objects.get_or_create(name=name)
    Authorship.objects.create(paper=paper, author=author, position=position)
    return author


def test_a_new_author_gets_an_ascii_slug_deduplicated():
    first = Author.objects.create(name="José Müller")
    assert first.slug == "jose-muller"
    second = Author.objects.create(name="Jose Muller")
    assert second.slug == "jose-muller-2"
    third = Author.objects.create(name="Jose-Müller")
    assert third.slug == "jose-muller-3"
    # Any script is spelt in ASCII: a page address a reader can type and read.
    assert Author.objects.create(name="王小明").slug == "wangxiaoming"
    assert Author.objects.create(name="김민수").slug == "gimminsu"
    assert Author.objects.create(name="Γιώργος Παπαδόπουλος").slug == "giorgos-papadopoylos"
    assert Author.objects.create(name="…").slug == "author"
    first.name = "José Müller-Schmidt"
    first.save()
    assert first.slug == "jose-muller"  # kept: links to the page stay


def test_bulk_writers_get_free_slugs_without_saving():
    Author.objects.create(name="Ada Lovelace")
    assert free_author_slugs(["Ada Lovelace!", "ada lovelace", "Alan Turing"]) == [
        "ada-lovelace-2",
        "ada-lovelace-3",
        "alan-turing",
    ]


def test_the_bulk_importer_writes_slugs():
    from citations.importers.bulk import _BulkImport
    from citations.models.papers import Paper

    paper = PaperFactory()
    _BulkImport.create_authorships(None, [(paper.pk, ["Grace Hopper", "Grace  Hopper"])])
    slugs = set(Author.objects.values_list("slug", flat=True))
    assert slugs == {"grace-hopper", "grace-hopper-2"}
    assert Paper.objects.get(pk=paper.pk).authors.count() == 2


def test_an_orcid_is_checked():
    author = Author(name="Someone", orcid="0000-0002-1825-0097")
    author.full_clean()
    author.orcid = "https://orcid.org/0000-0002-1825-0097"
    with pytest.raises(ValidationError):
        author.full_clean()


@pytest.fixture
def ada():
    """Ada wrote two published papers (with Alan on both, Grace on one) and a draft with Eve;
    three published papers cite hers (one in 2024, one in 2025 citing both, one undated), and
    a draft cites one."""
    one = PaperFactory(title="Ada one", slug="ada-one")
    two = PaperFactory(title="Ada two", slug="ada-two")
    draft = PaperFactory(title="Ada draft", slug="ada-draft", draft=True)
    ada = author_on(one, "Ada Lovelace")
    author_on(two, "Ada Lovelace")
    author_on(draft, "Ada Lovelace")
    author_on(one, "Alan Turing", 1)
    author_on(two, "Alan Turing", 1)
    author_on(one, "Grace Hopper", 2)
    author_on(draft, "Eve Secret", 1)
    c2024 = PaperFactory(publication_date=datetime.date(2024, 5, 1))
    c2025 = PaperFactory(publication_date=datetime.date(2025, 2, 1))
    undated = PaperFactory(date_precision=DatePrecision.UNKNOWN)
    CitationFactory(citing_paper=c2024, cited_paper=one)
    CitationFactory(citing_paper=c2025, cited_paper=one)
    CitationFactory(citing_paper=c2025, cited_paper=two)
    CitationFactory(citing_paper=undated, cited_paper=two)
    CitationFactory(citing_paper=PaperFactory(draft=True), cited_paper=one)
    return ada


def test_the_author_page(client, ada):
    ada.orcid = "0000-0002-1825-0097"
    ada.save()
    response = client.get("/authors/ada-lovelace/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Ada one" in html and "Ada two" in html
    assert "Ada draft" not in html and "Eve Secret" not in html
    assert 'href="/authors/alan-turing/"' in html and "2 papers together" in html
    assert 'href="/authors/grace-hopper/"' in html and "1 paper together" in html
    assert "https://orcid.org/0000-0002-1825-0097" in html
    # Three published citing papers (the 2025 one cites both, counted once), one undated.
    assert "3 published papers cite their work, 1 without a known date" in html
    assert '<th scope="row">2024</th><td>1</td>' in html
    assert '<th scope="row">2025</th><td>1</td>' in html


def test_an_author_only_on_drafts_has_no_page_and_is_not_found(client, ada):
    assert client.get("/authors/eve-secret/").status_code == 404
    html = client.get("/authors/?q=eve").content.decode()
    assert "Eve Secret" not in html and "0 authors" in html


def test_the_author_search(client, ada):
    html = client.get("/authors/?q=lovel").content.decode()
    assert 'href="/authors/ada-lovelace/"' in html and "Alan Turing" not in html
    html = client.get("/authors/?q=turing+alan").content.decode()
    assert 'href="/authors/alan-turing/"' in html
    html = client.get("/authors/").content.decode()
    assert "Ada Lovelace" in html and "Grace Hopper" in html
    assert client.get("/authors/?q=" + "x" * 201).status_code == 400
    assert client.get("/authors/?page=99").status_code == 404


def test_the_hub_links_its_authors(client, ada):
    html = client.get("/papers/ada-one/").content.decode()
    assert '<a href="/authors/ada-lovelace/">Ada Lovelace</a>' in html


@pytest.mark.parametrize("path", ["/authors/ada-lovelace/", "/authors/", "/authors/?q=a"])
def test_more_papers_and_authors_add_no_query(
    client, ada, settings, django_assert_max_num_queries, path
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.PAGE_CACHE_SECONDS = 0
    client.get(path)
    with CaptureQueriesContext(connection) as small:
        assert client.get(path).status_code == 200
    for n in range(40):
        paper = PaperFactory(title=f"More by Ada {n}")
        author_on(paper, "Ada Lovelace")
        author_on(paper, f"Co Author {n}", 1)
        paper.tags.add(f"tag-{n}")
        CitationFactory(cited_paper=paper)
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert client.get(path).status_code == 200
