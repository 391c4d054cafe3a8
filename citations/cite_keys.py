"""Stored base cite keys (issue 15): every export names a paper by its cite key
(citations/formats.py), the base key <first author's last name><year><first long title word>
plus, where other papers share that base, a suffix (b, c, ...) by creation order, unique across
the site. Working the suffixes out read every paper and author (10 s of Python at 100k
papers); with each paper's base key stored in `Paper.cite_key_base` (indexed), the suffixes of
a list come from the papers sharing its keys (`cite_key_suffixes`), whatever the corpus size.

`refresh_cite_keys(ids)` stores the base key of those papers afresh from their rows and first
authors: the one function every path calls with the papers it touched. Paper.save() keeps its
own (title, byline, institution, date); the signals below follow its authors (an authorship
saved or deleted, authors added through the relation, an author renamed); bulk paths
(generate_corpus writes the column, the bulk importer, loading a dump or fixture) call it
themselves; `manage.py recount_citations` refreshes every paper."""

from django.db import connection
from django.db.models import BooleanField, OuterRef, Q, Subquery
from django.db.models.expressions import RawSQL
from django.db.models.signals import m2m_changed, post_delete, post_init, post_save
from django.dispatch import receiver

from .formats import base_cite_key

BATCH = 2000
SPARE_SUFFIXES = 4
# The paper's own fields its base key is made of; the first author is the other input.
CITE_KEY_FIELDS = ("title", "byline", "institution", "publication_date", "date_precision")


def base_key(first_author, byline, institution, date, precision, title):
    """The base cite key of a paper with these values (its first author's name or None)."""
    year = date.year if date and precision != "unknown" else ""
    return base_cite_key(first_author, byline or institution, year, title)


def first_author_name(paper_ref, authorship_model):
    """The name of the paper's first author (its lowest position), as a subquery."""
    rows = authorship_model.objects.filter(paper=paper_ref).order_by("position", "id")
    return Subquery(rows.values("author__name")[:1])


def refresh_cite_keys(paper_ids=None, apps=None):
    """Store the base cite key of these papers (every paper when None) where it changed;
    returns how many changed. `apps`: a migration's app registry, when called from one."""
    if apps is None:
        from .models import Authorship, Paper
    else:
        Paper = apps.get_model("citations", "Paper")
        Authorship = apps.get_model("citations", "Authorship")
    if paper_ids is None:
        ids = list(Paper._base_manager.order_by("pk").values_list("pk", flat=True))
    else:
        ids = sorted({pk for pk in paper_ids if pk is not None})
    changed = 0
    for start in range(0, len(ids), BATCH):
        rows = (
            Paper._base_manager.filter(pk__in=ids[start : start + BATCH])
            .annotate(first_author=first_author_name(OuterRef("pk"), Authorship))
            .values_list("pk", "cite_key_base", "first_author", *CITE_KEY_FIELDS)
            .order_by()
        )
        stale = []
        for pk, stored, first_author, title, byline, institution, date, precision in rows:
            key = base_key(first_author, byline, institution, date, precision, title)
            if key != stored:
                stale.append(Paper(pk=pk, cite_key_base=key))
        # bulk_update: no save(), so no new version or history record for a derived value.
        Paper._base_manager.bulk_update(stale, ["cite_key_base"], batch_size=500)
        changed += len(stale)
    return changed


def cite_key_suffixes(base_keys):
    """{paper id: suffix} for the papers that have one of these base keys and share it: within
    a key the oldest paper keeps it bare and later ones add b, c, ... in creation order,
    skipping any that would be another paper's bare key. Every paper counts, drafts too, so
    that publishing one never renames a published paper's key. Reads the papers of these keys
    (index `paper_cite_key_base`), and checks the few suffixed keys against the bare ones."""
    from .formats import key_suffix
    from .models import Paper

    quote = connection.ops.quote_name
    key_column = f"{quote(Paper._meta.db_table)}.{quote('cite_key_base')}"

    def papers_with(keys):
        keys = sorted(keys)
        if not keys:
            return
        if connection.vendor == "postgresql":
            # One array parameter: one query, and no per-key work in Django, however many keys.
            chunks = [RawSQL(f"{key_column} = ANY(%s)", (keys,), output_field=BooleanField())]
        else:
            chunks = [
                Q(cite_key_base__in=keys[start : start + BATCH])
                for start in range(0, len(keys), BATCH)
            ]
        for chunk in chunks:
            rows = Paper._base_manager.filter(chunk)
            yield from rows.values_list("cite_key_base", "pk").order_by("cite_key_base", "pk")

    sharing = {}
    for key, pk in papers_with(set(base_keys)):
        sharing.setdefault(key, []).append(pk)
    sharing = {key: pks for key, pks in sharing.items() if len(pks) > 1}
    # A few beyond the suffixes needed, in case some are taken; past them, one query each.
    checked = {
        key + key_suffix(i)
        for key, pks in sharing.items()
        for i in range(1, len(pks) + SPARE_SUFFIXES)
    }
    taken = {key for key, _ in papers_with(checked)}

    def is_bare_key(key):
        if key not in checked:
            checked.add(key)
            taken.update(key for key, _ in papers_with([key]))
        return key in taken

    suffixes = {}
    for key, pks in sharing.items():
        index = 0
        for pk in pks[1:]:
            index += 1
            while is_bare_key(key + key_suffix(index)):
                index += 1
            suffixes[pk] = key_suffix(index)
    return suffixes


@receiver(post_save, sender="citations.Authorship")
@receiver(post_delete, sender="citations.Authorship")
def authorship_changed(sender, instance, raw=False, **kwargs):
    """A paper's authors changed: its first author may have. Fixture loading (raw) is
    refreshed by whoever loads."""
    if not raw:
        refresh_cite_keys({instance.paper_id})


@receiver(m2m_changed, sender="citations.Authorship")
def authors_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """Authors added or taken off through `paper.authors` (or `author.papers`), which writes
    the authorships without saving each."""
    from .models import Authorship

    if action == "pre_clear" and reverse:
        instance._cite_key_papers = set(
            Authorship.objects.filter(author=instance).values_list("paper_id", flat=True)
        )
    elif action == "post_clear" and reverse:
        refresh_cite_keys(getattr(instance, "_cite_key_papers", set()))
    elif action in ("post_add", "post_remove", "post_clear"):
        refresh_cite_keys((pk_set or set()) if reverse else {instance.pk})


@receiver(post_init, sender="citations.Author")
def author_loaded(sender, instance, **kwargs):
    instance._cite_key_name = instance.__dict__.get("name")


@receiver(post_save, sender="citations.Author")
def author_saved(sender, instance, created, raw=False, **kwargs):
    """A renamed author renames the keys of the papers they are first author of (their
    papers are refreshed: the key reads the first author's name)."""
    from .models import Authorship

    if not raw and not created and instance.name != instance._cite_key_name:
        papers = Authorship.objects.filter(author=instance).values_list("paper_id", flat=True)
        refresh_cite_keys(set(papers))
    instance._cite_key_name = instance.name
