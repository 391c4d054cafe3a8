"""Who may change what readers see: the one check every door asks (admin forms and actions,
the API, imports, the classification queue, readers' corrections, merges).

Every model whose rows readers see has a "publish" permission (`publish_<model>`, made by
`publishing.editors.sync_publish_permissions`): for a publishable model it lets a user
publish, unpublish and change live rows; for a model without drafts (vocabularies, authors,
tags, guide sections, identifiers, slug aliases, analysis steps), whose every saved row is
live, it lets a user write it at all. Editors hold them all; contributors none, so they write
drafts and submit them for review, and an editor publishes."""

LIVE_CHANGE_REFUSED = (
    "Only editors with the publish permission can change what readers see; save your work "
    "as a draft or submit it for review."
)


def publish_permission(model):
    """The permission name ("citations.publish_paper") that guards `model`'s live rows."""
    return f"{model._meta.app_label}.publish_{model._meta.model_name}"


def may_change_live(user, model):
    """May `user` publish, unpublish or change live rows of `model` (a class or a row)?"""
    model = model if isinstance(model, type) else type(model)
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and user.has_perm(publish_permission(model))
    )


class LiveRowsAdminMixin:
    """The admin of a model without drafts: a saved row is live at once, so adding, changing
    and deleting need the publish permission (contributors see the rows read-only).
    `contributors_may_add`: a new row shows nowhere by itself (an author no published paper
    names), so contributors may add one for their drafts."""

    contributors_may_add = False

    def has_add_permission(self, request, *args, **kwargs):
        allowed = super().has_add_permission(request, *args, **kwargs)
        return allowed and (self.contributors_may_add or may_change_live(request.user, self.model))

    def has_change_permission(self, request, obj=None):
        allowed = super().has_change_permission(request, obj)
        return allowed and may_change_live(request.user, self.model)

    def has_delete_permission(self, request, obj=None):
        allowed = super().has_delete_permission(request, obj)
        return allowed and may_change_live(request.user, self.model)
