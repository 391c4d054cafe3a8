from rest_framework.permissions import DjangoModelPermissionsOrAnonReadOnly


class EditorsWrite(DjangoModelPermissionsOrAnonReadOnly):
    """Anyone reads; writes need an authenticated account holding the model permission
    (the Editors group has them all). Drafts are filtered by `visible_to`, not here."""


def sees_drafts(user, model):
    """Whether `visible_to(user)` shows `user` the drafts of `model` too."""
    return user.is_authenticated and user.has_perm(
        f"{model._meta.app_label}.view_{model._meta.model_name}"
    )
