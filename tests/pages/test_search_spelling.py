"""Did you mean (search/spelling.py): a misspelt word is corrected from the words the site
publishes, on /search/ and the research index; drafts never lend their words."""

import pytest
from django.urls import reverse

from bottlenecks.models import Layer
from publishing.models import Status
from search.spelling import vocabulary
from tests.factories import ClaimFactory, PaperFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

SEARCH = "/search/"
INDEX = reverse("citations:research-index")


def paper_urls(response):
    return [hit.url for group in response.context["groups"] for hit in group.hits]


def test_a_misspelt_query_shows_the_corrected_querys_results_and_says_so(client, demo):
    response = client.get(SEARCH, {"q": "rolout", "kind": "papers"})
    assert response.status_code == 200
    assert "Nothing matches “rolout”: these are the results for “rollout”." in text_of(response)
    rollouts = Layer.objects.get(slug="rollouts")
    layer_papers = {paper.get_absolute_url() for paper in rollouts.papers.published()}
    assert layer_papers & set(paper_urls(response))


def test_a_correction_that_finds_more_is_offered_as_a_link(client, db):
    # Claims lend no words to the vocabulary: the claim's spelling is "unknown".
    ClaimFactory(statement="Zebraik learning holds")
    PaperFactory(title="Zebraic learning")
    PaperFactory(title="Zebraic methods")
    response = client.get(SEARCH, {"q": "zebraik"})
    assert response.status_code == 200
    exact = [group for group in response.context["groups"] if not group.near_spellings]
    assert [group.source.key for group in exact] == ["claims"]
    assert response.context["did_you_mean"].text == "zebraic"
    assert 'Did you mean: <a href="/search/?q=zebraic">zebraic</a>?' in response.content.decode()


def test_a_known_word_is_not_corrected(client, demo):
    response = client.get(SEARCH, {"q": "distillation"})
    assert "did_you_mean" not in response.context
    assert "typed" not in response.context


def test_drafts_lend_no_words_to_the_corrections(client, db):
    PaperFactory(draft=True, title="Quixotically zebraic methods")
    response = client.get(SEARCH, {"q": "zebraik"})
    assert response.status_code == 200
    assert "did_you_mean" not in response.context
    assert "typed" not in response.context
    assert "zebraic" not in response.content.decode()


def test_a_published_word_corrects_a_typo(client, db):
    paper = PaperFactory(title="Quixotically zebraic methods")
    response = client.get(SEARCH, {"q": "zebraik", "kind": "papers"})
    assert response.context["typed"].text == "zebraik"
    assert paper_urls(response) == [paper.get_absolute_url()]


def test_the_research_index_offers_the_corrected_search(client, demo):
    response = client.get(INDEX, {"q": "rolout"})
    assert response.status_code == 200
    assert response.context["did_you_mean"]["text"] == "rollout"
    assert f'href="{INDEX}?q=rollout"' in response.content.decode()
    corrected = client.get(INDEX, {"q": "rollout"})
    assert corrected.context["page"].object_list


@pytest.mark.parametrize("text", ["x" * 190, "ßüñ çå", "a-b-c-d-e-f", "'; drop table --"])
def test_odd_words_are_no_error(client, db, text):
    assert client.get(SEARCH, {"q": text}).status_code == 200
    assert client.get(INDEX, {"q": text}).status_code in (200, 400)


def test_a_paper_unpublished_takes_its_words_out_of_the_corrections_at_once(db):
    paper = PaperFactory(title="Zyxolotl policies for rollouts", status=Status.PUBLISHED)
    assert "zyxolotl" in vocabulary()
    paper.status = Status.DRAFT
    paper.save()  # announced as the admin's save is: the page cache's generation moves
    assert "zyxolotl" not in vocabulary()
