"""Merging duplicate authors in the admin, undoing a merge, and the old addresses of authors
(a merged author's slug, a slug changed) answering 301 to the author's page."""

import datetime

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.urls import reverse

from citations.author_merging import MergeRefused, merge_authors, same_person_reason
from citations.models import Author, AuthorMerge, Authorship, AuthorSlugAlias
from citations.models.authors import free_author_slugs
from publishing.editors import CONTRIBUTORS_GROUP
from tests.factories import CitationFactory, PaperFactory, UserFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:citations_author_changelist")


def author_on(paper, author, position=0):
    Authorship.objects.create(paper=paper, author=author, position=position)
    return author


@pytest.fixture
def twins():
    """ "Ada Lovelace" and "Ada  Lovelace." are one person: both wrote with Alan, both are on
    the shared paper "both"; the second also wrote "second" (cited in 2024) and a draft with
    Eve. A draft cites "second"."""
    first = Author.objects.create(name="Ada Lovelace")
    second = Author.objects.create(name="Ada Lovelace.")
    alan = Author.objects.create(name="Alan Turing")
    eve = Author.objects.create(name="Eve Secret")
    one = PaperFactory(title="First one", slug="first-one")
    both = PaperFactory(title="Written by both", slug="both")
    other = PaperFactory(title="Second one", slug="second-one")
    draft = PaperFactory(title="Secret draft", slug="secret-draft", draft=True)
    author_on(one, first)
    author_on(one, alan, 1)
    author_on(both, first)
    author_on(both, second, 1)
    author_on(other, second)
    author_on(other, alan, 1)
    author_on(draft, second)
    author_on(draft, eve, 1)
    CitationFactory(
        citing_paper=PaperFactory(publication_date=datetime.date(2024, 3, 1)), cited_paper=other
    )
    CitationFactory(citing_paper=PaperFactory(draft=True), cited_paper=other)
    return first, second


def merge_in_admin(client, keep, other):
    selected = [str(keep.pk), str(other.pk)]
    data = {"action": "merge_authors", "_selected_action": selected}
    confirm = client.post(CHANGELIST, data)
    return confirm, client.post(CHANGELIST, {**data, "keep": keep.pk, "post": "yes"})


def test_the_admin_merge_moves_papers_co_authors_and_citing_years(editor_client, twins, client):
    first, second = twins
    confirm, merged = merge_in_admin(editor_client, first, second)
    assert confirm.status_code == 200
    html = confirm.content.decode()
    assert "Ada Lovelace." in html and 'name="keep"' in html
    assert merged.status_code == 302
    assert not Author.objects.filter(pk=second.pk).exists()
    # The shared paper names her once, at her first position.
    assert Authorship.objects.filter(author=first).count() == 4
    both = Authorship.objects.get(paper__slug="both", author=first)
    assert both.position == 0
    assert Authorship.objects.filter(paper__slug="both").count() == 1
    page = client.get("/authors/ada-lovelace/").content.decode()
    assert "First one" in page and "Second one" in page and "Written by both" in page
    assert 'href="/authors/alan-turing/"' in page and "2 papers together" in page
    assert '<th scope="row">2024</th><td>1</td>' in page
    # Drafts never show on the author page, nor their co-authors.
    assert "Secret draft" not in page and "Eve Secret" not in page


def test_the_merged_authors_slug_answers_301_to_the_kept_author(editor_client, twins, client):
    first, second = twins
    merge_in_admin(editor_client, first, second)
    response = client.get("/authors/ada-lovelace-2/")
    assert response.status_code == 301
    assert response["Location"] == "/authors/ada-lovelace/"
    assert client.get("/authors/ada-lovelace-3/").status_code == 404


def test_an_alias_cannot_be_taken_by_a_new_author(twins):
    first, second = twins
    merge_authors(first, second)
    newcomer = Author.objects.create(name="Ada Lovelace!")
    assert newcomer.slug == "ada-lovelace-3"  # the alias ada-lovelace-2 is skipped
    assert free_author_slugs(["Ada  Lovelace"]) == ["ada-lovelace-4"]
    newcomer.slug = "ada-lovelace-2"
    with pytest.raises(ValidationError):
        newcomer.save()


def test_the_admin_form_refuses_an_alias_as_slug(editor_client, twins):
    first, second = twins
    merge_authors(first, second)
    alan = Author.objects.get(name="Alan Turing")
    url = reverse("admin:citations_author_change", args=[alan.pk])
    response = editor_client.post(url, {"name": alan.name, "slug": "ada-lovelace-2", "orcid": ""})
    assert response.status_code == 200
    assert "old address" in response.content.decode()
    alan.refresh_from_db()
    assert alan.slug == "alan-turing"


def test_a_slug_change_leaves_a_301(client, twins):
    first, _ = twins
    first.slug = "ada-king"
    first.save()
    response = client.get("/authors/ada-lovelace/")
    assert response.status_code == 301 and response["Location"] == "/authors/ada-king/"
    # Taking the old slug back drops the alias.
    first.slug = "ada-lovelace"
    first.save()
    assert client.get("/authors/ada-lovelace/").status_code == 200
    assert client.get("/authors/ada-king/").status_code == 301


def test_only_a_public_slug_becomes_an_alias(client, twins):
    eve = Author.objects.get(name="Eve Secret")  # named only on a draft: no page
    eve.slug = "eve-renamed"
    eve.save()
    assert not AuthorSlugAlias.objects.exists()
    assert client.get("/authors/eve-secret/").status_code == 404


def test_an_alias_of_an_author_without_published_papers_is_not_followed(client, twins):
    first, _ = twins
    first.slug = "ada-king"
    first.save()
    Authorship.objects.filter(author=first).delete()
    assert client.get("/authors/ada-lovelace/").status_code == 404


def test_orcid_kept_when_only_one_has_it_and_conflict_refused(twins, editor_client):
    first, second = twins
    second.orcid = "0000-0002-1825-0097"
    second.save()
    merge_authors(first, second)
    first.refresh_from_db()
    assert first.orcid == "0000-0002-1825-0097"

    alan = Author.objects.get(name="Alan Turing")
    grace = Author.objects.create(name="Alan M. Turing", orcid="0000-0001-5109-3700")
    alan.orcid = "0000-0003-1234-5678"
    alan.save()
    with pytest.raises(MergeRefused):
        merge_authors(alan, grace)
    _, response = merge_in_admin(editor_client, alan, grace)
    assert response.status_code == 302
    assert Author.objects.filter(pk=grace.pk).exists()
    assert not AuthorMerge.objects.filter(kept=alan).exists()
    messages = [str(m) for m in response.wsgi_request._messages]
    assert any("ORCID" in message for message in messages)


def test_a_contributor_may_not_merge(client, twins):
    first, second = twins
    contributor = UserFactory(is_staff=True)
    contributor.groups.add(Group.objects.get(name=CONTRIBUTORS_GROUP))
    client.force_login(contributor)
    confirm, merged = merge_in_admin(client, first, second)
    assert confirm.status_code in (200, 302, 403)
    assert "Merge selected authors" not in client.get(CHANGELIST).content.decode()
    assert Author.objects.filter(pk=second.pk).exists()
    assert not AuthorMerge.objects.exists()


def test_a_merge_is_recorded_on_both_and_can_be_undone(editor_client, editor, twins, client):
    first, second = twins
    second.orcid = "0000-0002-1825-0097"
    second.save()
    merge_in_admin(editor_client, first, second)
    merge = AuthorMerge.objects.get()
    assert merge.kept == first and merge.merged_slug == "ada-lovelace-2"
    assert merge.merged_by == editor
    assert first.history.first().history_change_reason.startswith("Merged ada-lovelace-2")
    gone = Author.history.filter(id=second.pk).first()
    assert gone.history_type == "-" and "Merged into ada-lovelace" in gone.history_change_reason

    url = reverse("admin:citations_authormerge_changelist")
    editor_client.post(url, {"action": "undo", "_selected_action": [merge.pk]})
    second = Author.objects.get(pk=second.pk)
    first.refresh_from_db()
    assert second.slug == "ada-lovelace-2" and second.orcid == "0000-0002-1825-0097"
    assert first.orcid == ""
    assert set(second.authorships.values_list("paper__slug", flat=True)) == {
        "both",
        "second-one",
        "secret-draft",
    }
    assert set(first.authorships.values_list("paper__slug", flat=True)) == {"first-one", "both"}
    assert not AuthorSlugAlias.objects.exists()
    assert client.get("/authors/ada-lovelace-2/").status_code == 200
    merge.refresh_from_db()
    assert merge.undone_at is not None


def test_the_rule_for_one_person():
    paper = PaperFactory()
    a = author_on(paper, Author.objects.create(name="José Müller"))
    b = Author.objects.create(name="Jose Muller")
    c = Author.objects.create(name="J. Muller", orcid="0000-0002-1825-0097")
    d = Author.objects.create(name="Johann Muller", orcid="0000-0002-1825-0097")
    assert same_person_reason(a, b) == ""  # the same name, nothing in common
    author_on(paper, b, 1)
    assert "same name" in same_person_reason(a, b)
    assert "same ORCID" in same_person_reason(c, d)
    assert same_person_reason(a, c) == ""
