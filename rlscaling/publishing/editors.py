"""The editorial apps, and the "Editors" group: full rights over those apps, nothing over users
or settings."""

from django.contrib.auth.models import Group, Permission

EDITORS_GROUP = "Editors"
# The apps whose rows editors write; a change to any of them is a content change (page cache).
EDITORIAL_APPS = frozenset({"bottlenecks", "citations", "notes", "taggit"})


def sync_editors_group(**kwargs):
    """Create or refresh the Editors group; run after every migrate (idempotent)."""
    group, _ = Group.objects.get_or_create(name=EDITORS_GROUP)
    permissions = Permission.objects.filter(content_type__app_label__in=EDITORIAL_APPS)
    group.permissions.set(permissions)
    return group
