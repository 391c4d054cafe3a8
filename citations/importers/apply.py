"""Applying a plan: every change in one transaction, so a failure writes nothing."""

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.text import slugify

from citations.identity import PaperIdentifier, PaperSlugAlias, PendingCitation
from citations.importers.records import BadImportFile
from citations.models import (
    Author,
    Authorship,
    Citation,
    CitationRole,
    CitationSource,
    DatePrecision,
    Paper,
    recount_citations,
)
from pagecache.caching import bump_generation
from publishing.models import Status
from publishing.permissions import may_change_live

# What an import run reports when the database refuses a write: a sentence, never its error.
DATABASE_REFUSED = (
    "the database refused to save it (a paper, identifier or edge saved meanwhile clashes "
    "with it, or a value is too long); nothing was imported: check the record and try again"
)


def apply_plan(plan):
    """Write what the plan says; returns its counts. Re-planning afterwards finds nothing to do.
    A write the database refuses rolls everything back and is reported in words."""
    where = {}
    try:
        with transaction.atomic():
            return _apply_plan(plan, where)
    except DatabaseError:
        raise BadImportFile(DATABASE_REFUSED, where.get("record", "")) from None


def _apply_plan(plan, where):
    from citations.merging import merge_papers

    status = Status.PUBLISHED if plan.publish else Status.DRAFT
    touched = []
    for step in plan.papers:
        where["record"] = step.record.where
        try:
            apply_paper_step(step, status, merge_papers)
        except ValidationError as error:
            # The model's own rules (identifiers, lengths) refuse what the plan let through.
            raise BadImportFile("; ".join(error.messages), step.record.where) from None
        if step.action != "skip":
            touched.append(step.paper)
    where.pop("record", None)
    roles = {role.slug: role for role in CitationRole.objects.all()}
    # New edges in bulk (the plan checked that none exists): imports bring thousands at once.
    # Like the corpus generator's, they get no history rows; the page cache is told below.
    Citation.objects.bulk_create(
        [
            Citation(
                citing_paper=edge.citing.paper,
                cited_paper=edge.cited.paper,
                **edge_fields(edge.reference, edge.source, roles, status),
                published_at=timezone.now() if status == Status.PUBLISHED else None,
            )
            for edge in plan.edges
            if edge.action == "create"
        ],
        batch_size=1000,
        ignore_conflicts=True,  # an edge another import or an editor added meanwhile stays
    )
    if any(edge.action == "create" for edge in plan.edges):
        transaction.on_commit(bump_generation)
    for edge in plan.edges:
        if edge.action == "create":
            continue
        elif edge.action == "update":
            Citation.objects.filter(
                citing_paper=edge.citing.paper, cited_paper=edge.cited.paper, role=None
            ).filter(source__in=CitationSource.imported()).update(
                **{
                    k: v
                    for k, v in edge_fields(edge.reference, edge.source, roles, status).items()
                    if k != "status"
                }
            )
        elif edge.action == "pending":
            add_pending(edge.owner.paper, edge.reference, edge.source)
    # bulk_create() and update() skip the signals that keep the stored counts.
    recount_citations(
        {edge.cited.paper.pk for edge in plan.edges if edge.action in ("create", "update")}
    )
    resolve_pending(touched, roles, status)
    return plan.counts()


IMPORT_PUBLISH_REFUSED = (
    "Only editors with the publish permission can import published papers; import them as "
    "drafts (leave “publish” off) and an editor publishes them."
)
IMPORT_LIVE_REFUSED = (
    "This import changes or merges published papers or edges ({names}); only editors with "
    "the publish permission can apply it. Ask an editor to confirm it."
)
IMPORT_LARGE_REFUSED = (
    "A large import is applied on the worker without a dry run of its effects on published "
    "papers; only editors with the publish permission can apply it. Ask an editor to confirm it."
)


def may_import_live(user):
    """Whether `user` may apply any import: publishing papers and edges, changing live ones."""
    return may_change_live(user, Paper) and may_change_live(user, Citation)


def plan_refusal(user, plan):
    """Why `user` may not apply `plan` (a sentence; "" when they may): without the publish
    permission an import neither publishes nor changes, merges or reclassifies live rows
    (publishing/permissions.py, the check of every door)."""
    if may_import_live(user):
        return ""
    if getattr(plan, "publish", False):
        return IMPORT_PUBLISH_REFUSED
    if not hasattr(plan, "papers"):  # the bulk path's report: no steps to judge
        return IMPORT_LARGE_REFUSED
    live = []
    for step in plan.papers:
        if step.action not in ("update", "merge"):
            continue
        touched = [step.paper, *step.merge_from] if step.paper is not None else step.merge_from
        changes = step.changes or step.merge_from or step.new_identifiers
        live += [paper.slug for paper in touched if changes and paper.is_published]
    for edge in plan.edges:
        if edge.action == "update" and Citation.objects.published().filter(
            citing_paper=edge.citing.paper, cited_paper=edge.cited.paper
        ):
            live.append(f"{edge.citing.paper.slug} → {edge.cited.paper.slug}")
    if live:
        return IMPORT_LIVE_REFUSED.format(names=", ".join(sorted(set(live))[:5]))
    return ""


def run_refusal(user, run):
    """Why `user` may not confirm the import run `run` ("" when they may): its plan is made
    again now (what it would change today) and judged as `plan_refusal` does."""
    from citations.importers import make_plan, parse

    if may_import_live(user):
        return ""
    if run.publish:
        return IMPORT_PUBLISH_REFUSED
    if run.is_bulk or run.in_background:
        return IMPORT_LARGE_REFUSED
    try:
        plan = make_plan(parse(run.text, run.format or None), publish=False)
    except BadImportFile:
        return ""  # confirming reports the bad file itself
    return plan_refusal(user, plan)


def apply_paper_step(step, status, merge_papers):
    if step.action == "create":
        step.paper = create_paper(step.record, status)
    elif step.action in ("update", "merge"):
        for other in step.merge_from:
            merge_papers(step.paper, other, reason=f"import: {step.record.where}")
        update_paper(step.paper, step.changes)
    if step.action != "skip":
        for scheme, value in step.new_identifiers:
            add_identifier(step.paper, scheme, value)


def edge_source(source, role=None):
    """An edge's provenance for an import format: a citation index is named (Semantic Scholar,
    OpenAlex); a file (BibTeX, CSL, arXiv ids) classifies nothing, so an edge it gives a role
    is an editor's and one without a role has no classifier."""
    if source in CitationSource.imported():
        return source
    return CitationSource.EDITOR if role else CitationSource.NONE


def edge_fields(reference, source, roles, status):
    """An imported edge's fields, with its provenance: bulk_create() and update() skip the
    model's save(), which records it for every other door."""
    role = roles.get(reference.role)
    return {
        "role": role,
        "context": "\n\n".join(reference.contexts),
        "is_influential": reference.is_influential,
        "source": edge_source(source, role),
        "classified_at": timezone.now() if role else None,
        "classified_by": None,
        "status": status,
    }


def unique_slug(title):
    base = slugify(title)[:190].strip("-") or "paper"
    slug, n = base, 1
    while Paper.objects.filter(slug=slug).exists() or PaperSlugAlias.objects.filter(slug=slug):
        n += 1
        slug = f"{base}-{n}"
    return slug


def create_paper(record, status):
    paper, identifiers = new_paper(record, status, unique_slug(record.title))
    paper.full_clean(validate_unique=False, validate_constraints=False)
    # Its cite key is assigned on this first save, from the first author set just after.
    paper.cite_key_author = record.authors[0][:200] if record.authors else None
    paper.save()
    set_authors(paper, record.authors)
    for scheme, value in identifiers.items():
        add_identifier(paper, scheme, value)
    return paper


def new_paper(record, status, slug):
    """An unsaved paper for a record, and the identifiers it holds besides its own fields."""
    identifiers = dict(record.identifiers)
    paper = Paper(
        title=record.title[:500],
        slug=slug,
        byline=(record.authors[0] if record.authors else "")[:200],
        institution=record.institution[:200],
        publication_date=record.publication_date,
        date_precision=record.date_precision or DatePrecision.DAY,
        arxiv_id=identifiers.pop("arxiv", ""),
        doi=identifiers.pop("doi", ""),
        url=record.url[:500],
        venue=record.venue[:300],
        publication_type=record.publication_type,
        arxiv_category=record.arxiv_category[:40],
        arxiv_versions=list(record.arxiv_versions),
        abstract=record.abstract,
        in_research_index=record.in_research_index,
        status=status,
    )
    return paper, identifiers


def update_paper(paper, changes):
    changes = dict(changes)
    authors = changes.pop("authors", None)
    for field, value in changes.items():
        setattr(paper, field, value)
    if changes:
        others = [f.name for f in paper._meta.concrete_fields if f.name not in changes]
        paper.clean_fields(exclude=others)
        paper.save()
    if authors:
        set_authors(paper, authors)


def set_authors(paper, names):
    """The paper's authors, in this order (a fuller list replacing a shorter one)."""
    paper.authorships.all().delete()
    seen = set()
    for position, name in enumerate(names):
        author, _ = Author.objects.get_or_create(name=name[:200])
        if author.pk not in seen:
            seen.add(author.pk)
            Authorship.objects.create(paper=paper, author=author, position=position)
    paper.forget_authorships()


def add_identifier(paper, scheme, value):
    """Give the paper its own field when free, else an extra identifier; one owner each."""
    if scheme in ("arxiv", "doi") and not getattr(paper, field_of(scheme)):
        setattr(paper, field_of(scheme), value)
        paper.save(update_fields=[field_of(scheme), "version", "updated_at"])
        return
    owner = PaperIdentifier.objects.filter(scheme=scheme, value=value).first()
    if owner and owner.paper_id != paper.pk:
        raise BadImportFile(f"{scheme} {value} already belongs to another paper")
    PaperIdentifier.objects.get_or_create(scheme=scheme, value=value, defaults={"paper": paper})


def field_of(scheme):
    return {"arxiv": "arxiv_id", "doi": "doi"}[scheme]


def add_pending(paper, reference, source):
    for scheme, value in reference.identifiers.items():
        PendingCitation.objects.get_or_create(
            paper=paper,
            direction=reference.direction,
            scheme=scheme,
            value=value,
            defaults={
                "role_slug": reference.role,
                "context": "\n\n".join(reference.contexts),
                "is_influential": reference.is_influential,
                "source": source,
            },
        )
        return  # the strongest identifier is enough to find it later


def resolve_pending(papers, roles, status):
    """Edges that waited for one of these papers become citations now that it is here."""
    from citations.identity import identifiers_of

    for paper in papers:
        for scheme, value in identifiers_of(paper):
            for pending in PendingCitation.objects.filter(scheme=scheme, value=value):
                here = pending.paper
                citing, cited = (here, paper) if pending.direction == "cites" else (paper, here)
                if citing != cited:
                    Citation.objects.get_or_create(
                        citing_paper=citing,
                        cited_paper=cited,
                        defaults={
                            "role": roles.get(pending.role_slug),
                            "context": pending.context,
                            "is_influential": pending.is_influential,
                            "source": edge_source(pending.source, pending.role_slug),
                            "status": status,
                        },
                    )
                pending.delete()
