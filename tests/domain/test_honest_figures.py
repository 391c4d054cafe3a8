"""Issue 12 point 1: every headline figure says what it is a share of. A hub's shares are of
its *classified* citing papers, so the headline names how many are classified out of how many
(never "100% of citing papers" when 6 of 30 are classified). Checked for hubs of 0, 1,
6-of-30, 56-of-70 and fully classified edges, on the page, in the API, in JSON-LD and in the
feed; every figure comes from CitationSummary."""

import json
import re
import xml.etree.ElementTree as ET

import pytest
from rest_framework.test import APIClient

from tests.factories import (
    CitationFactory,
    CitationPolarityFactory,
    CitationRoleFactory,
    PaperFactory,
)
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def make_hub(total, by_role, title="A hub paper", neutral=0):
    """A canonical paper with `total` citing papers, `by_role` {slug: count} of them classified
    by role (the rest unclassified) and the first `neutral` of them neutral."""
    hub = PaperFactory(title=title, is_canonical_reference=True)
    roles = [
        (CitationRoleFactory(slug=slug, name=slug.capitalize()), count)
        for slug, count in by_role.items()
    ]
    polarity = CitationPolarityFactory(slug="neutral", name="Neutral")
    labels = [role for role, count in roles for _ in range(count)]
    labels += [None] * (total - len(labels))
    for number, role in enumerate(labels):
        CitationFactory(cited_paper=hub, role=role, polarity=polarity if number < neutral else None)
    return hub


HUBS = {
    "none": (0, {}, "No published paper cites this work yet."),
    "one unclassified": (1, {}, "1 citing paper; it is not yet classified by role."),
    "one classified": (1, {"background": 1}, "1 citing paper, classified as background."),
    "six of thirty": (
        30,
        {"background": 6},
        "6 of 30 citing papers are classified by role; all 6 as background.",
    ),
    "one of thirty": (
        30,
        {"method": 1},
        "1 of 30 citing papers is classified by role, as method.",
    ),
    "fifty-six of seventy": (
        70,
        {"background": 37, "method": 19},
        "56 of 70 citing papers are classified by role; 37 of those 56 (66%) as background.",
    ),
    "fully classified, one role": (
        12,
        {"background": 12},
        "All 12 citing papers are classified by role; all 12 as background.",
    ),
    "fully classified, two roles": (
        4,
        {"background": 3, "method": 1},
        "All 4 citing papers are classified by role; 3 of the 4 (75%) as background.",
    ),
    "none classified": (5, {}, "5 citing papers; none is classified by role yet."),
}


@pytest.mark.parametrize("name", HUBS)
def test_the_headline_says_what_each_share_is_of(name):
    total, by_role, headline = HUBS[name]
    summary = make_hub(total, by_role).citation_summary()
    assert summary.total == total
    assert summary.classified == sum(by_role.values())
    assert summary.headline == headline


@pytest.mark.parametrize("name", HUBS)
def test_the_hub_page_shows_the_honest_headline(client, name):
    total, by_role, headline = HUBS[name]
    hub = make_hub(total, by_role)
    text = text_of(client.get(hub.get_absolute_url()))
    assert headline in text
    assert "of citing papers cite this work" not in text
    assert "0 / 0" not in text


def test_shares_of_the_classified_never_read_as_shares_of_every_citing_paper(client):
    hub = make_hub(70, {"background": 37, "method": 19})
    text = text_of(client.get(hub.get_absolute_url()))
    assert "66% of citing papers" not in text
    assert "56 of 70 citing papers are classified by role" in text
    # Every percentage on the page is said to be of the classified ones.
    for match in re.finditer(r"(\d+)%", text):
        after = text[match.end() : match.end() + 60]
        before = text[max(0, match.start() - 60) : match.start()]
        assert "classified" in after or "classified" in before or "of those" in before, (
            before + match.group() + after
        )


def test_summary_rows_carry_what_their_percent_is_of():
    summary = make_hub(30, {"background": 6}, neutral=3).citation_summary()
    assert summary.roles == [
        {"name": "Background", "slug": "background", "count": 6, "percent": 100, "percent_of": 6}
    ]
    assert summary.polarities == [
        {"name": "Neutral", "slug": "neutral", "count": 3, "percent": 100, "percent_of": 3}
    ]
    assert summary.polarity_headline == (
        "3 of 30 citing papers are classified by polarity; all 3 neutral."
    )


def test_the_api_hub_call_names_the_basis_of_every_share():
    hub = make_hub(30, {"background": 6}, neutral=6)
    body = APIClient().get(f"/api/v1/papers/{hub.slug}/citations/").json()
    summary = body["summary"]
    assert summary["total"] == 30
    assert summary["classified"] == summary["role_classified"] == 6
    assert summary["role_unclassified"] == 24
    assert summary["polarity_classified"] == 6 and summary["polarity_unclassified"] == 24
    assert summary["percent_basis"] == "classified"
    assert summary["headline"] == (
        "6 of 30 citing papers are classified by role; all 6 as background."
    )
    assert summary["polarity_headline"] == (
        "6 of 30 citing papers are classified by polarity; all 6 neutral."
    )
    assert summary["roles"] == [
        {"slug": "background", "name": "Background", "count": 6, "percent": 100, "percent_of": 6}
    ]


def test_the_api_hub_call_for_a_paper_nobody_cites():
    hub = PaperFactory()
    summary = APIClient().get(f"/api/v1/papers/{hub.slug}/citations/").json()["summary"]
    assert summary["total"] == summary["classified"] == 0
    assert summary["roles"] == [] and summary["headline"] == (
        "No published paper cites this work yet."
    )


def json_ld(response):
    html = response.content.decode()
    (payload,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return json.loads(payload)


def test_json_ld_states_the_figures_with_their_basis(client):
    hub = make_hub(30, {"background": 6})
    hub.summary = "What the paper found."
    hub.save()
    data = json_ld(client.get(hub.get_absolute_url()))
    assert data["description"] == (
        "What the paper found. 6 of 30 citing papers are classified by role; all 6 as background."
    )
    assert "100%" not in json.dumps(data)


def test_json_ld_of_an_uncited_paper_has_no_figures(client):
    paper = PaperFactory(summary="Only the summary.")
    assert json_ld(client.get(paper.get_absolute_url()))["description"] == "Only the summary."


def test_the_feed_states_the_figures_with_their_basis(client):
    make_hub(30, {"background": 6}, title="A much-cited hub")
    PaperFactory(title="An uncited paper", summary="Nothing cites it.")
    root = ET.fromstring(client.get("/feeds/latest.atom").content)
    summaries = {
        entry.findtext(f"{ATOM}title"): entry.findtext(f"{ATOM}summary")
        for entry in root.findall(f"{ATOM}entry")
    }
    assert summaries["A much-cited hub"].endswith(
        "6 of 30 citing papers are classified by role; all 6 as background."
    )
    assert summaries["An uncited paper"] == "Nothing cites it."
    assert "%" not in summaries["A much-cited hub"]
