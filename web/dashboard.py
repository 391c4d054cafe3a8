"""The editor dashboard, the admin's first page: what needs attention, each
line a link to the admin list filtered to it. The number of queries depends on the number of
editorial models, never on the number of rows (counts and short lists, each from an index)."""

import datetime
from dataclasses import dataclass, field

from django.contrib import admin
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from citations.models import Citation, Paper
from evidence.models import Claim
from notes.guide import unsupported_copy
from notes.models import ResearchNote
from publishing.models import Status, format_moment, publishable_models
from publishing.revisions import DraftRevision

# How many rows a list on the dashboard shows; the link leads to the rest.
SHOWN = 5


@dataclass
class Line:
    label: str
    url: str
    count: int | None = None
    when: object = None  # a datetime (scheduled, updated) or a date (review by)

    @property
    def when_text(self):
        if isinstance(self.when, datetime.datetime):
            return format_moment(self.when)
        return date_format(self.when, "j M Y") if self.when else ""


@dataclass
class Section:
    title: str
    empty: str
    lines: list = field(default_factory=list)


def changelist_url(model, query=""):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    return f"{url}?{query}" if query else url


def change_url(obj):
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])


def _visible_models(request):
    """The publishable models registered in the admin that this user may view."""
    models = []
    for model in publishable_models():
        model_admin = admin.site._registry.get(model)
        if model_admin is not None and model_admin.has_view_permission(request):
            models.append(model)
    return sorted(models, key=lambda model: str(model._meta.verbose_name_plural))


def counted(count, model):
    """ "1 research note", "3 research notes"."""
    opts = model._meta
    return f"{count} {opts.verbose_name if count == 1 else opts.verbose_name_plural}"


def _count_lines(models, status):
    lines = []
    for model in models:
        count = model._default_manager.filter(status=status).count()
        if count:
            url = changelist_url(model, f"status__exact={status}")
            lines.append(Line(counted(count, model), url, count))
    return lines


def unclassified_by_hub():
    """The papers with the most citing edges lacking a role or a polarity."""
    groups = (
        Citation.objects.filter(Q(role__isnull=True) | Q(polarity__isnull=True))
        .values("cited_paper")
        .annotate(count=Count("*"))
        .order_by("-count", "cited_paper")[:SHOWN]
    )
    counts = {group["cited_paper"]: group["count"] for group in groups}
    titles = dict(Paper.objects.filter(pk__in=counts).values_list("pk", "title"))
    return [
        Line(
            f"{titles.get(pk, pk)}: {count} unclassified",
            changelist_url(Citation, f"cited_paper__id__exact={pk}&classified=no"),
            count,
        )
        for pk, count in counts.items()
    ]


def scheduled(models):
    """Per model, how many items are scheduled (a link to the list of them), then the next
    ones to appear, each with its time and a link to its change form."""
    counts, items = [], []
    for model in models:
        rows = model._default_manager.scheduled()
        count = rows.count()
        if not count:
            continue
        url = changelist_url(model, "state=scheduled")
        counts.append(Line(f"{counted(count, model)} scheduled", url, count))
        for item in rows.order_by("published_at")[:SHOWN]:
            items.append(Line(str(item), change_url(item), when=item.published_at))
    return counts + sorted(items, key=lambda line: line.when)[:SHOWN]


def draft_revisions(models):
    """Live items with a draft revision waiting: per model, how many (a link to the list
    filtered to them), then the oldest ones, each a link to its change form (where the draft
    revision opens). Queries: one count, one list, one per model among the listed items."""
    from django.contrib.contenttypes.models import ContentType

    types = ContentType.objects.get_for_models(*models)  # cached after the first request
    revisions = DraftRevision.objects.filter(content_type__in=types.values())
    counts = dict(revisions.values_list("content_type").annotate(count=Count("*")).order_by())
    lines = []
    for model, content_type in types.items():
        count = counts.get(content_type.pk)
        if count:
            url = changelist_url(model, "draft_revision=yes")
            lines.append(Line(f"{counted(count, model)} with a draft revision", url, count))
    if not lines:
        return lines
    for revision in revisions.waiting().prefetch_related("item")[:SHOWN]:
        if revision.item is None:
            continue
        author = f" by {revision.author}" if revision.author else ""
        lines.append(
            Line(f"“{revision.item}”{author}", change_url(revision.item), when=revision.updated_at)
        )
    return lines


def due_for_review(today):
    """Research notes whose review date has come: the count (a link to the filtered list),
    then the longest waiting, each with its review date."""
    due = ResearchNote.objects.due_for_review(today)
    count = due.count()
    if not count:
        return []
    url = changelist_url(ResearchNote, "review=due")
    lines = [Line(f"{counted(count, ResearchNote)} due for review", url, count)]
    for note in due.only("pk", "title", "review_by")[:SHOWN]:
        lines.append(Line(note.title, change_url(note), when=note.review_by))
    return lines


def claims_to_review():
    """Claims whose evidence changed since their last review (a citation of one of their
    papers was added, changed or removed), those with a proposed status first, each with the
    reason; the count links to the filtered list."""
    changed = Claim.objects.evidence_changed_since_review()
    count = changed.count()
    if not count:
        return []
    lines = [
        Line(
            f"{counted(count, Claim)} whose evidence changed since the last review",
            changelist_url(Claim, "review=changed"),
            count,
        )
    ]
    rows = changed.only(
        "pk",
        "statement",
        "figure",
        "unit",
        "proposed_status",
        "proposal_reason",
        "evidence_changed_at",
    )
    for claim in rows.order_by("proposed_status", "-evidence_changed_at")[:SHOWN]:
        label = str(claim)
        if claim.proposed_status:
            label += f": proposed {claim.get_proposed_status_display().lower()}"
            label += f" ({claim.proposal_reason})" if claim.proposal_reason else ""
        lines.append(Line(label, change_url(claim), when=claim.evidence_changed_at))
    return lines


def evidence_without_source():
    """Published claims none of whose published papers has an arXiv id, DOI or URL: readers
    cannot check them. The count links to the filtered list; the first ones follow."""
    bare = Claim.objects.published().without_source()
    count = bare.count()
    if not count:
        return []
    lines = [
        Line(
            f"{counted(count, Claim)} with no source on record (no arXiv id, DOI or URL)",
            changelist_url(Claim, "source=none&status__exact=published"),
            count,
        )
    ]
    for claim in bare.only("pk", "statement", "figure", "unit").order_by("statement")[:SHOWN]:
        lines.append(Line(str(claim), change_url(claim)))
    return lines


def papers_missing_data():
    no_identifier = Paper.objects.filter(arxiv_id="", doi="", url="").count()
    no_authors = Paper.objects.without_authors().count()
    return [
        Line(
            f"{no_identifier} papers with no arXiv id, DOI or URL",
            changelist_url(Paper, "missing=identifier"),
            no_identifier,
        ),
        Line(
            f"{no_authors} papers with no authors",
            changelist_url(Paper, "missing=authors"),
            no_authors,
        ),
    ]


def copy_to_rewrite():
    """Editorial copy of the field guide and the index that what its section lists no longer
    supports (notes/guide.py), each line leading to the section's form."""
    return [
        Line(str(unsupported), change_url(unsupported.section))
        for unsupported in unsupported_copy()
    ]


def editor_dashboard(request, now=None):
    """The dashboard's sections for this user (models they cannot view are left out)."""
    now = now or timezone.now()
    models = _visible_models(request)
    names = {model.__name__ for model in models}
    sections = [
        Section(
            "Submitted for review", "Nothing awaits review.", _count_lines(models, Status.REVIEW)
        ),
        Section("Drafts", "No drafts.", _count_lines(models, Status.DRAFT)),
        Section(
            "Draft revisions of live items",
            "No draft revisions are waiting.",
            draft_revisions(models),
        ),
        Section("Scheduled", "Nothing is scheduled.", scheduled(models)),
    ]
    if "ResearchNote" in names:
        today = timezone.localdate(now)
        sections.append(
            Section("Due for review", "No note is due for review.", due_for_review(today))
        )
    if "Claim" in names:
        sections.append(
            Section(
                "Claims to review",
                "No claim's evidence changed since its last review.",
                claims_to_review(),
            )
        )
        sections.append(
            Section(
                "Evidence without a source on record",
                "Every published claim has a paper with an arXiv id, DOI or URL.",
                evidence_without_source(),
            )
        )
    if "Citation" in names:
        sections.append(
            Section(
                "Unclassified citations, by most affected paper",
                "Every citation has a role and a polarity.",
                unclassified_by_hub(),
            )
        )
    if request.user.has_perm("notes.view_guidesection"):
        sections.append(
            Section(
                "Copy the data no longer supports",
                "Every date, count and source the guide's copy states agrees with what it lists.",
                copy_to_rewrite(),
            )
        )
    if "Paper" in names:
        lines = [line for line in papers_missing_data() if line.count]
        sections.append(Section("Papers missing data", "Every paper is complete.", lines))
    return sections
