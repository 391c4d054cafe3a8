"""Edge and publication changes queue a refresh of the stored neighbours they reach (wired in
DiscoveryConfig.ready()). Only what moves the public graph counts: an edge created, deleted,
moved or published or unpublished, a paper published or unpublished; a classification or a
citing sentence edited changes no similarity."""

from discovery.tasks import refresh_after_commit
from publishing.signals import was_public


def _public(instance):
    return instance.__dict__.get("status") == "published"


def edge_before_save(sender, instance, raw=False, **kwargs):
    if raw:
        return
    instance._discovery_before = (
        not instance._state.adding and was_public(instance),
        instance.__dict__.get("citing_paper_id"),
        getattr(instance, "_loaded_cited_paper_id", instance.__dict__.get("cited_paper_id")),
    )


def edge_saved(sender, instance, created=False, raw=False, **kwargs):
    if raw:
        return
    before = getattr(instance, "_discovery_before", None)
    now = (_public(instance), instance.citing_paper_id, instance.cited_paper_id)
    instance._discovery_before = now
    if before is None or created or before != now:
        citing = {instance.citing_paper_id, before[1] if before else None}
        cited = {instance.cited_paper_id, before[2] if before else None}
        refresh_after_commit(citing, cited)


def edge_deleted(sender, instance, **kwargs):
    refresh_after_commit({instance.citing_paper_id}, {instance.cited_paper_id})


def paper_before_save(sender, instance, raw=False, **kwargs):
    if not raw:
        instance._discovery_was_public = not instance._state.adding and was_public(instance)


def paper_saved(sender, instance, created=False, raw=False, **kwargs):
    if raw:
        return
    was = getattr(instance, "_discovery_was_public", False)
    now = _public(instance)
    instance._discovery_was_public = now
    if was != now:
        refresh_after_commit({instance.pk}, {instance.pk})


def publication_changed(sender, pks, published, **kwargs):
    """A queryset's publish() or unpublish() of papers or edges (no save announces them)."""
    from citations.models import Citation, Paper

    if sender is Paper:
        refresh_after_commit(pks, pks)
    elif sender is Citation:
        pks, citing, cited = list(pks), set(), set()
        for start in range(0, len(pks), 5000):  # within SQLite's limit of query parameters
            edges = Citation.objects.filter(pk__in=pks[start : start + 5000])
            for a, b in edges.values_list("citing_paper", "cited_paper"):
                citing.add(a)
                cited.add(b)
        refresh_after_commit(citing, cited)
