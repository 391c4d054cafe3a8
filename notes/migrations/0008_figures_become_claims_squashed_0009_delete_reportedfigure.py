# 0008_figures_become_claims to 0009_delete_reportedfigure, squashed:
# a new database applies this migration instead; one that applied any of them goes on with
# them. Keep the old files until every deployment has applied them all
# (docs/decisions/0025-squashed-migrations.md). Their data migrations are copied in, but
# those marked elidable.

from django.db import migrations
import re
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify


# From 0008_figures_become_claims.

MADE = "Made from figure {figure} (order {order}) of research note {note}"


KEPT = "Stands for figure {figure} (order {order}) of research note {note}"


REASON = re.compile(
    r"^(?P<how>Made from|Stands for) figure (?P<figure>\d+) \(order (?P<order>\d+)\) "
    r"of research note (?P<note>\d+)$"
)


PUBLISHED = "published"


def matching_claim(Claim, figure, taken):
    """A claim of the figure's note giving the same figure, not already standing for another
    of its figures; one whose unit is the figure's label first. A published note's figure was
    public: only a published claim keeps it public, so a draft one is not reused for it."""
    note = figure.note
    claims = Claim.objects.filter(notes=note, figure=figure.value).exclude(pk__in=taken)
    if note.status == PUBLISHED:
        claims = claims.filter(status=PUBLISHED)
    claims = claims.order_by("pk")
    return claims.filter(unit=figure.label).first() or claims.first()


def unique_slug(Claim, label):
    base = slugify(label)[:190].strip("-") or "figure"
    slug, n = base, 2
    while Claim.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def claim_from(Claim, figure):
    """A claim saying what the figure said, as public as its note."""
    note = figure.note
    claim = Claim.objects.create(
        slug=unique_slug(Claim, figure.label),
        # The note gave only the number and its label: the claim states that much, no more.
        statement=f"{figure.value} {figure.label}".strip(),
        figure=figure.value,
        unit=figure.label,
        status=note.status,
        published_at=note.published_at,
        unpublish_at=note.unpublish_at,
    )
    claim.notes.add(note)
    return claim


def record(apps, claim, history_type, reason, when):
    """A history record of the claim as it is now (what simple-history would write, with the
    relations snapshot publishing/history.py keeps), carrying `reason`."""
    Claim = apps.get_model("bottlenecks", "Claim")
    HistoricalClaim = apps.get_model("bottlenecks", "HistoricalClaim")
    values = {field.attname: getattr(claim, field.attname) for field in Claim._meta.concrete_fields}
    m2m = {
        field.name: sorted(getattr(claim, field.name).values_list("pk", flat=True))
        for field in Claim._meta.many_to_many
    }
    HistoricalClaim.objects.create(
        **values,
        history_date=when,
        history_type=history_type,
        history_change_reason=reason,
        related_snapshot={"m2m": m2m, "children": {}},
    )


def figures_to_claims(apps, schema_editor):
    Figure = apps.get_model("notes", "ReportedFigure")
    Claim = apps.get_model("bottlenecks", "Claim")
    now = timezone.now()
    taken = {}  # note pk: pks of the claims standing for one of its figures
    figures = Figure.objects.select_related("note").order_by("note_id", "order", "pk")
    for figure in figures:
        note_taken = taken.setdefault(figure.note_id, set())
        claim = matching_claim(Claim, figure, note_taken)
        how, history_type = KEPT, "~"
        if claim is None:
            claim = claim_from(Claim, figure)
            how, history_type = MADE, "+"
        note_taken.add(claim.pk)
        reason = how.format(figure=figure.pk, order=figure.order, note=figure.note_id)
        record(apps, claim, history_type, reason, now)


def claims_to_figures(apps, schema_editor):
    """The figures again, as they were turned into claims (the values the claims had then),
    in their order; the claims made from them are removed, the kept ones stay."""
    Figure = apps.get_model("notes", "ReportedFigure")
    Claim = apps.get_model("bottlenecks", "Claim")
    HistoricalClaim = apps.get_model("bottlenecks", "HistoricalClaim")
    ResearchNote = apps.get_model("notes", "ResearchNote")
    records = HistoricalClaim.objects.filter(
        Q(history_change_reason__startswith="Made from figure ")
        | Q(history_change_reason__startswith="Stands for figure ")
    ).order_by("history_id")
    notes = set(ResearchNote.objects.values_list("pk", flat=True))
    made, marks = set(), []
    for row in records:
        match = REASON.match(row.history_change_reason or "")
        if match is None:
            continue
        marks.append(row.history_id)
        if match["how"] == "Made from":
            made.add(row.id)
        if int(match["note"]) in notes:
            Figure.objects.create(
                note_id=int(match["note"]),
                value=row.figure[:30],
                label=row.unit,
                order=int(match["order"]),
            )
    Claim.objects.filter(pk__in=made).delete()
    HistoricalClaim.objects.filter(id__in=made).delete()
    HistoricalClaim.objects.filter(history_id__in=marks).delete()


class Migration(migrations.Migration):

    replaces = [('notes', '0008_figures_become_claims'), ('notes', '0009_delete_reportedfigure')]

    dependencies = [
        ('bottlenecks', '0006_status_scheduled'),
        ('notes', '0007_status_scheduled'),
    ]

    operations = [
        migrations.RunPython(
            code=figures_to_claims,
            reverse_code=claims_to_figures,
        ),
        migrations.RemoveField(
            model_name='reportedfigure',
            name='note',
        ),
        migrations.DeleteModel(
            name='HistoricalReportedFigure',
        ),
        migrations.DeleteModel(
            name='ReportedFigure',
        ),
    ]
