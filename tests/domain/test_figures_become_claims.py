"""A research note's figures are claims: the migration that retired ReportedFigure keeps every
figure (as a claim of its note, reusing one that already gives it), its reverse puts them back,
and a claim that is not public shows its figure neither on the note's page nor in the API."""

import datetime

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from evidence.models import Claim
from notes.models import ResearchNote
from tests.factories import ClaimFactory, ResearchNoteFactory

# The test database is built from the squashed migrations, so the migration is run as the
# squash of notes 0008-0009 that copies it (docs/decisions/0025-squashed-migrations.md): back
# to the squash of 0001-0007 (notes 0007's state) and forward again.
BEFORE = ("notes", "0001_squashed_0007_status_scheduled")
AFTER = ("notes", "0008_figures_become_claims_squashed_0009_delete_reportedfigure")
CLAIMS = ("bottlenecks", "0008_claim_results_squashed_0011_failure_signal_why")
PUBLISHED_AT = datetime.datetime(2026, 9, 1, 12, tzinfo=datetime.UTC)


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target, CLAIMS]).apps


def old_content(apps):
    """Notes with figures as they were before the migration, and claims already on them."""
    Note = apps.get_model("notes", "ResearchNote")
    Figure = apps.get_model("notes", "ReportedFigure")
    Claim = apps.get_model("bottlenecks", "Claim")
    live = Note.objects.create(
        title="Live", slug="live", dek="d", body="b", status="published", published_at=PUBLISHED_AT
    )
    draft = Note.objects.create(title="Draft", slug="draft", dek="d", body="b", status="draft")
    given = Claim.objects.create(
        slug="given",
        statement="Time-to-target fell by 29%.",
        figure="29%",
        unit="lower time-to-target",
        status="published",
        published_at=PUBLISHED_AT,
    )
    unpublished = Claim.objects.create(
        slug="unpublished", statement="Half-written.", figure="5×", unit="faster", status="draft"
    )
    given.notes.add(live)
    unpublished.notes.add(live)
    for order, value, label in [
        (10, "2.29×", "higher throughput"),
        (20, "29%", "lower time-to-target"),
        (30, "29%", "fewer failed rollouts"),  # the same number again: a figure of its own
        (40, "5×", "faster"),  # only a draft claim gives it: the live note needs a public one
    ]:
        Figure.objects.create(note=live, order=order, value=value, label=label)
    Figure.objects.create(note=draft, order=0, value="7%", label="of a draft")


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_every_figure_and_its_reverse_puts_them_back():
    try:
        old_content(migrate(BEFORE))
        migrate(AFTER)

        live = ResearchNote.objects.get(slug="live")
        shown = [(claim.figure, claim.unit) for claim in live.figures]
        assert sorted(shown) == sorted(
            [
                ("2.29×", "higher throughput"),
                ("29%", "lower time-to-target"),
                ("29%", "fewer failed rollouts"),
                ("5×", "faster"),
            ]
        )
        given = Claim.objects.get(slug="given")
        assert given in live.figures  # reused, not duplicated
        assert Claim.objects.filter(notes=live, figure="29%").count() == 2
        made = Claim.objects.get(notes=live, figure="2.29×")
        assert made.statement == "2.29× higher throughput"
        assert (made.status, made.published_at) == ("published", PUBLISHED_AT)
        assert made.evidence_status == "reported"
        assert made.history.get().history_change_reason.startswith("Made from figure ")
        assert Claim.objects.get(slug="unpublished").status == "draft"  # left as it was
        page = Client().get(live.get_absolute_url()).content.decode()
        for value, label in shown:
            assert f"<dt>{value}</dt><dd>{label}</dd>" in page

        draft = ResearchNote.objects.get(slug="draft")
        (claim,) = Claim.objects.filter(notes=draft)
        assert (claim.figure, claim.unit, claim.status) == ("7%", "of a draft", "draft")

        apps = migrate(BEFORE)
        Figure = apps.get_model("notes", "ReportedFigure")
        rows = Figure.objects.order_by("note__slug", "order")
        assert [(f.note.slug, f.order, f.value, f.label) for f in rows] == [
            ("draft", 0, "7%", "of a draft"),
            ("live", 10, "2.29×", "higher throughput"),
            ("live", 20, "29%", "lower time-to-target"),
            ("live", 30, "29%", "fewer failed rollouts"),
            ("live", 40, "5×", "faster"),
        ]
        remaining = apps.get_model("bottlenecks", "Claim").objects.order_by("slug")
        assert [claim.slug for claim in remaining] == ["given", "unpublished"]
    finally:
        call_command("migrate", verbosity=0)


@pytest.mark.django_db
def test_a_claim_that_is_not_public_shows_no_figure_on_the_note_or_in_the_api():
    note = ResearchNoteFactory()
    ClaimFactory(figure="12%", unit="public figure").notes.add(note)
    ClaimFactory(figure="99%", unit="draft figure", draft=True).notes.add(note)
    later = timezone.now() + datetime.timedelta(days=3)
    ClaimFactory(figure="77%", unit="scheduled figure", published_at=later).notes.add(note)

    page = Client().get(note.get_absolute_url()).content.decode()
    assert "<dt>12%</dt><dd>public figure</dd>" in page
    for hidden in ("99%", "draft figure", "77%", "scheduled figure"):
        assert hidden not in page

    body = APIClient().get(f"/api/v1/notes/{note.slug}/").json()
    assert [(f["value"], f["label"]) for f in body["figures"]] == [("12%", "public figure")]


@pytest.mark.django_db
def test_the_note_admin_lists_the_notes_claims_read_only(editor_client):
    note = ResearchNoteFactory()
    claim = ClaimFactory(figure="3×", unit="faster", draft=True)
    claim.notes.add(note)
    page = editor_client.get(reverse("admin:notes_researchnote_change", args=[note.pk]))
    html = page.content.decode()
    assert reverse("admin:bottlenecks_claim_change", args=[claim.pk]) in html
    assert "3× faster" in html and "Draft" in html
    assert f"{reverse('admin:bottlenecks_claim_add')}?notes={note.pk}" in html
    assert "figures-TOTAL_FORMS" not in html  # no inline of figures any more
