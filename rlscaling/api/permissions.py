from rest_framework.permissions import DjangoModelPermissionsOrAnonReadOnly


class EditorsWrite(DjangoModelPermissionsOrAnonReadOnly):
    """Anyone reads; writes need an authenticated account holding the model permission
    (the Editors group has them all). Drafts are filtered by `visible_to`, not here."""
