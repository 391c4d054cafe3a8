"""Merging duplicate papers into one, and undoing a merge.

The kept paper keeps its cite key and takes every edge, note link, tag, layer and author of
the other, its identifiers (as the kept paper's own when free, else as extra identifiers) and
its slug (as an alias answering 301); empty fields are filled from it. A `PaperMerge` row
keeps what the other paper was and what moved, so `undo_merge` can put both papers back as
they were."""

from django.core import serializers
from django.db import transaction
from django.utils import timezone

from citations.cite_keys import assign_cite_keys
from citations.identity import (
    PaperIdentifier,
    PaperMerge,
    PaperSlugAlias,
    PendingCitation,
    slug_was_public,
)
from citations.models import Authorship, Citation, recount_paper_facets
from citations.stats.counts import recount_citations
from publishing.history import fit_change_reason

FILLED_FIELDS = ("byline", "institution", "publication_date", "url", "abstract", "summary")


def _dump(objects):
    return serializers.serialize("json", objects)


@transaction.atomic
def merge_papers(keep, other, reason="", user=None):
    """Merge `other` into `keep`; returns the PaperMerge that can undo it."""
    if keep.pk == other.pk:
        raise ValueError("A paper cannot be merged into itself.")
    added = {key: [] for key in ("tags", "layers", "notes", "authorships", "identifiers")}
    added["fields"] = {}
    snapshot = {
        "paper": _dump([other]),
        "authors": list(other.authorships.values_list("author_id", "position")),
        "tags": list(other.tags.names()),
        "layers": list(other.layers.values_list("pk", flat=True)),
        "notes": list(other.notes.values_list("pk", flat=True)),
        "moved_edges": [],
        "deleted_edges": "[]",
        "identifiers": list(other.other_identifiers.values_list("pk", flat=True)),
        "aliases": list(other.slug_aliases.values_list("pk", flat=True)),
        "pending": list(other.pending_citations.values_list("pk", flat=True)),
        "added": added,
    }
    deleted = []
    for side, other_side in (("citing_paper", "cited_paper"), ("cited_paper", "citing_paper")):
        for edge in Citation.objects.filter(**{side: other}):
            far_end = getattr(edge, f"{other_side}_id")
            clash = (
                far_end == keep.pk
                or Citation.objects.filter(**{side: keep, other_side: far_end}).exists()
            )
            if clash:
                deleted.append(edge)
            else:
                snapshot["moved_edges"].append([edge.pk, side])
    snapshot["deleted_edges"] = _dump(deleted)
    for edge in deleted:
        edge.delete()
    for edge_pk, side in snapshot["moved_edges"]:
        edge = Citation.objects.get(pk=edge_pk)
        setattr(edge, side, keep)
        edge.save()

    for name in snapshot["tags"]:
        if name not in keep.tags.names():
            keep.tags.add(name)
            added["tags"].append(name)
    added["layers"] = [pk for pk in snapshot["layers"] if not keep.layers.filter(pk=pk).exists()]
    keep.layers.add(*added["layers"])
    added["notes"] = [pk for pk in snapshot["notes"] if not keep.notes.filter(pk=pk).exists()]
    keep.notes.add(*added["notes"])
    position = keep.authorships.count()
    for author_id, _ in snapshot["authors"]:
        if not keep.authorships.filter(author_id=author_id).exists():
            authorship = Authorship.objects.create(
                paper=keep, author_id=author_id, position=position
            )
            added["authorships"].append(authorship.pk)
            position += 1
    keep.forget_authorships()

    other.other_identifiers.update(paper=keep)
    other.slug_aliases.update(paper=keep)
    for pending in other.pending_citations.all():
        if keep.pending_citations.filter(
            direction=pending.direction, scheme=pending.scheme, value=pending.value
        ).exists():
            pending.delete()
        else:
            pending.paper = keep
            pending.save()
    identifiers = [("arxiv", "arxiv_id", other.arxiv_id), ("doi", "doi", other.doi)]
    other_slug = other.slug
    other_was_public = slug_was_public(other, other_slug)
    for field in FILLED_FIELDS:
        if not getattr(keep, field) and getattr(other, field):
            added["fields"][field] = getattr(keep, field)
            setattr(keep, field, getattr(other, field))
    other.delete()  # frees its identifiers and slug (its deletion is in the paper's history)

    for scheme, field, value in identifiers:
        if value and not getattr(keep, field):
            setattr(keep, field, value)
            added["fields"][field] = ""
        elif value and getattr(keep, field).lower() != value.lower():
            identifier = PaperIdentifier.objects.create(
                paper=keep, scheme=scheme, value=value.lower() if scheme == "doi" else value
            )
            added["identifiers"].append(identifier.pk)
    if other_was_public:  # a draft's slug was never an address readers knew
        alias = PaperSlugAlias.objects.create(paper=keep, slug=other_slug)
        added["alias"] = alias.pk
    keep._change_reason = fit_change_reason(
        f"Merged {other_slug} into this paper" + (f": {reason}" if reason else "")
    )
    keep.save()
    return PaperMerge.objects.create(
        kept=keep,
        merged_slug=other_slug,
        merged_title=other.title,
        reason=reason[:200],
        merged_by=user,
        snapshot=snapshot,
    )


@transaction.atomic
def undo_merge(merge):
    """Put the merged paper back with its own edges, links, identifiers and slug."""
    from citations.models import Paper

    if merge.undone_at:
        raise ValueError("This merge was already undone.")
    keep = Paper.objects.get(pk=merge.kept_id)
    snapshot, added = merge.snapshot, merge.snapshot["added"]
    PaperSlugAlias.objects.filter(pk=added.get("alias")).delete()
    PaperIdentifier.objects.filter(pk__in=added["identifiers"]).delete()
    for field, value in added["fields"].items():
        setattr(keep, field, value)
    keep._change_reason = fit_change_reason(f"Undid the merge of {merge.merged_slug}")
    keep.save()

    for restored in serializers.deserialize("json", snapshot["paper"]):
        other = restored.object
        # Its cite key comes back with it, unless a paper created since took it.
        if Paper._base_manager.filter(cite_key=other.cite_key).exists():
            other.cite_key = ""
        restored.save()
    for author_id, position in snapshot["authors"]:
        Authorship.objects.get_or_create(
            paper=other, author_id=author_id, defaults={"position": position}
        )
    Authorship.objects.filter(pk__in=added["authorships"]).delete()
    other.tags.set(snapshot["tags"])
    keep.tags.remove(*added["tags"])
    other.layers.set(snapshot["layers"])
    keep.layers.remove(*added["layers"])
    other.notes.set(snapshot["notes"])
    keep.notes.remove(*added["notes"])
    # Restored as a fixture is (raw: no signals): its year, tag and layer counts, and a key
    # should it have lost its own (or come from a merge made before keys were stored).
    recount_paper_facets()
    assign_cite_keys({other.pk})
    for edge_pk, side in snapshot["moved_edges"]:
        edge = Citation.objects.filter(pk=edge_pk).first()
        if edge:
            setattr(edge, side, other)
            edge.save()
    recounted = {other.pk, keep.pk}
    for restored in serializers.deserialize("json", snapshot["deleted_edges"]):
        restored.save()
        recounted.add(restored.object.cited_paper_id)
    recount_citations(recounted)  # the restored paper and edges, saved raw as well
    PaperIdentifier.objects.filter(pk__in=snapshot["identifiers"]).update(paper=other)
    PaperSlugAlias.objects.filter(pk__in=snapshot["aliases"]).update(paper=other)
    PendingCitation.objects.filter(pk__in=snapshot["pending"]).update(paper=other)
    merge.undone_at = timezone.now()
    merge.save(update_fields=["undone_at"])
    return other
