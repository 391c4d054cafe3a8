"""Paper hubs (/papers/<slug>/) against seed 003, the explorer, SEO data, BibTeX and drafts."""

import json
import re

import pytest
from django.urls import reverse

from citations.models import Citation, Paper
from publishing.models import Status
from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import ART_OF_SCALING, HUB_QUERY_CEILING, inline_scripts, text_of

pytestmark = pytest.mark.django_db

HUB = reverse("citations:paper-detail", kwargs={"slug": ART_OF_SCALING})


@pytest.fixture
def hub(client, demo):
    response = client.get(HUB)
    assert response.status_code == 200
    return response


def explorer_titles(response):
    return [edge.citing_paper.title for edge in response.context["explorer_page"].object_list]


def test_hub_shows_the_paper(hub):
    text = text_of(hub)
    assert "The Art of Scaling Reinforcement Learning Compute for LLMs" in text
    # Each author's name links to their page (/authors/<slug>/).
    assert "Devvrit Khatri , Lovish Madaan , Rishabh Tiwari" in text
    assert '<a href="/authors/devvrit-khatri/">Devvrit Khatri</a>' in hub.content.decode()
    assert "Meta" in text
    assert "Oct 15, 2025" in text
    assert "We present the first large-scale systematic study" in text  # abstract
    assert "proposes ScaleRL, a recipe whose performance can be predicted" in text  # summary
    assert 'href="https://arxiv.org/abs/2510.13786"' in hub.content.decode()


def test_canonical_badge_and_figures_come_from_the_citation_edges(hub):
    text = text_of(hub)
    assert "Canonical reference" in text
    # Issue 12: the share is of the 6 classified citing papers, and says so.
    assert "6 of 30 citing papers are classified by role; all 6 as background." in text
    assert "100% of citing papers" not in text
    assert "30 papers citing it" in text
    summary = hub.context["summary"]
    assert summary.total == 30
    assert summary.roles == [
        {"name": "Background", "slug": "background", "count": 6, "percent": 100, "percent_of": 6}
    ]
    assert [row["slug"] for row in summary.polarities] == ["neutral"]


def test_role_and_polarity_matrix_is_an_svg_with_a_table_and_no_inline_styles(hub):
    html = hub.content.decode()
    assert "Citation-role summary" not in html and "bar__fill" not in html  # the old 100% bars
    svg = html.split('<svg class="matrix__chart"')[1].split("</svg>")[0]
    assert 'role="img" aria-labelledby="matrix-title matrix-desc"' in svg
    assert ' style="' not in html
    # Background x neutral: 6; the darkest shade is the 24 not classified at all.
    assert '<rect class="matrix__cell matrix__cell--4"' in svg
    assert "<a " not in svg  # an image holds no links: they are laid over it, and in the table
    links = html.split('<svg class="matrix__links"')[1].split("</svg>")[0]
    assert 'aria-hidden="true"' in links
    assert 'href="?role=background&amp;polarity=neutral#explorer" tabindex="-1"' in links
    assert "<title>6 citing papers: Background, Neutral</title>" in links
    table = html.split('<div class="matrix__table')[1].split("</table>")[0]
    headers = re.findall(r'<th scope="col">([^<]+)</th>', table)
    assert headers == ["Role", "Supporting", "Contrasting", "Neutral", "Not classified"]
    rows = re.findall(r'<th scope="row">([^<]+)</th>', table)
    assert rows == ["Background", "Method", "Comparison / result", "Extension", "Not classified"]
    assert (
        'href="?unclassified=on&amp;polarity=none#explorer" aria-label="24 citing papers' in table
    )


def test_matrix_cells_shade_by_count_and_link_to_the_explorer(client, db):
    paper = PaperFactory()
    method, background = CitationRoleFactory(slug="method"), CitationRoleFactory(slug="bg")
    supporting = CitationPolarityFactory(slug="supporting", name="Supporting")
    for _ in range(4):
        CitationFactory(cited_paper=paper, role=method, polarity=supporting)
    CitationFactory(cited_paper=paper, role=background)  # no polarity
    CitationFactory(cited_paper=paper)  # neither
    response = client.get(paper.get_absolute_url())
    cells = {
        (cell.role["slug"], cell.polarity["slug"]): (cell.count, cell.shade)
        for row in response.context["matrix"].rows
        for cell in row["cells"]
    }
    assert cells[("method", "supporting")] == (4, 4)
    assert cells[("bg", None)] == (1, 1)
    assert cells[(None, None)] == (1, 1)
    assert cells[("bg", "supporting")] == (0, 0)
    for query, expected in [
        ({"role": "bg", "polarity": "none"}, 1),
        ({"unclassified": "on", "polarity": "none"}, 1),
        ({"role": "method", "polarity": "supporting"}, 4),
        ({"polarity": "none"}, 2),
    ]:
        listed = client.get(paper.get_absolute_url(), query)
        assert listed.status_code == 200
        assert listed.context["explorer_page"].paginator.count == expected, query
    assert "Not classified (2)" in response.content.decode()  # the polarity choice


def test_representative_citing_papers_are_a_short_list_with_the_editors_reasons(hub):
    representatives = list(hub.context["representatives"])
    expected = Citation.objects.filter(cited_paper__slug=ART_OF_SCALING, is_representative=True)
    assert len(representatives) == expected.count() == 6
    html = hub.content.decode()
    section = html.split('id="representative-heading"')[1].split("</section>")[0]
    assert "Cuts straggler time in synchronous GRPO and DAPO" in section  # the editor's reason
    assert (
        'href="/papers/faster-synchronous-on-policy-rl-via-straggler-aware-group-sizing/"'
        in section
    )
    assert section.count("<li") == 6
    assert "SAGC dynamically adjusts group sizes" not in section  # not a copy of the explorer
    assert "Zone of Proximal Policy Optimization" not in section  # not representative
    # The papers flagged before the curated list are still shown, in the explorer.
    second = text_of(hub.client.get(HUB, {"page": 2}))
    assert "Beyond Distribution Sharpening" in text_of(hub) + second


def test_explorer_lists_every_citing_paper_paginated(client, demo):
    first = client.get(HUB)
    assert first.context["explorer_page"].paginator.count == 30
    assert len(explorer_titles(first)) == 20
    assert explorer_titles(first)[0].startswith("Zone of Proximal Policy Optimization")
    assert "30 citing papers · showing 1–20" in text_of(first)
    second = client.get(HUB, {"page": 2})
    assert len(explorer_titles(second)) == 10
    assert explorer_titles(second)[-1] == "Scaling Self-Play with Self-Guidance"
    assert 'href="?page=2#explorer"' in first.content.decode()


def test_explorer_filters_by_role(client, demo):
    response = client.get(HUB, {"role": "background"})
    assert response.status_code == 200
    found = explorer_titles(response)
    assert len(found) == 6
    assert found[0].startswith("Zone of Proximal Policy Optimization")
    assert found[-1].startswith("Weblica")
    assert "6 of 30 citing papers" in text_of(response)
    html = response.content.decode()
    assert '<option value="background" selected>Background (6)</option>' in html
    assert '<option value="method">Method (0)</option>' in html


def test_explorer_filters_by_polarity_and_both(client, demo):
    assert len(explorer_titles(client.get(HUB, {"polarity": "neutral"}))) == 6
    assert len(explorer_titles(client.get(HUB, {"role": "background", "polarity": "neutral"})))
    empty = client.get(HUB, {"role": "method"})
    assert empty.status_code == 200
    assert explorer_titles(empty) == []
    assert "No citing papers match" in text_of(empty)


def test_explorer_items_link_to_their_own_hubs(client, demo):
    html = client.get(HUB, {"role": "background"}).content.decode()
    explorer = html.split('id="explorer"')[1]
    assert 'href="/papers/weblica-scalable-and-reproducible-training-environments-for' in explorer
    weblica = "weblica-scalable-and-reproducible-training-environments-for-visual-web-agents"
    response = client.get(reverse("citations:paper-detail", kwargs={"slug": weblica}))
    assert response.status_code == 200
    # The citing paper's own hub lists the paper it cites.
    cites = response.content.decode().split('id="cites-heading"')[1]
    assert f'href="/papers/{ART_OF_SCALING}/"' in cites


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"role": "no-such-role"}, 400),
        ({"polarity": "sideways"}, 400),
        ({"page": "999"}, 404),
        ({"page": "abc"}, 404),
        ({"role": "background", "page": "2"}, 404),
    ],
)
def test_invalid_explorer_input_is_a_client_error(client, demo, params, status):
    assert client.get(HUB, params).status_code == status


def test_json_ld_scholarly_article_is_a_data_block_without_a_nonce(hub):
    # A data block is not script to CSP; no nonce keeps the page cacheable (pagecache/caching.py).
    html = hub.content.decode()
    match = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert match
    (payload,) = match.groups()
    assert "nonce-" not in hub.headers["Content-Security-Policy"]
    data = json.loads(payload)
    assert data["@type"] == "ScholarlyArticle"
    assert data["name"] == "The Art of Scaling Reinforcement Learning Compute for LLMs"
    assert data["author"][0] == {"@type": "Person", "name": "Devvrit Khatri"}
    assert len(data["author"]) == 9
    assert data["datePublished"] == "2025-10-15"
    assert data["url"].endswith(HUB)
    assert {"@type": "PropertyValue", "propertyID": "arXiv", "value": "2510.13786"} in data[
        "identifier"
    ]
    assert html.count('<script type="application/ld+json">') == 1
    assert inline_scripts(html) == []


def test_the_pages_json_ld_carries_the_newest_citations_and_links_the_whole_document(client, db):
    """The page's JSON-LD block weighs the same for a hub of 40 or of 40,000 citing papers:
    the newest PAGE_JSON_LD_CITATION_LIMIT edges each way; `.jsonld` (linked as alternate)
    carries up to JSON_LD_CITATION_LIMIT."""
    from citations.exports.formats import JSON_LD_CITATION_LIMIT, PAGE_JSON_LD_CITATION_LIMIT

    hub = PaperFactory()
    count = PAGE_JSON_LD_CITATION_LIMIT + 10
    assert count <= JSON_LD_CITATION_LIMIT
    for citing in PaperFactory.create_batch(count):
        CitationFactory(citing_paper=citing, cited_paper=hub)
    html = client.get(hub.get_absolute_url()).content.decode()
    (payload,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    citing = json.loads(payload)["@reverse"]["cito:hasCitedEntity"]
    assert len(citing) == PAGE_JSON_LD_CITATION_LIMIT
    assert f'href="{hub.get_absolute_url().rstrip("/")}.jsonld"' in html
    document = client.get(reverse("citations:paper-jsonld", kwargs={"slug": hub.slug})).json()
    assert len(document["@reverse"]["cito:hasCitedEntity"]) == count
    assert "citation" not in document  # the hub cites nothing: its citers are not its citations


def test_json_ld_cannot_be_broken_out_of(client, db):
    paper = PaperFactory(title="</script><script>alert(1)</script>", summary="a & b")
    html = client.get(paper.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in html
    assert html.count('<script type="application/ld+json">') == 1
    assert inline_scripts(html) == []


def test_pages_without_json_ld_send_no_nonce(client, demo):
    assert "nonce-" not in client.get("/").headers["Content-Security-Policy"]


def test_google_scholar_meta_tags(hub):
    html = hub.content.decode()
    expected = [
        '<meta name="citation_title" content="The Art of Scaling Reinforcement Learning Compute',
        '<meta name="citation_author" content="Devvrit Khatri">',
        '<meta name="citation_author" content="Rishabh Agarwal">',
        '<meta name="citation_publication_date" content="2025/10/15">',
        '<meta name="citation_arxiv_id" content="2510.13786">',
        '<meta name="citation_pdf_url" content="https://arxiv.org/pdf/2510.13786">',
        '<meta property="og:type" content="article">',
        f'<link rel="canonical" href="http://127.0.0.1:8000{HUB}">',
    ]
    for tag in expected:
        assert tag in html


def test_bibtex_download(client, demo):
    response = client.get(reverse("citations:paper-bibtex", kwargs={"slug": ART_OF_SCALING}))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-bibtex")
    assert response["Content-Disposition"] == f'attachment; filename="{ART_OF_SCALING}.bib"'
    entry = response.content.decode()
    assert entry.startswith("@misc{khatri2025scaling,\n")
    assert "  title = {{The Art of Scaling Reinforcement Learning Compute for LLMs}},\n" in entry
    assert "author = {Khatri, Devvrit and Madaan, Lovish and" in entry
    assert "Dhillon, Inderjit S. and Brandfonbrener, David and Agarwal, Rishabh}" in entry
    assert "  eprint = {2510.13786},\n  archivePrefix = {arXiv}," in entry
    assert "  month = oct,\n" in entry
    assert entry.rstrip().endswith("}")
    hub_html = client.get(HUB).content.decode()
    assert f'href="/papers/{ART_OF_SCALING}.bib" download' in hub_html


def test_bibtex_escapes_special_characters_and_names_organisations(client, db):
    paper = PaperFactory(title="Costs & 100% {braces}_x", byline="Z.ai", institution="Z.ai")
    entry = client.get(reverse("citations:paper-bibtex", kwargs={"slug": paper.slug})).content
    entry = entry.decode()
    assert entry.startswith("@techreport{")
    assert r"title = {{Costs \& 100\% \{braces\}\_x}}" in entry
    assert "author = {{Z.ai}}" in entry


def test_draft_paper_is_404_for_the_public_and_readers(client, reader, demo):
    Paper.objects.filter(slug=ART_OF_SCALING).update(status=Status.DRAFT)
    assert client.get(HUB).status_code == 404
    bib = reverse("citations:paper-bibtex", kwargs={"slug": ART_OF_SCALING})
    assert client.get(bib).status_code == 404
    client.force_login(reader)
    assert client.get(HUB).status_code == 404


def test_editors_preview_drafts_uncached_and_marked(editor_client, demo):
    paper = PaperFactory(title="Unpublished hub", draft=True)
    response = editor_client.get(paper.get_absolute_url())
    assert response.status_code == 200
    assert "Draft preview." in text_of(response)
    assert "no-store" in response["Cache-Control"]
    assert '<meta name="robots" content="noindex, follow">' in response.content.decode()
    published = editor_client.get(HUB)
    assert "Draft preview." not in text_of(published)


def test_draft_citing_papers_and_draft_edges_are_not_counted(client, demo):
    hub_paper = Paper.objects.get(slug=ART_OF_SCALING)
    background = CitationRoleFactory(slug="background")
    CitationFactory(
        cited_paper=hub_paper,
        citing_paper=PaperFactory(title="Draft citer", draft=True),
        role=background,
    )
    CitationFactory(cited_paper=hub_paper, role=background, draft=True)
    response = client.get(HUB)
    assert response.context["summary"].total == 30
    assert "Draft citer" not in text_of(client.get(HUB, {"page": 2}))
    assert len(explorer_titles(client.get(HUB, {"role": "background"}))) == 6


# slow (`make test-all`, CI's slow step): 300 citing papers written; the render-mode ceilings
# (tests/perf/test_render_query_ceilings.py) keep the default suite's no-N+1 check.
@pytest.mark.slow
def test_hub_query_count_is_flat_for_three_hundred_citing_papers(
    client, demo, django_assert_max_num_queries
):
    with django_assert_max_num_queries(HUB_QUERY_CEILING):
        client.get(HUB)
    big = PaperFactory(title="A much-cited paper", is_canonical_reference=True)
    roles = [CitationRoleFactory(slug=slug) for slug in ("background", "method", "extension")]
    polarities = [CitationPolarityFactory(slug=slug) for slug in ("supporting", "neutral")]
    for number in range(300):
        CitationFactory(
            cited_paper=big,
            role=roles[number % 3] if number % 5 else None,
            polarity=polarities[number % 2],
            is_representative=number % 10 == 0,
        )
    with django_assert_max_num_queries(HUB_QUERY_CEILING):
        response = client.get(big.get_absolute_url())
    assert response.context["summary"].total == 300
    assert len(explorer_titles(response)) == 20
    assert len(response.context["representatives"]) == 6  # of 30 flagged before the limit
    with django_assert_max_num_queries(HUB_QUERY_CEILING):
        response = client.get(big.get_absolute_url(), {"role": "method", "page": 3})
    assert response.status_code == 200
    assert "Page 3 of" in text_of(response)
