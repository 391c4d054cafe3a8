"""One identity per paper: the identifiers and old slugs a paper answers to besides its own
fields, citation edges waiting for their other end, and finding a paper by any of them.

`Paper.arxiv_id` and `Paper.doi` stay the paper's own identifiers; `PaperIdentifier` holds the
rest (OpenAlex and Semantic Scholar ids, a second DOI, the identifiers of a paper merged into
it), so a lookup by any identifier a paper ever had finds it, and no two papers share one."""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from citations.identifiers import ARXIV_DOI_PREFIX, arxiv_id_from_doi


class Scheme(models.TextChoices):
    ARXIV = "arxiv", "arXiv id"
    DOI = "doi", "DOI"
    OPENALEX = "openalex", "OpenAlex work id"
    S2 = "s2", "Semantic Scholar paper id"


class PaperIdentifier(models.Model):
    """An identifier a paper answers to besides its own `arxiv_id` and `doi` fields."""

    paper = models.ForeignKey(
        "citations.Paper", on_delete=models.CASCADE, related_name="other_identifiers"
    )
    scheme = models.CharField(max_length=10, choices=Scheme.choices)
    value = models.CharField(max_length=200)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scheme", "value"], name="unique_paper_identifier")
        ]

    def __str__(self):
        return f"{self.scheme}:{self.value}"


class PaperSlugAlias(models.Model):
    """An old slug (renamed or merged away) that answers with a 301 to the paper's address."""

    paper = models.ForeignKey(
        "citations.Paper", on_delete=models.CASCADE, related_name="slug_aliases"
    )
    slug = models.SlugField(max_length=200, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "paper slug aliases"

    def __str__(self):
        return f"{self.slug} → {self.paper_id}"


class PendingCitation(models.Model):
    """An imported edge whose other paper is not here yet; it becomes a Citation when a paper
    with that identifier arrives."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    paper = models.ForeignKey(
        "citations.Paper", on_delete=models.CASCADE, related_name="pending_citations"
    )
    # "cites": `paper` cites the missing one; "cited_by": the missing one cites `paper`.
    direction = models.CharField(max_length=8, default="cites")
    scheme = models.CharField(max_length=10, choices=Scheme.choices)
    value = models.CharField(max_length=200)
    role_slug = models.SlugField(max_length=60, blank=True)
    context = models.TextField(blank=True)
    is_influential = models.BooleanField(null=True)
    source = models.CharField(max_length=20)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "direction", "scheme", "value"], name="unique_pending_citation"
            )
        ]
        indexes = [models.Index(fields=["scheme", "value"], name="pending_citation_target")]

    def __str__(self):
        return f"{self.paper_id} {self.direction} {self.scheme}:{self.value}"


def identifier_q(identifiers):
    """A Q matching papers that answer to any of {scheme: normalised value}: their own
    `arxiv_id` or `doi` (stored normalised, DOIs in lower case: exact matches on the unique
    indexes) or the ids of the papers holding it as another identifier, read first in one
    indexed query. No join: an OR across a join to PaperIdentifier scanned every paper."""
    q = Q()
    others = Q()
    for scheme, value in identifiers.items():
        if not value:
            continue
        if scheme == Scheme.ARXIV:
            q |= Q(arxiv_id=value) | Q(doi=f"{ARXIV_DOI_PREFIX}{value}".lower())
        elif scheme == Scheme.DOI:
            q |= Q(doi=value.lower())
            if arxiv_id := arxiv_id_from_doi(value):
                q |= Q(arxiv_id=arxiv_id)
        others |= Q(scheme=scheme, value=value)
    if others:
        holders = PaperIdentifier.objects.filter(others).values_list("paper_id", flat=True)
        if holder_ids := list(holders):
            q |= Q(pk__in=holder_ids)
    return q


def papers_with_identifiers(identifiers, queryset=None):
    """The papers answering to any of the identifiers (normally at most one)."""
    from citations.models import Paper

    q = identifier_q(identifiers)
    if not q:
        return Paper.objects.none()
    return (queryset if queryset is not None else Paper.objects.all()).filter(q)


def identifiers_of(paper):
    """Every identifier a paper answers to, as a set of (scheme, value); reads a prefetched
    `other_identifiers` when there is one."""
    found = {(other.scheme, other.value) for other in paper.other_identifiers.all()}
    if paper.arxiv_id:
        found.add((Scheme.ARXIV.value, paper.arxiv_id))
    if paper.doi:
        doi = paper.doi.lower()
        arxiv_id = arxiv_id_from_doi(doi)
        found.add((Scheme.ARXIV.value, arxiv_id) if arxiv_id else (Scheme.DOI.value, doi))
    return found


class PaperMerge(models.Model):
    """A merge of one paper into another, with what it takes to undo it."""

    shown_to_readers = False  # no public page shows it (publishing.signals.shown_to_readers)

    kept = models.ForeignKey("citations.Paper", on_delete=models.CASCADE, related_name="merges")
    merged_slug = models.SlugField(max_length=200)
    merged_title = models.CharField(max_length=500)
    reason = models.CharField(max_length=200, blank=True)
    merged_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    merged_at = models.DateTimeField(auto_now_add=True)
    # The merged paper's row, links and edges as they were, and what moved (see merging.py).
    snapshot = models.JSONField()
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-merged_at", "-id"]

    def __str__(self):
        return f"{self.merged_slug} merged into {self.kept_id}"


ALIAS_TAKEN = (
    "“{slug}” is an old address of “{title}” and answers with a redirect to it; choose "
    "another slug (taking it would turn that live redirect into a page not found)."
)


class OldSlugs:
    """The old-slug rule of one kind of row with a public address (papers here, authors in
    citations/models/authors.py): a slug another row left while readers could reach it
    answers with a 301 (`alias_model`, whose `owner` field names the row), so no row may take
    it; a row taking back its own old slug drops that alias.

    `taken(slug, owner)` words the refusal; `was_public(instance, old slug)` says whether
    readers could reach the row at the slug it is leaving. `skip_raw`: fixtures loaded raw
    (loaddata) bypass the rule."""

    def __init__(self, alias_model, owner, taken, was_public, skip_raw=True):
        self.alias_model, self.owner = alias_model, owner
        self.taken, self.was_public, self.skip_raw = taken, was_public, skip_raw

    def refusal(self, instance):
        """Why `instance` may not have its slug (another row's old slug), or ""."""
        if not instance.slug:
            return ""
        alias = (
            self.alias_model.objects.filter(slug=instance.slug)
            .exclude(**{f"{self.owner}_id": instance.pk})
            .select_related(self.owner)
            .first()
        )
        return self.taken(instance.slug, getattr(alias, self.owner)) if alias else ""

    def remember_old_slug(self, sender, instance, raw=False, **kwargs):
        """pre_save: refuse another row's old slug; note the slug a row is leaving and whether
        readers could reach it, so post_save keeps it as an alias."""
        if raw and self.skip_raw:
            return
        if refusal := self.refusal(instance):
            raise ValidationError({"slug": refusal})
        instance._old_slug, instance._old_slug_public = None, False
        if instance.pk and not instance._state.adding:
            old = type(instance)._base_manager.filter(pk=instance.pk)
            old = old.values_list("slug", flat=True).first()
            if old and old != instance.slug:
                instance._old_slug = old
                instance._old_slug_public = self.was_public(instance, old)

    def keep_old_slug(self, sender, instance, raw=False, **kwargs):
        """post_save: an old slug readers could reach answers 301 to the new address; a slug
        the row owns again is no longer its alias."""
        if raw and self.skip_raw:
            return
        self.alias_model.objects.filter(slug=instance.slug, **{self.owner: instance}).delete()
        old = getattr(instance, "_old_slug", None)
        if old and getattr(instance, "_old_slug_public", False):
            self.alias_model.objects.update_or_create(slug=old, defaults={self.owner: instance})
        instance._old_slug, instance._old_slug_public = None, False


def slug_was_public(paper, slug):
    """Whether readers could reach `paper` at `slug`: it is published under it now, or one of
    its history records is (a draft's working titles stay private)."""
    from publishing.models import Status

    if paper.slug == slug and paper.stored_status() == Status.PUBLISHED:
        return True
    records = type(paper).history.filter(id=paper.pk, slug=slug, status=Status.PUBLISHED)
    return records.exists()


PAPER_SLUGS = OldSlugs(
    PaperSlugAlias,
    "paper",
    taken=lambda slug, paper: ALIAS_TAKEN.format(slug=slug, title=paper.title),
    was_public=slug_was_public,
    # Paper fixtures have always gone through the rule, raw or not.
    skip_raw=False,
)
alias_refusal = PAPER_SLUGS.refusal
remember_old_slug = PAPER_SLUGS.remember_old_slug
keep_old_slug_as_alias = PAPER_SLUGS.keep_old_slug


def paper_for_old_slug(slug, user=None):
    """The paper an old slug now names (if `user` may see it), or None."""
    from citations.models import Paper

    papers = Paper.objects.visible_to(user) if user is not None else Paper.objects.all()
    return papers.filter(slug_aliases__slug=slug).first()


def old_slug_redirect(request, slug):
    """A 301 to the same address with the current slug of the paper that `slug` used to name
    (if the requester may see it), else None."""
    from django.http import HttpResponsePermanentRedirect
    from django.urls import resolve, reverse

    paper = paper_for_old_slug(slug, request.user)
    if paper is None:
        return None
    match = resolve(request.path_info)
    url = reverse(match.view_name, args=match.args, kwargs={**match.kwargs, "slug": paper.slug})
    query = request.META.get("QUERY_STRING")
    return HttpResponsePermanentRedirect(f"{url}?{query}" if query else url)


def redirect_old_slugs(view):
    """Wrap a view taking `slug`: where it finds no paper (a 404) but one used to have that
    slug, answer 301 to the same view for the paper's current slug."""
    import functools

    from django.http import Http404

    @functools.wraps(view)
    def wrapper(request, *args, slug, **kwargs):
        try:
            response = view(request, *args, slug=slug, **kwargs)
        except Http404:
            redirect = old_slug_redirect(request, slug)
            if redirect is None:
                raise
            return redirect
        if response.status_code == 404:
            return old_slug_redirect(request, slug) or response
        return response

    return wrapper
