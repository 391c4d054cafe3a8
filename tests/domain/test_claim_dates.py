"""A claim's date follows the rule of a paper's (citations/dates.py): `reported_on` is a fact
only as far as `reported_on_precision` says, and no door (the admin, the demo loader, the
migration for rows already typed) lets a claim give the placeholder of a paper whose date is
not known as the source's date."""

import datetime
import importlib

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from citations.models import DatePrecision
from evidence.models import Claim, EvidenceTimeline
from tests.factories import ClaimFactory, LayerFactory, PaperFactory
from tests.helpers import admin_form_data

pytestmark = pytest.mark.django_db

PLACEHOLDER = datetime.date(2031, 7, 19)


@pytest.fixture
def undated_paper():
    return PaperFactory(
        title="Glimmering Undated Preprint",
        slug="glimmering",
        publication_date=PLACEHOLDER,
        date_precision=DatePrecision.UNKNOWN,
    )


def claim_from(paper, **fields):
    layer = LayerFactory(slug="rewards")
    claim = ClaimFactory(statement="Glimmering finding.", **fields)
    claim.papers.add(paper)
    claim.layers.add(layer)
    return claim


@pytest.mark.parametrize(
    ("precision", "shown", "hidden"),
    [
        (DatePrecision.DAY, ["Jul 19, 2031", 'datetime="2031-07-19"'], []),
        (DatePrecision.MONTH, ["Jul 2031", 'datetime="2031-07"'], ["Jul 19"]),
        (DatePrecision.YEAR, ['datetime="2031"'], ["Jul 2031", "Jul 19"]),
        (DatePrecision.UNKNOWN, [], ["2031"]),
    ],
)
def test_every_claim_card_shows_the_known_part_of_its_date(precision, shown, hidden):
    paper = PaperFactory(slug="dated", publication_date="2024-02-02")
    claim_from(paper, reported_on=PLACEHOLDER, reported_on_precision=precision)
    for url in ("/claims/", "/bottlenecks/rewards/", "/papers/dated/"):
        page = Client().get(url).content.decode()
        for text in shown:
            assert text in page, url
        for text in hidden:
            assert text not in page, url


def test_the_api_and_search_give_the_known_part_only():
    paper = PaperFactory(slug="dated", publication_date="2024-02-02")
    claim_from(paper, reported_on=PLACEHOLDER, reported_on_precision=DatePrecision.UNKNOWN)
    ClaimFactory(
        statement="Glimmering yearly finding.",
        reported_on=datetime.date(2030, 1, 1),
        reported_on_precision=DatePrecision.YEAR,
    )
    rows = Client().get("/api/v1/claims/").json()["results"]
    dates = {row["statement"]: (row["reported_on"], row["reported_on_precision"]) for row in rows}
    assert dates == {
        "Glimmering finding.": (None, "unknown"),
        "Glimmering yearly finding.": ("2030-01-01", "year"),
    }
    client = Client()
    in_2031 = client.get("/search/", {"q": "Glimmering", "kind": "claims", "year": 2031})
    assert "Glimmering finding." not in in_2031.content.decode()
    searched = client.get("/search/", {"q": "Glimmering", "kind": "claims"}).content.decode()
    assert "2031" not in searched
    assert "2030" in searched and "Jan 1, 2030" not in searched


def test_the_layer_chart_places_only_claims_dated_to_a_month_or_a_day():
    paper = PaperFactory(slug="dated", publication_date="2024-02-02")
    claim = claim_from(paper, reported_on=PLACEHOLDER, reported_on_precision=DatePrecision.UNKNOWN)
    layer = claim.layers.get()
    for precision in (DatePrecision.YEAR, DatePrecision.MONTH):
        ClaimFactory(
            reported_on=datetime.date(2030, 4, 1), reported_on_precision=precision
        ).layers.add(layer)
    timeline = EvidenceTimeline.for_layer(layer)
    assert timeline.total_claims == 1  # the month's, in 2030 Q2
    assert timeline.undated_claims == 2  # the placeholder and the year alone
    assert not any(bar.start.year == 2031 for bar in timeline.bars)


def test_a_claim_may_not_give_its_papers_placeholder_as_its_date(undated_paper):
    claim = claim_from(undated_paper, reported_on=PLACEHOLDER)
    with pytest.raises(ValidationError, match="placeholder date of “Glimmering Undated"):
        claim.full_clean()
    claim.reported_on = datetime.date(2031, 7, 20)  # the source's own date
    claim.full_clean()


def test_the_admin_refuses_the_placeholder_of_a_paper_being_chosen(editor_client, undated_paper):
    claim = ClaimFactory(statement="Glimmering finding.")
    url = reverse("admin:bottlenecks_claim_change", args=[claim.pk])
    data = admin_form_data(editor_client.get(url), Claim)
    data |= {
        "status": "published",
        "published_at_0": timezone.localdate().isoformat(),
        "published_at_1": "00:00:00",
        "papers": [undated_paper.pk],
        "reported_on": PLACEHOLDER.isoformat(),
        "reported_on_precision": DatePrecision.DAY,
    }
    response = editor_client.post(url, data)
    assert response.status_code == 200  # the form again, with the error
    assert "is the placeholder date of" in response.content.decode()
    assert Claim.objects.get(pk=claim.pk).reported_on is None
    data |= {"reported_on": "2031-01-01", "reported_on_precision": DatePrecision.YEAR}
    response = editor_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    claim.refresh_from_db()
    assert (claim.reported_on, claim.reported_on_precision) == (datetime.date(2031, 1, 1), "year")


def test_the_migration_marks_a_typed_placeholder_unknown(undated_paper):
    typed = claim_from(undated_paper, reported_on=PLACEHOLDER)
    own = ClaimFactory(reported_on=datetime.date(2031, 7, 20))
    own.papers.add(undated_paper)
    migration = importlib.import_module("bottlenecks.migrations.0010_claim_reported_on_precision")
    migration.mark_placeholder_dates_unknown(apps, None)
    precisions = dict(Claim.objects.values_list("pk", "reported_on_precision"))
    assert precisions == {typed.pk: DatePrecision.UNKNOWN, own.pk: DatePrecision.DAY}
