"""Every Atom feed of the demo, read by feedparser and checked against RFC 4287: the feed and
each entry have an id, a title and an updated time; every entry has an author (its own, or
the feed's); entry ids are permanent (a `tag:` URI on the row's id, unchanged by a rename); and
a paper's per-paper addresses (citing feed, card) follow an old slug like its page does."""

import feedparser
import pytest
from django.test import Client
from django.urls import reverse

from bottlenecks.models import Layer
from citations.models import Author, Authorship, Citation, Paper
from tags.counts import public_tags
from tests.factories import CitationFactory, PaperFactory

pytestmark = pytest.mark.django_db


def every_feed():
    paths = [
        "/feeds/latest.atom",
        "/feeds/notes-updated.atom",
        "/feeds/contrasting.atom",
        "/papers/feed.atom",
        "/notes/feed.atom",
        "/search/feed.atom?q=scaling",
        "/search/feed.atom?q=reward&kind=papers",
    ]
    paths += [reverse("feed-tag", kwargs={"slug": tag.slug}) for tag in public_tags()]
    paths += [
        reverse("feed-layer", kwargs={"slug": slug})
        for slug in Layer.objects.published().values_list("slug", flat=True)
    ]
    cited = Citation.objects.public().values_list("cited_paper__slug", flat=True).distinct()
    paths += [reverse("feed-citing", kwargs={"slug": slug}) for slug in cited]
    return paths


def read(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    feed = feedparser.parse(response.content)
    assert not feed.bozo, (path, feed.get("bozo_exception"))
    return feed


def rfc4287_problems(path, feed):
    problems = []
    for name in ("id", "title", "updated"):
        if not feed.feed.get(name):
            problems.append(f"{path}: feed without {name}")
    feed_author = bool(feed.feed.get("author_detail", {}).get("name"))
    for entry in feed.entries:
        for name in ("id", "title", "updated"):
            if not entry.get(name):
                problems.append(f"{path}: entry {entry.get('id')} without {name}")
        if not feed_author and not entry.get("author_detail", {}).get("name"):
            problems.append(f"{path}: entry {entry.get('id')} without an author")
        if not entry.get("id", "").startswith("tag:"):
            problems.append(f"{path}: entry id {entry.get('id')} is not a tag: URI")
    return problems


def test_every_feed_of_the_demo_meets_rfc4287(demo):
    client = Client()
    paths = every_feed()
    assert len(paths) > 20
    problems, entries = [], 0
    for path in paths:
        feed = read(client, path)
        entries += len(feed.entries)
        problems += rfc4287_problems(path, feed)
    assert entries > 100
    assert problems == []


def test_entries_name_their_authors_byline_then_authors(demo):
    hub = PaperFactory(slug="a-hub")
    citing = PaperFactory(byline="", title="Citing without a byline")
    for position, name in enumerate(["Ana Nobyline", "Bea Second"]):
        author, _ = Author.objects.get_or_create(name=name)
        Authorship.objects.create(paper=citing, author=author, position=position)
    anonymous = PaperFactory(byline="", title="Citing with no author at all")
    CitationFactory(citing_paper=citing, cited_paper=hub)
    CitationFactory(citing_paper=anonymous, cited_paper=hub)
    feed = read(Client(), "/papers/a-hub/citing.atom")
    authors = {entry.title: entry.get("author_detail", {}).get("name") for entry in feed.entries}
    assert authors["Citing without a byline"] == "Ana Nobyline, Bea Second"
    # An entry without an author of its own has the feed's (RFC 4287 §4.2.1): the site.
    assert authors["Citing with no author at all"] is None
    assert feed.feed.author_detail.name == "RL Scaling"


def test_an_entry_id_survives_a_rename():
    hub = PaperFactory(slug="hub-before")
    citing = PaperFactory(slug="citing-before")
    edge = CitationFactory(citing_paper=citing, cited_paper=hub)
    client = Client()
    before = read(client, "/papers/feed.atom").entries
    citing_before = read(client, "/papers/hub-before/citing.atom")
    for paper, slug in ((hub, "hub-after"), (citing, "citing-after")):
        paper.slug = slug
        paper.save()
    after = read(client, "/papers/feed.atom").entries
    assert {entry.id for entry in before} == {entry.id for entry in after}
    citing_after = read(client, "/papers/hub-after/citing.atom")
    assert citing_before.feed.id == citing_after.feed.id
    assert [entry.id for entry in citing_before.entries] == [
        entry.id for entry in citing_after.entries
    ]
    assert citing_after.entries[0].id.endswith(f":citation:{edge.pk}")


@pytest.mark.parametrize(
    "address", ["/papers/{}/citing.atom", "/papers/{}/card.png", "/papers/{}/", "/papers/{}.bib"]
)
def test_every_per_paper_address_follows_an_old_slug(address):
    paper = PaperFactory(slug="old-name")
    CitationFactory(cited_paper=paper)
    paper.slug = "new-name"
    paper.save()
    response = Client().get(address.format("old-name"))
    assert response.status_code == 301, address
    assert response["Location"] == address.format("new-name")
    assert Client().get(response["Location"]).status_code == 200


def test_a_draft_paper_is_in_no_feed_and_its_old_slug_goes_nowhere(demo):
    draft = PaperFactory(draft=True, slug="draft-old")
    CitationFactory(citing_paper=draft, cited_paper=Paper.objects.published().first())
    draft.slug = "draft-new"
    draft.save()
    client = Client()
    for path in ["/papers/feed.atom", "/feeds/latest.atom"]:
        ids = {entry.id for entry in read(client, path).entries}
        assert not any(entry_id.endswith(f":paper:{draft.pk}") for entry_id in ids)
    assert client.get("/papers/draft-old/citing.atom").status_code == 404
    assert client.get("/papers/draft-old/card.png").status_code == 404
