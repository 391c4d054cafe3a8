"""The editorial apps, the "publish" permission of each publishable model, and two groups:
"Editors" (full rights over those apps, publishing included, nothing over users or settings)
and "Contributors" (write drafts and submit them for review; publishing is left to editors)."""

import re

from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import models

from core.text import clean_instance_text

EDITORS_GROUP = "Editors"
CONTRIBUTORS_GROUP = "Contributors"
# The apps whose rows editors write; a change to any of them is a content change (page cache).
EDITORIAL_APPS = frozenset({"bottlenecks", "citations", "notes", "results", "rlscaling", "taggit"})
CONTRIBUTOR_ACTIONS = ("view", "add", "change")


def live_models():
    """The models whose rows readers see: the publishable ones, and those without drafts (a
    saved row is live at once: vocabularies, authors, tags, guide sections, identifiers)."""
    from publishing.models import Publishable
    from publishing.signals import shown_to_readers

    return [
        model
        for model in apps.get_models()
        if issubclass(model, Publishable)
        or (shown_to_readers(model) and not getattr(model, "instance_type", None))
    ]


def sync_publish_permissions():
    """`<app>.publish_<model>` for every model readers see: separate from "change", so a team
    can have contributors who write drafts and editors who publish (publishing/permissions.py).
    Created here rather than in each model's Meta so that no model needs a migration for it."""
    from publishing.models import Publishable

    wanted = {}
    for model in live_models():
        content_type = ContentType.objects.get_for_model(model)
        verb = "publish" if issubclass(model, Publishable) else "change live"
        codename = f"publish_{model._meta.model_name}"
        name = f"Can {verb} {model._meta.verbose_name}"[:255]
        wanted[content_type.pk, codename] = Permission(
            content_type=content_type, codename=codename, name=name
        )
    existing = Permission.objects.filter(codename__startswith="publish_")
    for key in existing.values_list("content_type_id", "codename"):
        wanted.pop(key, None)
    Permission.objects.bulk_create(wanted.values())


def sync_after_last_app(sender, **kwargs):
    """post_migrate is sent once per app with models, in INSTALLED_APPS order (after a migrate
    and after every flush): the groups are synced once, after the last app's, when every
    model's permissions exist."""
    with_models = [config for config in apps.get_app_configs() if config.models_module]
    if with_models and sender is with_models[-1]:
        sync_editors_group()


def sync_editors_group():
    """Create or refresh the Editors and Contributors groups (idempotent). Returns the Editors
    group."""
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


# Pasted from PDFs and web pages, invisible in every editor and page, but they break search
# and matching: soft hyphen, zero-width space, word joiner, byte-order mark.
INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")
# Unicode's line and paragraph separators: line breaks in text areas, spaces on one line.
LINE_SEPARATORS = {"\u2028": "\n", "\u2029": "\n\n"}
# A vertical tab or form feed separates words: with the spaces around it, one space.
WORD_BREAK = re.compile(r"[ \t]*[\x0b\x0c]+[ \t]*")


def clean_invisible(value, multiline):
    """`value` without invisible characters; line separators as line breaks (`multiline`) or
    spaces; a vertical tab or form feed between words one space."""
    if not isinstance(value, str):
        return value
    value = INVISIBLE.sub("", value)
    for separator, newline in LINE_SEPARATORS.items():
        value = value.replace(separator, newline if multiline else " ")
    return WORD_BREAK.sub(" ", value)


def clean_editorial_text(sender, instance, **kwargs):
    """The one cleaning rule of editorial text: invisible characters (above), then control
    characters and lone surrogates (core/text.py), never reach an editorial table."""
    if sender._meta.app_label in EDITORIAL_APPS:
        for field in instance._meta.concrete_fields:
            if isinstance(field, (models.CharField, models.TextField)):
                value = getattr(instance, field.attname)
                cleaned = clean_invisible(value, isinstance(field, models.TextField))
                if cleaned != value:
                    setattr(instance, field.attname, cleaned)
        clean_instance_text(instance)
