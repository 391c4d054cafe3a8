"""Admin for bringing papers in and keeping one record per paper: imports (paste or upload, dry
run, confirm; progress of background runs), possible duplicates with a merge action, and the
merge log with undo."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from citations.duplicates import DuplicateScan, PossibleDuplicatePair
from citations.identity import PaperIdentifier, PaperMerge, PaperSlugAlias, PendingCitation
from citations.importers import FORMAT_NAMES, FORMATS, BadImportFile
from citations.importers.apply import IMPORT_PUBLISH_REFUSED, may_import_live, run_refusal
from citations.importers.runs import ImportRun
from citations.merging import merge_papers, undo_merge
from citations.models import Paper
from core.text import NamedRefusalsForm
from publishing.admin import LargeTablePaginator
from publishing.permissions import LiveRowsAdminMixin, may_change_live


class ImportForm(NamedRefusalsForm, forms.Form):
    text = forms.CharField(
        label="Paste BibTeX, a list of arXiv ids, or any supported format",
        widget=forms.Textarea(attrs={"rows": 14, "cols": 100}),
        required=False,
    )
    file = forms.FileField(required=False)
    format = forms.ChoiceField(
        choices=[
            ("", "Guess from the content"),
            *[(f, FORMAT_NAMES[f]) for f in (*FORMATS, "arxiv-ids")],
        ],
        required=False,
    )
    publish = forms.BooleanField(
        required=False, help_text="Publish new papers and edges at once (default: drafts)."
    )

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if too_large := ImportRun.upload_too_large(upload):
                raise forms.ValidationError(too_large)
            # Read in pieces as it is stored (ImportRun.store), never whole.
            data["content"], data["name"] = upload, upload.name
        elif data.get("text", "").strip():
            data["content"], data["name"] = data["text"], "pasted text"
        else:
            raise forms.ValidationError("Paste some text or choose a file.")
        return data


@admin.register(ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    """A run's page follows its progress: it refreshes itself while the run is queued, running
    or being dry-run (change_form.html), and says what it did in sentences."""

    list_display = ["__str__", "editor", "created_at", "state", "progress", "outcome"]
    list_filter = ["state"]
    change_form_template = "admin/citations/importrun/change_form.html"
    readonly_fields = [
        "name",
        "format_name",
        "size",
        "publish",
        "state",
        "records",
        "processed",
        "progress",
        "outcome",
        "editor",
        "created_at",
        "finished",
        "worker_task",
        "dry_run_report",
        "final_report",
    ]
    fields = readonly_fields
    FOLLOWED_STATES = (ImportRun.State.CHECKING, ImportRun.State.QUEUED, ImportRun.State.RUNNING)

    @admin.display(description="format")
    def format_name(self, run):
        return run.format_name

    @admin.display(description="what it did")
    def outcome(self, run):
        return run.summary

    @admin.display(description="started by")
    def editor(self, run):
        return run.created_by or "an account deleted since"

    @admin.display(description="finished at")
    def finished(self, run):
        return run.finished_at or f"Not finished: {run.get_state_display().lower()}."

    @admin.display(description="worker task")
    def worker_task(self, run):
        return run.task_id or "No worker task: it ran in the editor's request."

    @admin.display(description="dry run")
    def dry_run_report(self, run):
        return run.dry_run or "No dry run yet."

    @admin.display(description="report")
    def final_report(self, run):
        if run.report:
            return run.report
        return f"No report yet: the import is {run.get_state_display().lower()}."

    def render_change_form(self, request, context, *args, **kwargs):
        run = context.get("original")
        context["follows_progress"] = run is not None and run.state in self.FOLLOWED_STATES
        return super().render_change_form(request, context, *args, **kwargs)

    @admin.display(description="progress")
    def progress(self, run):
        return format_html(
            '<progress max="100" value="{}">{}%</progress> {}%',
            run.percent,
            run.percent,
            run.percent,
        )

    def has_change_permission(self, request, obj=None):
        return False

    def get_urls(self):
        return [
            path(
                "<int:pk>/confirm/",
                self.admin_site.admin_view(self.confirm_view),
                name="citations_importrun_confirm",
            ),
            *super().get_urls(),
        ]

    def add_view(self, request, form_url="", extra_context=None):
        """Paste or upload, then see the dry run (nothing written but the run itself); a large
        file's dry run is made by the worker, its page showing the progress."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "form": form,
            "title": "Import papers",
        }
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            if data["publish"] and not may_import_live(request.user):
                form.add_error("publish", IMPORT_PUBLISH_REFUSED)
                return TemplateResponse(request, "admin/citations/import_form.html", context)
            try:
                run, _ = ImportRun.preview(
                    data["content"], data["format"], data["name"], data["publish"], request.user
                )
            except BadImportFile as error:
                form.add_error(None, str(error))
            else:
                return redirect("admin:citations_importrun_confirm", run.pk)
        return TemplateResponse(request, "admin/citations/import_form.html", context)

    def confirm_view(self, request, pk):
        run = get_object_or_404(ImportRun, pk=pk)
        if not self.has_add_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            refusal = run_refusal(request.user, run)
            if refusal:
                self.message_user(request, refusal, messages.ERROR)
                return redirect("admin:citations_importrun_change", run.pk)
            try:
                run.confirm()
            except BadImportFile as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                if run.state == ImportRun.State.QUEUED:
                    records = f"{run.records:,} record{'s' if run.records != 1 else ''}"
                    self.message_user(
                        request,
                        f"Queued {records} for the worker: this page follows its progress.",
                    )
                else:
                    self.message_user(request, f"Imported. {run.summary}", messages.SUCCESS)
            return redirect("admin:citations_importrun_change", run.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "run": run,
            "title": "Dry run: confirm the import",
        }
        return TemplateResponse(request, "admin/citations/import_confirm.html", context)


def may_merge(user, model):
    """Whether `user` may merge rows of `model` (papers, authors) and undo merges: a merge
    rewrites published papers, their edges and authors, so the change and delete permissions
    of `model` and the publish permission (of `model`, papers and edges) too."""
    name = model._meta.model_name
    return (
        user.has_perms([f"citations.change_{name}", f"citations.delete_{name}"])
        and may_change_live(user, model)
        and may_import_live(user)
    )


DUPLICATES_SHOWN = 100  # pairs per page


class DuplicatePairPaginator(LargeTablePaginator):
    """A page's pairs found by key first (an index walk), then read with their two papers:
    a late page no longer joins every pair before it. Counted exactly (tens of thousands of
    pairs count in milliseconds through the open pairs' partial index)."""

    ESTIMATED_FROM = float("inf")


@admin.register(PaperMerge)
class PaperMergeAdmin(admin.ModelAdmin):
    list_display = ["merged_slug", "kept", "reason", "merged_by", "merged_at", "undone_at"]
    readonly_fields = [
        "kept",
        "merged_slug",
        "merged_title",
        "reason",
        "merged_by",
        "merged_at",
        "undone_at",
    ]
    exclude = ["snapshot"]
    actions = ["undo"]
    change_list_template = "admin/citations/papermerge_change_list.html"

    def has_add_permission(self, request):
        return self.may_merge(request)

    def has_change_permission(self, request, obj=None):
        return False

    def add_view(self, request, form_url="", extra_context=None):
        """Adding a merge is picking one of the possible duplicates."""
        return self.duplicates_view(request)

    def may_merge(self, request):
        return may_merge(request.user, Paper)

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not self.may_merge(request):
            actions.pop("undo", None)
        return actions

    @admin.action(description="Undo the selected merges")
    def undo(self, request, queryset):
        for merge in queryset.filter(undone_at=None).order_by("-merged_at", "-id"):
            paper = undo_merge(merge)
            self.message_user(
                request, f"Undid the merge: “{paper.title}” is back as its own paper."
            )

    def get_urls(self):
        return [
            path(
                "duplicates/",
                self.admin_site.admin_view(self.duplicates_view),
                name="citations_paper_duplicates",
            ),
            *super().get_urls(),
        ]

    def duplicates_view(self, request):
        """The stored possible duplicates, strongest first, a page at a time (the pairs are
        found by a scan in the task queue: citations/duplicates.py). POST keep=<pk>&other=<pk>
        merges `other` into `keep`; dismiss=<pair> or restore=<pair> marks a pair as two
        papers or takes that back; scan=1 queues a new scan."""
        if not self.may_merge(request):
            raise PermissionDenied
        if request.method == "POST":
            return self.duplicates_post(request)
        showing_dismissed = request.GET.get("dismissed") == "1"
        pending, scan = DuplicateScan.pending(), DuplicateScan.latest_finished()
        if pending is None and DuplicateScan.is_stale(scan):
            pending = DuplicateScan.request()  # papers changed since the last scan
        pairs = PossibleDuplicatePair.objects.select_related("first", "second").only(
            "reason", "score", "dismissed_at", *self.PAIR_PAPER_FIELDS
        )
        if showing_dismissed:
            pairs = pairs.exclude(dismissed_at=None).order_by("-dismissed_at", "-pk")
        else:
            pairs = pairs.open()
        page = DuplicatePairPaginator(pairs, DUPLICATES_SHOWN).get_page(request.GET.get("p"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "page": page,
            "pairs": page.object_list,
            "total": page.paginator.count,
            "showing_dismissed": showing_dismissed,
            "scan": scan,
            "pending": pending,
            "title": "Possible duplicate papers",
        }
        return TemplateResponse(request, "admin/citations/duplicates.html", context)

    PAIR_PAPER_FIELDS = [
        f"{end}__{name}" for end in ("first", "second") for name in ("id", "title", "slug")
    ]

    def duplicates_post(self, request):
        back = redirect("admin:citations_paper_duplicates")
        if request.POST.get("scan"):
            DuplicateScan.request()
            self.message_user(request, "A new search for duplicates is queued.")
            return back
        for action in ("dismiss", "restore"):
            if action in request.POST:
                pair = get_object_or_404(PossibleDuplicatePair, pk=request.POST[action])
                if action == "dismiss":
                    pair.dismiss(request.user)
                    self.message_user(request, "Dismissed: these are two papers.")
                else:
                    pair.dismissed_at, pair.dismissed_by = None, None
                    pair.save(update_fields=["dismissed_at", "dismissed_by"])
                    self.message_user(request, "The pair is listed again.")
                return back
        keep = get_object_or_404(Paper, pk=request.POST.get("keep"))
        other = get_object_or_404(Paper, pk=request.POST.get("other"))
        if keep.pk == other.pk:
            self.message_user(request, "A paper cannot be merged into itself.", messages.ERROR)
            return back
        merge = merge_papers(keep, other, reason="editor", user=request.user)
        self.message_user(
            request,
            f"Merged “{merge.merged_title}” into “{keep.title}”; undo it from the merge log.",
        )
        return redirect(reverse("admin:citations_paper_change", args=[keep.pk]))


@admin.register(PaperIdentifier)
class PaperIdentifierAdmin(LiveRowsAdminMixin, admin.ModelAdmin):
    """Identifiers a paper answers to besides its own arXiv id and DOI fields."""

    list_display = ["value", "scheme", "paper"]
    list_filter = ["scheme"]
    search_fields = ["value", "paper__title"]
    autocomplete_fields = ["paper"]


@admin.register(PaperSlugAlias)
class PaperSlugAliasAdmin(LiveRowsAdminMixin, admin.ModelAdmin):
    """Old slugs answering 301 to the paper's current address."""

    list_display = ["slug", "paper", "created_at"]
    search_fields = ["slug", "paper__title"]
    autocomplete_fields = ["paper"]


@admin.register(PendingCitation)
class PendingCitationAdmin(admin.ModelAdmin):
    """Imported edges waiting for the paper at their other end."""

    list_display = ["paper", "direction", "scheme", "value", "role_slug", "source"]
    list_filter = ["source", "scheme"]
    search_fields = ["value", "paper__title"]
    autocomplete_fields = ["paper"]
