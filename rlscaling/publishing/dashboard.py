"""The editor dashboard, the admin's first page (issue 13, point 11): what needs attention, each
line a link to the admin list filtered to it. The number of queries depends on the number of
editorial models, never on the number of rows (counts and short lists, each from an index)."""

from dataclasses import dataclass, field

from django.contrib import admin
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from .models import Status, publishable_models

# How many rows a list on the dashboard shows; the link leads to the rest.
SHOWN = 5


@dataclass
class Line:
    label: str
    url: str
    count: int | None = None
    when: object = None


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


def _count_lines(models, status):
    lines = []
    for model in models:
        count = model._default_manager.filter(status=status).count()
        if count:
            name = model._meta.verbose_name_plural
            url = changelist_url(model, f"status__exact={status}")
            lines.append(Line(f"{count} {name}", url, count))
    return lines


def unclassified_by_hub():
    """The papers with the most citing edges lacking a role or a polarity."""
    from citations.models import Citation, Paper

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


def scheduled(models, now):
    lines = []
    for model in models:
        rows = model._default_manager.filter(status=Status.PUBLISHED, published_at__gt=now)
        for item in rows.order_by("published_at")[:SHOWN]:
            lines.append(Line(str(item), change_url(item), when=item.published_at))
    return sorted(lines, key=lambda line: line.when)


def papers_missing_data():
    from citations.models import Paper

    no_identifier = Paper.objects.filter(arxiv_id="", doi="", url="").count()
    no_authors = Paper.objects.filter(authorships__isnull=True).count()
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
        Section("Scheduled", "Nothing is scheduled.", scheduled(models, now)),
    ]
    if "Citation" in names:
        sections.append(
            Section(
                "Unclassified citations, by most affected paper",
                "Every citation has a role and a polarity.",
                unclassified_by_hub(),
            )
        )
    if "Paper" in names:
        lines = [line for line in papers_missing_data() if line.count]
        sections.append(Section("Papers missing data", "Every paper is complete.", lines))
    return sections
