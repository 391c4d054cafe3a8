"""The editorial apps, the "publish" permission of each publishable model, and two groups:
"Editors" (full rights over those apps, publishing included, nothing over users or settings)
and "Contributors" (write drafts and submit them for review; publishing is left to editors)."""

from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType

EDITORS_GROUP = "Editors"
CONTRIBUTORS_GROUP = "Contributors"
# The apps whose rows editors write; a change to any of them is a content change (page cache).
EDITORIAL_APPS = frozenset({"bottlenecks", "citations", "notes", "rlscaling", "taggit"})
CONTRIBUTOR_ACTIONS = ("view", "add", "change")


def sync_publish_permissions():
    """`<app>.publish_<model>` for every publishable model: separate from "change", so a team
    can have contributors who write and editors who publish. Created here rather than in each
    model's Meta so that no model needs a migration for it."""
    from .models import publishable_models

    for model in publishable_models():
        content_type = ContentType.objects.get_for_model(model)
        Permission.objects.get_or_create(
            content_type=content_type,
            codename=f"publish_{model._meta.model_name}",
            defaults={"name": f"Can publish {model._meta.verbose_name}"},
        )


def sync_editors_group(**kwargs):
    """Create or refresh the Editors and Contributors groups; run after every migrate
    (idempotent). Returns the Editors group."""
    sync_publish_permissions()
    editorial = Permission.objects.filter(content_type__app_label__in=EDITORIAL_APPS)
    editors, _ = Group.objects.get_or_create(name=EDITORS_GROUP)
    editors.permissions.set(editorial)
    contributors, _ = Group.objects.get_or_create(name=CONTRIBUTORS_GROUP)
    codenames = [
        permission.codename
        for permission in editorial.only("codename")
        if permission.codename.split("_", 1)[0] in CONTRIBUTOR_ACTIONS
    ]
    contributors.permissions.set(editorial.filter(codename__in=codenames))
    return editors
