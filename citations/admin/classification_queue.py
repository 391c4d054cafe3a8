"""The classification queue: an admin page that walks a hub's unclassified edges one at a time
(the citing sentence and the citing paper's abstract beside the choices), where an editor sets
the role and polarity with the keyboard (static/js/classify.js: digits pick the role, letters
the polarity, Enter saves and moves on, → skips; access keys without JavaScript)."""

import string

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from citations.models import Citation, CitationPolarity, CitationRole, Paper
from publishing.history import fit_change_reason
from publishing.models import StaleEditError
from publishing.permissions import LIVE_CHANGE_REFUSED, may_change_live

UNCLASSIFIED = Q(role__isnull=True) | Q(polarity__isnull=True)


def unclassified_edges(paper):
    """Every edge into `paper` (drafts too) still missing its role or its polarity."""
    return Citation.objects.filter(UNCLASSIFIED, cited_paper=paper).order_by("pk")


def keyed(terms, keys):
    """Each term with a key of its own: the next free one of `keys` (digits for roles), or for
    letters the first free letter of its name."""
    taken, rows = set(), []
    for term in terms:
        choices = keys if keys is not None else [c for c in term.name.lower() if c.isalpha()]
        free = [k for k in [*choices, *string.ascii_lowercase] if k not in taken]
        key = free[0] if free and (keys is None or free[0] in keys) else ""
        taken.add(key)
        rows.append((term, key))
    return rows


class ClassifyForm(forms.Form):
    edge = forms.IntegerField(widget=forms.HiddenInput)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    role = forms.ModelChoiceField(CitationRole.objects.all(), required=False)
    polarity = forms.ModelChoiceField(CitationPolarity.objects.all(), required=False)

    def clean(self):
        data = super().clean()
        if not data.get("role") and not data.get("polarity"):
            raise forms.ValidationError("Pick a role, a polarity or both (or skip this edge).")
        return data


class ClassificationQueueMixin:
    """For CitationAdmin: the queue at <admin>/citations/citation/classify/<paper id>/."""

    def get_urls(self):
        return [
            path(
                "classify/<int:paper_pk>/",
                self.admin_site.admin_view(self.classify_view),
                name="citations_citation_classify",
            ),
            *super().get_urls(),
        ]

    def classify_view(self, request, paper_pk):
        if not request.user.has_perm("citations.change_citation"):
            raise PermissionDenied
        paper = get_object_or_404(Paper, pk=paper_pk)
        url = reverse("admin:citations_citation_classify", args=[paper.pk])
        form = None
        if request.method == "POST":
            form = ClassifyForm(request.POST)
            if form.is_valid():
                edge = get_object_or_404(Citation, pk=form.cleaned_data["edge"], cited_paper=paper)
                if edge.is_published and not may_change_live(request.user, Citation):
                    messages.error(request, LIVE_CHANGE_REFUSED)
                    return redirect(f"{url}?after={edge.pk}")
                edge.classify(
                    form.cleaned_data["role"], form.cleaned_data["polarity"], user=request.user
                )
                edge._history_user = request.user
                edge._change_reason = fit_change_reason("Classified in the classification queue")
                try:
                    edge.save_if_version(form.cleaned_data["version"])
                except StaleEditError as error:
                    messages.error(request, error.message("admin", name="citation"))
                    return redirect(f"{url}?after={edge.pk - 1}")
                return redirect(f"{url}?after={edge.pk}")
        elif request.method not in ("GET", "HEAD"):
            return HttpResponseBadRequest("GET or POST only.")
        after = request.POST.get("edge") if form is not None else request.GET.get("after", "0")
        try:
            after = int(after or 0) - (1 if form is not None else 0)
        except ValueError:
            return HttpResponseBadRequest("`after` is an edge id.")
        edges = unclassified_edges(paper)
        edge = (
            edges.filter(pk__gt=after)
            .select_related("citing_paper", "role", "polarity")
            .prefetch_related("citing_paper__authorships__author")
            .first()
        )
        if form is None and edge is not None:
            form = ClassifyForm(
                initial={
                    "edge": edge.pk,
                    "version": edge.version,
                    "role": edge.role_id,
                    "polarity": edge.polarity_id,
                }
            )
        context = {
            **self.admin_site.each_context(request),
            "title": f"Classify the citing edges of “{paper.title}”",
            "opts": self.model._meta,
            "paper": paper,
            "edge": edge,
            "form": form,
            "remaining": edges.count(),
            "after": after,
            "roles": keyed(CitationRole.objects.all(), list("123456789")),
            "polarities": keyed(CitationPolarity.objects.all(), None),
            "queue_url": url,
        }
        status = 400 if form is not None and form.is_bound else 200
        return TemplateResponse(request, "admin/citations/classify.html", context, status=status)
