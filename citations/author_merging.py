"""Merging duplicate authors into one, and undoing a merge.

Two names are one author when they have the same ORCID iD, or the same name once spelt in
plain ASCII ("José Müller", "Jose Muller": `author_slug_base`) and a paper or a co-author in
common (`same_person_reason`). The rule is what the merge page shows to help the editor
decide; the editor decides (an initial against a full first name fits no rule, and may still
be one person).

The kept author takes every authorship of the other (on a paper naming both, the other's row
is dropped, the kept one stays where it was), its ORCID iD when the kept author has none (two
different iDs are two people: the merge is refused), its old slugs, and its own slug as an
alias answering 301 when readers could reach its page. An `AuthorMerge` row keeps what the
other author was and what moved, so `undo_author_merge` can put both back as they were; both
authors' history records the merge and the undo."""

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from citations.models import Author, AuthorMerge, Authorship, AuthorSlugAlias
from citations.models.authors import author_slug_base
from publishing.history import fit_change_reason


class MergeRefused(ValueError):
    """The two authors cannot be one (the sentence says why)."""


ORCID_CONFLICT = (
    "{keep} and {other} have different ORCID iDs ({keep_orcid}, {other_orcid}): two people, "
    "not merged."
)


def merge_refusal(keep, other):
    """Why `other` may not be merged into `keep` (a sentence), or ""."""
    if keep.pk == other.pk:
        return "An author cannot be merged into themselves."
    if keep.orcid and other.orcid and keep.orcid != other.orcid:
        return ORCID_CONFLICT.format(
            keep=keep.name, other=other.name, keep_orcid=keep.orcid, other_orcid=other.orcid
        )
    return ""


def same_person_reason(one, other):
    """Why the documented rule takes `one` and `other` for one author, in words, or ""."""
    if one.orcid and one.orcid == other.orcid:
        return f"the same ORCID iD ({one.orcid})"
    if author_slug_base(one.name) != author_slug_base(other.name):
        return ""
    papers = Authorship.objects.filter(author=one).values("paper")
    if Authorship.objects.filter(author=other, paper__in=papers).exists():
        return "the same name, on the same paper"
    co_authors = Authorship.objects.filter(paper__in=papers).exclude(author=one).values("author")
    their_papers = Authorship.objects.filter(author=other).values("paper")
    shared = Authorship.objects.filter(
        Q(paper__in=their_papers), Q(author__in=co_authors), ~Q(author=other)
    )
    if shared.exists():
        return "the same name and a co-author in common"
    return ""


@transaction.atomic
def merge_authors(keep, other, user=None):
    """Merge `other` into `keep`; returns the AuthorMerge that can undo it. MergeRefused when
    they cannot be one author."""
    if refusal := merge_refusal(keep, other):
        raise MergeRefused(refusal)
    had_page = Author.objects.with_published_papers().filter(pk=other.pk).exists()
    snapshot = {
        "author": {"id": other.pk, "name": other.name, "slug": other.slug, "orcid": other.orcid},
        "moved": [],
        "dropped": [],
        "aliases": list(other.slug_aliases.values_list("pk", flat=True)),
        "orcid_taken": False,
        "alias": None,
    }
    on_papers = set(Authorship.objects.filter(author=keep).values_list("paper_id", flat=True))
    for authorship in Authorship.objects.filter(author=other).order_by("pk"):
        if authorship.paper_id in on_papers:
            snapshot["dropped"].append([authorship.paper_id, authorship.position])
            authorship.delete()
        else:
            snapshot["moved"].append(authorship.pk)
            authorship.author = keep
            authorship.save()  # each paper's history records its authors afresh
    other.slug_aliases.update(author=keep)
    other._change_reason = fit_change_reason(f"Merged into {keep.slug}")
    other._history_user = user
    other.delete()  # frees its name and slug
    if had_page:  # an author only on drafts had no address readers knew
        alias = AuthorSlugAlias.objects.create(author=keep, slug=other.slug)
        snapshot["alias"] = alias.pk
    if other.orcid and not keep.orcid:
        keep.orcid = other.orcid
        snapshot["orcid_taken"] = True
    keep._change_reason = fit_change_reason(f"Merged {other.slug} into this author")
    keep._history_user = user
    keep.save()
    return AuthorMerge.objects.create(
        kept=keep,
        merged_name=other.name,
        merged_slug=other.slug,
        merged_by=user,
        snapshot=snapshot,
    )


@transaction.atomic
def undo_author_merge(merge, user=None):
    """Put the merged author back with its own name, slug, ORCID iD, papers and old slugs;
    returns it. MergeRefused when another author has taken its name or slug since."""
    if merge.undone_at:
        raise MergeRefused("This merge was already undone.")
    snapshot = merge.snapshot
    row = snapshot["author"]
    keep = Author.objects.get(pk=merge.kept_id)
    AuthorSlugAlias.objects.filter(pk=snapshot["alias"]).delete()
    if Author.objects.filter(Q(name=row["name"]) | Q(slug=row["slug"])).exists():
        raise MergeRefused(
            f"Another author now has the name or slug of {row['name']}: rename them first."
        )
    if snapshot["orcid_taken"] and keep.orcid == row["orcid"]:
        keep.orcid = ""
        keep._change_reason = fit_change_reason(f"Undid the merge of {row['slug']}")
        keep._history_user = user
        keep.save()
    other = Author(id=row["id"], name=row["name"], slug=row["slug"], orcid=row["orcid"])
    other._change_reason = fit_change_reason(f"Back from the merge into {keep.slug}")
    other._history_user = user
    other.save(force_insert=True)
    for authorship in Authorship.objects.filter(pk__in=snapshot["moved"], author=keep):
        authorship.author = other
        authorship.save()
    for paper_id, position in snapshot["dropped"]:
        Authorship.objects.get_or_create(
            paper_id=paper_id, author=other, defaults={"position": position}
        )
    AuthorSlugAlias.objects.filter(pk__in=snapshot["aliases"]).update(author=other)
    merge.undone_at = timezone.now()
    merge.save(update_fields=["undone_at"])
    return other
