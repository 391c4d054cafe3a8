from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect, RelatedFieldWidgetWrapper
from django.db.models import Q
from django.forms.models import BaseInlineFormSet, InlineForeignKeyField
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.text import Truncator
from simple_history.admin import SimpleHistoryAdmin

from citations.admin.classification_queue import ClassificationQueueMixin
from citations.admin.corrections import CorrectionSuggestionInline, apply_decisions
from citations.identity import alias_refusal
from citations.models import (
    REPRESENTATIVE_LIMIT,
    Author,
    Authorship,
    Citation,
    CitationPolarity,
    CitationRole,
    Paper,
    representative_limit_message,
)
from publishing.admin import (
    LargeTablePaginator,
    LengthCheckedOnSaveMixin,
    PublishableAdmin,
    PublishableForm,
)
from publishing.admin_search import SubstringSearchMixin
from publishing.history_admin import HistoryAdminMixin
from publishing.models import Status
from publishing.permissions import LiveRowsAdminMixin
from tags.admin import TagsInUseFilter

# At most this many edges of a paper are edited on its page; the rest are one link away in the
# citations list filtered to that paper. A hub with 13,333 citing edges never finished rendering.
INLINE_EDGE_LIMIT = 20


class KnownLabelAutocompleteSelect(AutocompleteSelect):
    """An autocomplete whose selected option is labelled from the row's own joined object
    (`known_labels`), not by a query per row (the stock widget looks the value up again)."""

    known_labels = None

    def optgroups(self, name, value, attr=None):
        selected = [str(v) for v in value if str(v) not in self.choices.field.empty_values]
        known = self.known_labels or {}
        if not selected or not all(pk in known for pk in selected):
            return super().optgroups(name, value, attr)
        options = [] if self.is_required else [self.create_option(name, "", "", False, 0)]
        for pk in selected:
            options.append(self.create_option(name, pk, known[pk], True, len(options)))
        return [(None, options, 0)]


class KnownLabelsMixin:
    """Admin side: the foreign keys in `autocomplete_fields` use KnownLabelAutocompleteSelect.
    Form side (`label_known_choices`): each row names its own related objects."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name in self.get_autocomplete_fields(request):
            using = kwargs.get("using")
            kwargs["widget"] = KnownLabelAutocompleteSelect(db_field, self.admin_site, using=using)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def label_known_choices(form):
    """Give each KnownLabelAutocompleteSelect of a bound-to-a-row form its current object."""
    if form.instance.pk is None:
        return
    for name, field in form.fields.items():
        widget = getattr(field.widget, "widget", field.widget)
        if isinstance(widget, KnownLabelAutocompleteSelect):
            related = getattr(form.instance, name, None)
            if related is not None:
                widget.known_labels = {str(related.pk): field.label_from_instance(related)}


class SharedChoicesFormSet(BaseInlineFormSet):
    """Rows whose small select boxes (role, polarity) read their choices once per formset,
    not once per row."""

    shared_choice_fields = ()

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if not hasattr(self, "_shared_choices"):
            self._shared_choices = {
                name: list(form.fields[name].choices)
                for name in self.shared_choice_fields
                if name in form.fields
            }
        for name, choices in self._shared_choices.items():
            form.fields[name].choices = choices
        label_known_choices(form)


class LimitedEdgeFormSet(SharedChoicesFormSet):
    """A paper's edges in one direction, at most INLINE_EDGE_LIMIT of them, newest first. A
    posted form saves the rows it showed: they are found by the ids it carries, so an edge
    added meanwhile cannot shift another row into a different edge."""

    shared_choice_fields = ("role", "polarity")

    def get_unique_error_message(self, unique_check):
        repeated = self._repeated_paper(unique_check)
        named = f"“{repeated.title}”" if repeated is not None else "The same paper"
        return (
            f"{named} is listed twice in these edges; a pair of papers has one edge: "
            "keep one row and delete the other."
        )

    def _repeated_paper(self, unique_check):
        """The paper two rows of these edges name (the other end of each edge)."""
        other = next((name for name in unique_check if name != self.fk.name), None)
        seen = set()
        for form in self.forms:
            paper = getattr(form, "cleaned_data", {}).get(other)
            if paper is None or self._should_delete_form(form):
                continue
            if paper.pk in seen:
                return paper
            seen.add(paper.pk)
        return None

    def get_form_error(self):
        return "This row repeats another one (the same paper): delete one of them."

    def get_queryset(self):
        if not hasattr(self, "_queryset"):
            rows = super().get_queryset()
            if self.is_bound:
                pk_name = self.model._meta.pk.name
                posted = {
                    self.data.get(f"{self.add_prefix(i)}-{pk_name}")
                    for i in range(self.initial_form_count())
                }
                rows = rows.filter(pk__in=[pk for pk in posted if pk and pk.isdigit()])
            else:
                rows = rows[:INLINE_EDGE_LIMIT]
            self._queryset = rows
        return self._queryset

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        if self.fk.name == "cited_paper":  # the flags of the rows shown are counted by clean()
            form.instance._representative_peers = [row.pk for row in self.get_queryset()]
        return form

    def clean(self):
        """A cited paper's representative edges, as this save leaves them: at most
        REPRESENTATIVE_LIMIT (rows may be unticked and others ticked in one save)."""
        super().clean()
        if self.fk.name != "cited_paper" or self.instance.pk is None:
            return
        kept = [
            form
            for form in self.forms
            if getattr(form, "cleaned_data", None) and not self._should_delete_form(form)
        ]
        flagged = [form for form in kept if form.cleaned_data.get("is_representative")]
        newly = [
            form
            for form in flagged
            if not getattr(form.instance, "_loaded_representative", (False,))[0]
        ]
        if not newly:
            return
        shown = [row.pk for row in self.get_queryset()]
        outside = (
            self.model._default_manager.filter(cited_paper=self.instance, is_representative=True)
            .exclude(pk__in=shown)
            .count()
        )
        if outside + len(flagged) > REPRESENTATIVE_LIMIT:
            raise forms.ValidationError(
                representative_limit_message(outside + len(flagged) - len(newly)),
                code="representative_limit",
            )

    def total_count(self):
        """Every edge of this paper in this direction (one COUNT on the foreign key's index)."""
        if self.instance.pk is None:
            return 0
        return self.model._default_manager.filter(**{self.fk.name: self.instance}).count()

    def all_edges_url(self):
        changelist = reverse("admin:citations_citation_changelist")
        return f"{changelist}?{self.fk.name}__id__exact={self.instance.pk}"


class AuthorshipForm(forms.ModelForm):
    """An author typed by name, in place: an existing author of that name (any case) is
    reused, a new name makes a new author (no pop-up per author)."""

    name = forms.CharField(label="author", max_length=Author._meta.get_field("name").max_length)

    class Meta:
        model = Authorship
        fields = ["name", "position"]
        widgets = {"position": forms.NumberInput(attrs={"class": "vSmallField", "min": 0})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs.pop("maxlength", None)  # refused on save, never cut
        self.fields["name"].help_text = "Plain text: the name as the paper gives it."
        if self.instance.pk is not None:
            self.fields["name"].initial = self.instance.author.name

    def clean_name(self):
        return " ".join(self.cleaned_data["name"].split())

    def save(self, commit=True):
        name = self.cleaned_data["name"]
        author = Author.objects.filter(name__iexact=name).order_by("pk").first()
        self.instance.author = author or Author.objects.create(name=name)
        return super().save(commit)


class AuthorshipFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        seen = self.listed_elsewhere()
        listed = []
        for form in self.forms:
            if self.can_delete and self._should_delete_form(form):
                continue
            name = form.cleaned_data.get("name") if hasattr(form, "cleaned_data") else None
            if not name:
                continue
            if name.casefold() in seen:
                form.add_error("name", "This author is already listed on this paper.")
            seen.add(name.casefold())
            listed.append((form.cleaned_data.get("position") or 0, len(listed), name))
        # A new paper's cite key is assigned when the paper is saved, before these rows: from
        # the first author listed here (citations/cite_keys.py).
        self.instance.cite_key_author = min(listed)[2] if listed else None

    def listed_elsewhere(self):
        """The names (casefolded) of the paper's authors in rows this form does not carry: added
        since it was opened (by another editor, or live while a draft revision waited), so
        listing one again is refused, not a unique-constraint failure."""
        if self.instance.pk is None:
            return set()
        carried = [form.instance.pk for form in self.forms if form.instance.pk is not None]
        rows = Authorship.objects.filter(paper=self.instance).exclude(pk__in=carried)
        return {name.casefold() for name in rows.values_list("author__name", flat=True)}


class AuthorshipInline(admin.TabularInline):
    """The paper's authors in order, typed by name; up/down buttons (author_order.js) keep
    each row's position."""

    model = Authorship
    form = AuthorshipForm
    formset = AuthorshipFormSet
    extra = 2
    verbose_name_plural = "authors (in the paper's order)"

    class Media:
        js = ["citations/admin/author_order.js"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("author")


# An edge's status, as an editor deciding it on a paper's page reads it: it follows its papers.
EDGE_STATUS_LABELS = {
    Status.PUBLISHED: "Public when both papers are",
    Status.DRAFT: "Held back (draft)",
}


class CitationInlineForm(PublishableForm):
    """An edge edited on one of its papers' pages. That paper is the inline's hidden foreign
    key, so an error the model puts on it (`Citation.check_edge`) is shown on the other end,
    the field the editor chose. A new edge follows its papers unless the editor holds it back.

    Each row carries the values it was opened with (hidden initial values), so a save knows
    which fields this editor changed. A row nobody saved since is saved as usual. A row someone
    saved since is merged field by field: the fields she changed are written, the others keep
    what is stored now. A field both changed to different values (or a deletion of a row
    changed meanwhile) refuses that row alone: it is left as stored and `refusal` says why,
    with both values; the paper's other rows are saved."""

    ENDS = ("citing_paper", "cited_paper")
    BOOKKEEPING = ("edit_version", "change_reason", "id", "DELETE")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refusal = None
        if "status" in self.fields:
            self.fields["status"].choices = [
                (value, EDGE_STATUS_LABELS.get(value, label))
                for value, label in self.fields["status"].choices
            ]
            self.fields[
                "status"
            ].help_text = "An edge is public when both papers are public, unless it is held back."
            if self.instance.pk is None:
                self.fields["status"].initial = Status.PUBLISHED
        if "context" in self.fields:
            self.fields["context"].widget = forms.Textarea(attrs={"rows": 2, "cols": 32})
        for name in self.compared_fields():
            self.fields[name].show_hidden_initial = True

    def compared_fields(self):
        """The row's own fields and its other end: what the editor sees and may change."""
        return [
            name
            for name, field in self.fields.items()
            if name not in self.BOOKKEEPING and not isinstance(field, InlineForeignKeyField)
        ]

    def initial_version(self):
        return self.instance.version  # the row was read with its formset a moment ago

    def opened_value(self, name):
        """The field's value when the editor opened the page: its hidden initial value, or
        the stored one when the post carries none."""
        field, key = self.fields[name], self.add_initial_prefix(name)
        if key not in self.data:
            return self.get_initial_for_field(field, name)
        return self._widget_data_value(field.hidden_widget(), key)

    def same(self, name, first, second):
        field = self.fields[name]
        return comparable(field, first) == comparable(field, second)

    @cached_property
    def changed_data(self):
        """The fields this editor changed, from the values she opened the row with (not from
        the stored ones, which someone else may have changed since)."""
        if self.refusal is not None:
            return []
        compared = self.compared_fields() if self.instance.pk is not None else ()
        return [
            name
            for name, bound in self._bound_items()
            # The version a row was opened at is no change of hers.
            if name not in ("edit_version", "change_reason")
            and (
                not self.same(name, self.opened_value(name), bound.data)
                if name in compared
                else bound._has_changed()
            )
        ]

    def has_changed(self):
        return self.refusal is None and super().has_changed()

    def clean(self):
        cleaned_data = forms.ModelForm.clean(self)
        expected = cleaned_data.get("edit_version")
        deleting = bool(cleaned_data.get("DELETE"))
        if self.instance.pk is None or not (self.edited_fields() or deleting):
            return cleaned_data  # an untouched row saves nothing: a newer copy loses nothing
        if expected is None or self._stored_version(lock=True) == expected:
            return cleaned_data  # nobody saved this row since it was opened
        stored = type(self.instance)._base_manager.get(pk=self.instance.pk)
        compared = self.compared_fields()
        theirs = [n for n in compared if not self.same(n, self.opened_value(n), getattr(stored, n))]
        if deleting:
            if theirs:
                self.refuse(stored, theirs, "Not deleted", mine=self.opened_value)
            return cleaned_data
        edited = [name for name in self.edited_fields() if name in compared]
        conflicts = [
            name
            for name in edited
            if name in theirs and not self.same(name, cleaned_data.get(name), getattr(stored, name))
        ]
        if conflicts:
            self.refuse(stored, conflicts, "Not saved", mine=cleaned_data.get)
            return cleaned_data
        for name in compared:
            if name not in edited:
                cleaned_data[name] = getattr(stored, name)  # another editor's change stays
        return cleaned_data

    def refuse(self, stored, names, verdict, mine):
        """Leave the row as it is stored, saying why: each field, hers and the stored value."""
        fields = "; ".join(
            f"{self.fields[name].label}: yours “{shown(self.fields[name], mine(name))}”, "
            f"saved meanwhile “{shown(self.fields[name], getattr(stored, name))}”"
            for name in names
        )
        self.refusal = (
            f"{verdict}: the edge {stored}. Someone saved it while you were editing ({fields}); "
            "it is kept as they saved it. Open the paper again to see it and redo your change."
        )
        for name in self.compared_fields():
            self.cleaned_data[name] = getattr(stored, name)
        self.cleaned_data["DELETE"] = False
        self.__dict__.pop("changed_data", None)

    def add_error(self, field, error):
        if field is None and hasattr(error, "error_dict"):
            for hidden, chosen in (self.ENDS, self.ENDS[::-1]):
                if isinstance(self.fields.get(hidden), InlineForeignKeyField):
                    moved = error.error_dict.pop(hidden, [])
                    if moved:
                        error.error_dict.setdefault(chosen, []).extend(moved)
        super().add_error(field, error)


def comparable(field, data):
    """A field's value, posted or stored, in one form to compare: a foreign key by its key,
    anything else as the field cleans it."""
    if isinstance(field, forms.ModelChoiceField):
        key = field.prepare_value(data)
        return "" if key in (None, "") else str(key)
    try:
        data = field.to_python(data)
    except forms.ValidationError:
        return data
    return "" if data is None else data


def shown(field, data):
    """A value as the editor reads it: a related row by its name, a choice by its label."""
    if isinstance(field, forms.ModelChoiceField):
        key = comparable(field, data)
        if not key:
            return "none"
        return str(data if hasattr(data, "_meta") else field.queryset.filter(pk=key).first())
    if isinstance(field, forms.BooleanField):
        return "yes" if comparable(field, data) else "no"
    if isinstance(field, forms.ChoiceField):
        return str(dict(field.choices).get(data, data or "none"))
    return str(data) if data not in (None, "") else "empty"


class CitationInline(KnownLabelsMixin, LengthCheckedOnSaveMixin, admin.TabularInline):
    """A paper's edges in one direction: the paper is the foreign key `fk_name`, and the editor
    picks the paper at the `other_end` (with autocomplete). The status comes first, so it is
    seen at 1366 px; a big hub shows its newest INLINE_EDGE_LIMIT edges and links to the rest."""

    model = Citation
    form = CitationInlineForm
    formset = LimitedEdgeFormSet
    template = "admin/citations/edit_inline/edges.html"
    extra = 0
    show_change_link = True
    other_end = None

    class Media:
        css = {"all": ["css/admin-edges.css"]}  # the rows fit the admin's width

    def get_fields(self, request, obj=None):
        fields = [
            "status",
            self.other_end,
            "role",
            "polarity",
            "publish_unclassified",
            "is_representative",
            "representative_reason",
            "context",
        ]
        return [*fields, "edit_version"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name in ("role", "polarity") and isinstance(
            getattr(formfield, "widget", None), RelatedFieldWidgetWrapper
        ):
            # A plain select per row: the add/change/view links of a fixed vocabulary cost
            # four URL reversals per row and were most of a big paper's rendering time.
            formfield.widget = formfield.widget.widget
        return formfield

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        formset.form.publishing_user = request.user  # classes made for this request
        return formset

    def get_autocomplete_fields(self, request):
        return [self.other_end]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related(self.other_end).order_by("-pk")


class CitationsReceivedInline(CitationInline):
    fk_name, other_end = "cited_paper", "citing_paper"
    verbose_name, verbose_name_plural = "citing paper", "cited by (citations received)"


class CitationsMadeInline(CitationInline):
    fk_name, other_end = "citing_paper", "cited_paper"
    verbose_name, verbose_name_plural = "cited paper", "cites (citations made)"


def held_back_edges(paper):
    """The edges of `paper` (either direction) an editor held back (draft)."""
    return Citation.objects.filter(
        Q(citing_paper=paper) | Q(cited_paper=paper), ~Q(status=Status.PUBLISHED)
    )


class EitherEndFilter(admin.SimpleListFilter):
    """`?paper=<pk>`: the edges citing or cited by one paper (links from a paper's page; too
    many papers to list as choices, so only the chosen one is shown)."""

    title, parameter_name = "paper (either end)", "paper"

    def lookups(self, request, model_admin):
        value = self.value()
        paper = Paper.objects.filter(pk=value).first() if value and value.isdigit() else None
        return [(str(paper.pk), truncated(paper.title, 40))] if paper else []

    def queryset(self, request, queryset):
        value = self.value()
        if value and value.isdigit():
            return queryset.filter(Q(citing_paper=value) | Q(cited_paper=value))
        return queryset


class ClassifiedFilter(admin.SimpleListFilter):
    title, parameter_name = "classification", "classified"

    def lookups(self, request, model_admin):
        return [("no", "Missing a role or polarity"), ("yes", "Role and polarity set")]

    def queryset(self, request, queryset):
        missing = Q(role__isnull=True) | Q(polarity__isnull=True)
        if self.value() == "no":
            return queryset.filter(missing)
        if self.value() == "yes":
            return queryset.exclude(missing)
        return queryset


class MissingDataFilter(admin.SimpleListFilter):
    title, parameter_name = "missing", "missing"

    def lookups(self, request, model_admin):
        return [("identifier", "No arXiv id, DOI or URL"), ("authors", "No authors")]

    def queryset(self, request, queryset):
        if self.value() == "identifier":
            return queryset.filter(arxiv_id="", doi="", url="")
        if self.value() == "authors":
            return queryset.without_authors()
        return queryset


def truncated(text, length=60):
    return Truncator(text).chars(length)


class PaperForm(PublishableForm):
    def clean_slug(self):
        slug = self.cleaned_data.get("slug")
        taken = Paper(pk=self.instance.pk, slug=slug, title=self.instance.title)
        if slug and (refusal := alias_refusal(taken)):
            raise forms.ValidationError(refusal, code="alias_taken")
        return slug


@admin.register(Paper)
class PaperAdmin(SubstringSearchMixin, PublishableAdmin):
    form = PaperForm
    # The publishing change form, with a link to the classification queue among the tools.
    change_form_template = "admin/citations/paper/change_form.html"
    list_display = [
        "short_title",
        "status",
        "publication_date",
        "byline",
        "is_canonical_reference",
        "in_research_index",
    ]
    list_filter = [
        "status",
        "is_canonical_reference",
        "in_research_index",
        MissingDataFilter,
        "layers",
        ("tags", TagsInUseFilter),
    ]
    search_fields = ["title", "byline", "institution", "arxiv_id", "doi", "summary"]
    paginator = LargeTablePaginator
    prepopulated_fields = {"slug": ["title"]}
    filter_horizontal = ["layers"]
    date_hierarchy = "publication_date"
    inlines = [AuthorshipInline, CitationsMadeInline, CitationsReceivedInline]
    fieldsets = [
        (None, {"fields": ["title", "slug", "byline", "institution", "publication_date"]}),
        ("Identifiers and links", {"fields": ["arxiv_id", "doi", "url", "code_url", "cite_key"]}),
        ("Publication", {"fields": ["publication_type", "venue", "arxiv_category"]}),
        ("Editorial", {"fields": ["summary", "abstract", "tags", "layers"]}),
        (
            "Publishing",
            {
                "fields": [
                    "status",
                    "published_at",
                    "is_canonical_reference",
                    "in_research_index",
                    "created_at",
                    "updated_at",
                    "version",
                ]
            },
        ),
    ]

    @admin.display(description="title", ordering="title")
    def short_title(self, paper):
        return truncated(paper.title, 90)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        paper = form.instance
        if paper.is_published:
            self.warn_of_held_back_edges(request, paper)

    def warn_of_held_back_edges(self, request, paper):
        held_back = held_back_edges(paper).count()
        if not held_back:
            return
        changelist = reverse("admin:citations_citation_changelist")
        self.message_user(
            request,
            format_html(
                "This paper is published, but {} of its citation edges {} held back (draft), "
                'so readers do not see {}: <a href="{}?status__exact=draft&amp;paper={}">review '
                "them</a>.",
                held_back,
                "is" if held_back == 1 else "are",
                "it" if held_back == 1 else "them",
                changelist,
                paper.pk,
            ),
            messages.WARNING,
        )


@admin.register(Citation)
class CitationAdmin(ClassificationQueueMixin, PublishableAdmin):
    list_display = ["citing", "cited", "role", "polarity", "status", "source", "is_representative"]
    list_display_links = ["citing"]
    show_full_result_count = False  # a second COUNT over a million edges on filtered lists
    paginator = LargeTablePaginator
    list_filter = [
        "status",
        ClassifiedFilter,
        "role",
        "polarity",
        "source",
        "is_representative",
        EitherEndFilter,
    ]
    search_fields = ["citing_paper__title", "cited_paper__title", "context"]
    autocomplete_fields = ["citing_paper", "cited_paper"]
    list_select_related = ["citing_paper", "cited_paper", "role", "polarity"]
    # Recorded by Citation.record_classification() whenever the role or polarity changes.
    readonly_fields = [*PublishableAdmin.readonly_fields, "classified_at", "classified_by"]
    inlines = [CorrectionSuggestionInline]

    def get_search_results(self, request, queryset, search_term):
        """The search fields' match (each word in either paper's title or the citing
        sentence), written as the API's search writes it (`Citation.objects.search`), so that
        the papers are found first and their edges by index instead of joining a million edges
        to both papers before matching (15 s at 1M edges)."""
        return queryset.search(search_term), False

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is CorrectionSuggestionInline.model:
            apply_decisions(request, formset)

    @admin.display(description="citing paper", ordering="citing_paper__title")
    def citing(self, edge):
        return truncated(edge.citing_paper.title)

    @admin.display(description="cited paper", ordering="cited_paper__title")
    def cited(self, edge):
        return truncated(edge.cited_paper.title)


class VocabularyAdmin(LiveRowsAdminMixin, HistoryAdminMixin, SimpleHistoryAdmin):
    list_display = ["name", "slug", "order"]
    list_editable = ["order"]
    search_fields = ["name", "description"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(CitationRole)
class CitationRoleAdmin(VocabularyAdmin):
    pass


@admin.register(CitationPolarity)
class CitationPolarityAdmin(VocabularyAdmin):
    pass
