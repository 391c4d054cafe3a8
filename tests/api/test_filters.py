"""django-filter FilterSets, search= and ordering= on the demo content."""

import pytest

from tests.helpers import ART_OF_SCALING, slugs, walk

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo")]


def papers(client, query):
    results, _ = walk(client, f"/api/v1/papers/?page_size=100&{query}")
    return results


def test_papers_by_tag_and_layer(anon):
    grpo = papers(anon, "tag=grpo")
    assert len(grpo) == 14
    assert all("grpo" in row["tags"] for row in grpo)
    rollouts = papers(anon, "layer=rollouts")
    assert len(rollouts) == 8
    assert all("rollouts" in row["layers"] for row in rollouts)
    assert len(papers(anon, "tag=grpo&layer=rollouts")) <= 8


def test_papers_by_year_and_date_range(anon):
    assert len(papers(anon, "year=2025")) == 3
    in_range = papers(anon, "publication_date_after=2025-01-01&publication_date_before=2025-06-30")
    assert all("2025-01-01" <= row["publication_date"] <= "2025-06-30" for row in in_range)
    assert slugs(in_range) == [
        "dapo-an-open-source-llm-reinforcement-learning-system-at-scale",
        "kimi-k1-5-scaling-reinforcement-learning-with-llms",
    ]
    # A date the seeds do not give is not a fact a range can match.
    assert not papers(anon, "publication_date_after=2026-08-01&publication_date_before=2026-08-31")


def test_papers_by_canonical_flag_and_research_index(anon):
    assert slugs(papers(anon, "is_canonical_reference=true")) == [ART_OF_SCALING]
    assert len(papers(anon, "is_canonical_reference=false")) == 55
    # The 18 of the research index; the citing papers are held only as citation records.
    assert len(papers(anon, "in_research_index=true")) == 18


def test_papers_by_identifiers(anon):
    assert slugs(papers(anon, "arxiv_id=2510.13786")) == [ART_OF_SCALING]
    assert slugs(papers(anon, "arxiv_id=2510.13786v2")) == [ART_OF_SCALING]
    assert papers(anon, "doi=10.1000/none") == []


def test_papers_cited_by_and_citing(anon):
    citing = papers(anon, f"cites={ART_OF_SCALING}")
    assert len(citing) == 30
    assert slugs(papers(anon, "cited_by=scaling-self-play-with-self-guidance")) == [ART_OF_SCALING]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("year=twenty", "year"),
        ("year=100000", "year"),
        ("layer=no-such-layer", "layer"),
        ("is_canonical_reference=maybe", "is_canonical_reference"),
        ("publication_date_after=yesterday", "publication_date"),
        ("arxiv_id=12345", "arxiv_id"),
        ("doi=not-a-doi", "doi"),
        ("updated_after=soon", "updated_after"),
        ("updated_after=9999-12-31T23:59:59-05:00", "updated_after"),
        ("status=archived", "status"),
    ],
)
def test_bad_filter_values_are_400_naming_the_field(anon, query, field):
    response = anon.get(f"/api/v1/papers/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400 and body["code"] == "invalid"
    assert field in body["errors"]


def test_paper_search(anon):
    found = papers(anon, "search=batches")
    assert "when-do-larger-batches-help-scale-llm-reinforcement-learning" in slugs(found)
    assert papers(anon, "search=zzzqqqxxnothing") == []


def test_paper_ordering(anon):
    by_title = papers(anon, "ordering=title")
    titles = [row["title"] for row in by_title]
    assert titles == sorted(titles)
    most_cited = papers(anon, "ordering=-cited_by_count")
    assert most_cited[0]["slug"] == ART_OF_SCALING
    oldest = papers(anon, "ordering=publication_date")
    known = [row["publication_date"] for row in oldest if row["publication_date"]]
    assert known and known == sorted(known)
    assert oldest[0]["publication_date"] is None
    # Unknown ordering fields fall back to the default order.
    assert slugs(papers(anon, "ordering=password")) == slugs(papers(anon, ""))


def test_citations_by_role_polarity_and_papers(anon):
    def citations(query):
        return walk(anon, f"/api/v1/citations/?page_size=100&{query}")[0]

    assert len(citations("role=background")) == 6
    assert len(citations("polarity=neutral")) == 6
    assert citations("role=method") == []
    assert len(citations(f"cited={ART_OF_SCALING}")) == 30
    assert len(citations("citing=scaling-self-play-with-self-guidance")) == 1
    representative = citations("is_representative=true")
    assert representative and all(row["is_representative"] for row in representative)
    for query, field in [("role=nope", "role"), ("polarity=7", "polarity")]:
        response = anon.get(f"/api/v1/citations/?{query}")
        assert response.status_code == 400
        assert field in response.json()["errors"]


def test_hub_filters_by_role_and_polarity(anon):
    hub = f"/api/v1/papers/{ART_OF_SCALING}/citations/?page_size=50"
    background = anon.get(f"{hub}&role=background").json()
    assert len(background["results"]) == 6
    assert background["summary"]["total"] == 30  # the summary stays the whole hub
    assert len(anon.get(f"{hub}&polarity=neutral").json()["results"]) == 6
    assert anon.get(f"{hub}&role=method").json()["results"] == []
    bad = anon.get(f"{hub}&role=bogus")
    assert bad.status_code == 400 and "role" in bad.json()["errors"]


def test_note_filters(anon):
    def notes(query):
        return anon.get(f"/api/v1/notes/?{query}").json()

    batches = "when-do-larger-batches-help-scale-llm-reinforcement-learning"
    assert slugs(notes(f"paper={batches}")["results"]) == [batches]
    assert notes("is_featured=true")["count"] == 3
    assert notes("tag=agents")["count"] == 1
    assert notes("published_at_after=2100-01-01T00:00:00Z")["count"] == 0
    assert anon.get("/api/v1/notes/?layer=nope").status_code == 400


def test_question_and_post_filters(anon):
    assert anon.get("/api/v1/questions/?kind=faq").json()["count"] == 5
    assert anon.get("/api/v1/questions/?kind=team").json()["count"] == 4
    assert anon.get("/api/v1/questions/?kind=other").status_code == 400
    assert anon.get("/api/v1/community-posts/?year=2026").json()["count"] == 4
    assert anon.get("/api/v1/community-posts/?source=lesswrong").json()["count"] == 4
    assert anon.get("/api/v1/community-posts/?year=0").status_code == 400


def test_search_on_other_resources(anon):
    assert slugs(anon.get("/api/v1/layers/?search=reward").json()["results"])[0] == "rewards"
    faq = anon.get("/api/v1/questions/?search=What is RL scaling").json()
    assert faq["count"] >= 1


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/notes/?updated_after=0346-04-09T17:31:05.6%2B22:56",
        "/api/v1/dimensions/?updated_after=0574-01-18T04:41:23%2B21:11",
        "/api/v1/notes/?published_at_before=0565-02-25T04:02:26.4-20:47",
        "/api/v1/citations/?published_at_after=2026-01-01T00:00:00-14:30",
    ],
)
def test_date_times_with_any_offset_are_compared_in_utc(anon, url):
    # PostgreSQL refuses offsets beyond ±15:59; they are converted before they reach it.
    assert anon.get(url).status_code == 200
