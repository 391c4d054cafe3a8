"""Editorial copy that states a fact about what its section lists is checked against it: a
date ("New August 2026 preprints" over notes whose papers' dates are unknown), a year
("LessWrong discussion · 2026"), a number of rows, and "Source-linked" over an index whose items
mostly have no arXiv id, DOI or URL. The seed's words stay as written on the pages; editors see
what the data no longer supports on the dashboard and on the section's form, and the line goes
once the data (or the words) agree."""

import datetime

import pytest
from django.urls import reverse

from citations.dates import DatePrecision
from citations.models import Paper
from notes.guide import unsupported_copy
from notes.models import CommunityPost, GuideSection, ResearchNote
from tests.factories import DimensionFactory, UserFactory
from tests.helpers import text_of

pytestmark = pytest.mark.django_db

INDEX = reverse("admin:index")


def found(key=None):
    return [
        (item.section.key, item.field, item.words)
        for item in unsupported_copy()
        if key is None or item.section.key == key
    ]


def featured_papers():
    return Paper.objects.filter(notes__in=ResearchNote.objects.featured()).distinct()


def test_the_demo_copy_that_its_data_does_not_support(demo):
    assert found() == [
        ("evidence", "intro", "August 2026"),
        ("research-index", "intro", "Source-linked"),
    ]
    [august, source] = unsupported_copy()
    assert "nothing it lists (3 research notes) is known to date from August 2026" in str(august)
    assert "3 research notes with no known date" in str(august)
    unsourced = Paper.objects.in_research_index().filter(arxiv_id="", doi="", url="").count()
    total = Paper.objects.in_research_index().count()
    expected = f"{unsourced} of the {total} papers it lists have no arXiv id, DOI or URL"
    assert expected in str(source)


def test_the_seed_words_stay_on_the_pages(client, demo):
    assert "New August 2026 preprints sharpen the scaling question." in text_of(client.get("/"))
    index = text_of(client.get(reverse("citations:research-index")))
    assert "Source-linked research notes with original summaries" in index


def test_a_named_month_needs_a_paper_known_to_date_from_it(demo):
    papers = featured_papers()
    papers.update(publication_date=datetime.date(2026, 8, 12), date_precision=DatePrecision.YEAR)
    assert ("evidence", "intro", "August 2026") in found()  # the year alone is not the month
    papers.update(date_precision=DatePrecision.MONTH, publication_date=datetime.date(2026, 9, 1))
    assert ("evidence", "intro", "August 2026") in found()
    papers.filter(pk=papers.first().pk).update(publication_date=datetime.date(2026, 8, 1))
    assert found("evidence") == []


def test_a_named_year_follows_the_posts(demo):
    assert found("community") == []
    CommunityPost.objects.update(year=2025)
    assert found("community") == [("community", "eyebrow", "2026")]


def test_a_number_of_rows_follows_the_rows(demo):
    assert found("dimensions") == []
    DimensionFactory(name="Memory")
    assert found("dimensions") == [("dimensions", "intro", "six coupled dimensions")]
    [seventh] = [item for item in unsupported_copy() if item.section.key == "dimensions"]
    assert "it lists 7 dimensions" in str(seventh)


def test_source_words_follow_the_sources(demo):
    Paper.objects.in_research_index().filter(arxiv_id="", doi="", url="").update(
        url="https://example.org/report"
    )
    assert found("research-index") == []


def test_editors_see_it_on_the_dashboard_and_the_form(client, demo, editor):
    client.force_login(editor)
    text = text_of(client.get(INDEX))
    assert "Copy the data no longer supports" in text
    assert "“August 2026”" in text
    section = GuideSection.objects.get(key="evidence")
    form = client.get(reverse("admin:notes_guidesection_change", args=[section.pk]))
    assert "The data no longer supports" in text_of(form)
    assert "August 2026" in text_of(form)


def test_users_who_cannot_see_the_sections_are_not_told(client, demo):
    client.force_login(UserFactory(username="staff-only", is_staff=True))
    response = client.get(INDEX)
    assert "Copy the data no longer supports" not in text_of(response)


def test_the_check_costs_the_same_queries_at_any_size(demo, django_assert_max_num_queries):
    with django_assert_max_num_queries(40) as demo_size:
        unsupported_copy()
    Paper.objects.in_research_index().update(url="")
    DimensionFactory.create_batch(5)
    with django_assert_max_num_queries(len(demo_size)):
        unsupported_copy()
