"""A paper nobody cites yet (55 of the 56 demo papers, issue 12 point 5): its page shows what
exists (summary, sources, what it cites, notes) and omits empty sections instead of zeros."""

import pytest

from tests.factories import CitationFactory, PaperFactory
from tests.helpers import HUB_QUERY_CEILING, text_of

pytestmark = pytest.mark.django_db

GLM = "/papers/glm-5-3-frontier-coding-with-emergent-cyber-capabilities/"


def test_no_zero_figures_filter_form_or_empty_explorer(client, demo):
    response = client.get(GLM)
    assert response.status_code == 200
    html, text = response.content.decode(), text_of(response)
    assert 'class="stat' not in html  # no "0 / 0" cards
    assert "explorer-form" not in html and 'id="explorer"' not in html
    assert "No citing papers yet" not in text
    assert "How it is cited" not in text and "matrix__chart" not in html
    assert "An official GLM-5.3 release note" in text  # the summary


def test_a_byline_that_is_the_institution_is_printed_once(client, demo):
    header = client.get(GLM).content.decode().split('class="byline-block"')[1].split("</div>")[0]
    assert header.count("Z.ai") == 1


def test_institution_beside_listed_authors_is_kept(client, db):
    paper = PaperFactory(byline="Meta", institution="Meta")
    paper.authorships.create(author=paper.authors.model.objects.create(name="Ada Lovelace"))
    header = client.get(paper.get_absolute_url()).content.decode().split("byline-block")[1]
    header = header.split("</div>")[0]
    assert "Ada Lovelace" in header and header.count("Meta") == 1


def test_sources_are_linked_in_the_header(client, db):
    paper = PaperFactory(
        arxiv_id="2510.13786", doi="10.1000/xyz", url="https://www.example.org/report"
    )
    page = client.get(paper.get_absolute_url()).content.decode()
    header = page.split('class="hub-head"')[1].split("</header>")[0]
    assert 'href="https://arxiv.org/abs/2510.13786"' in header
    assert 'href="https://arxiv.org/pdf/2510.13786"' in header
    assert 'href="https://doi.org/10.1000/xyz"' in header
    assert '<a href="https://www.example.org/report" rel="external noopener">example.org</a>' in (
        header
    )


def hub_head(client, paper):
    page = client.get(paper.get_absolute_url()).content.decode()
    return page.split('class="hub-head"')[1].split("</header>")[0]


def test_a_code_repository_is_linked_in_the_header_when_known(client, db):
    with_code = PaperFactory(code_url="https://github.com/example/rl-scaling")
    header = hub_head(client, with_code)
    assert '<a href="https://github.com/example/rl-scaling" rel="external noopener">Code</a>' in (
        header
    )
    assert ">Code</a>" not in hub_head(client, PaperFactory())


def test_what_it_cites_and_its_abstract_are_shown_open(client, db):
    paper = PaperFactory(abstract="We study things.")
    CitationFactory(citing_paper=paper, cited_paper=PaperFactory(title="An older study"))
    response = client.get(paper.get_absolute_url())
    html = response.content.decode()
    assert "Papers it cites" in text_of(response) and "An older study" in text_of(response)
    assert '<details class="hub-abstract" id="abstract" open>' in html
    assert 'id="explorer"' not in html


def test_a_bad_filter_on_an_uncited_paper_still_says_why(client, db):
    paper = PaperFactory()
    response = client.get(paper.get_absolute_url(), {"role": "no-such-role"})
    assert response.status_code == 400
    assert "That filter could not be used." in text_of(response)


def test_uncited_paper_query_count_is_pinned(client, demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(HUB_QUERY_CEILING - 3):
        assert client.get(GLM).status_code == 200
