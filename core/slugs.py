"""Slugs as the site's addresses take them: the `<slug:...>` URL converter accepts ASCII
letters, digits, hyphens and underscores only, so a slug that kept an "é" (taggit keeps them)
made every page that links its row fail to build the link.

Every slug field of every model is normalised on save (`normalise_slugs`, a pre_save receiver
wired in CoreConfig.ready), whichever door saved it: the admin, the API, the importers, the
demo loader and restored dumps. Forms and serializers refuse such slugs first, with an error;
this is the rule that holds when a door does not."""

import hashlib
import re

from django.db import models
from django.urls.converters import SlugConverter
from django.utils.text import slugify

URL_SLUG = re.compile(SlugConverter.regex)


def is_url_slug(value):
    return bool(value) and URL_SLUG.fullmatch(value) is not None


def url_slug(value, max_length=50, fallback="item"):
    """`value` folded to ASCII (NFKD, accents dropped: "Café RL" is "cafe-rl"), within
    `max_length`. A value with no ASCII letter or digit at all ("日本語") gets `fallback` and a
    digest of the value, so two such values stay apart and one value always gets one slug."""
    slug = slugify(value).strip("-_")[:max_length].strip("-_")
    if not slug:
        digest = hashlib.sha256(str(value).encode("utf-8", "surrogatepass")).hexdigest()[:10]
        slug = f"{slugify(fallback) or 'item'}-{digest}"[-max_length:].strip("-_")
    return slug


def _unused(model, field, slug, instance, using):
    """`slug`, or `slug-2`, `slug-3`... the first no other row of a unique field holds."""
    if not field.unique:
        return slug
    others = model._base_manager.using(using)
    if instance.pk is not None:
        others = others.exclude(pk=instance.pk)
    candidate, n = slug, 1
    while others.filter(**{field.attname: candidate}).exists():
        n += 1
        suffix = f"-{n}"
        candidate = slug[: field.max_length - len(suffix)] + suffix
    return candidate


def normalise_slugs(sender, instance, using=None, **kwargs):
    for field in sender._meta.concrete_fields:
        if not isinstance(field, models.SlugField):
            continue
        value = getattr(instance, field.attname)
        if not value or (is_url_slug(value) and len(value) <= (field.max_length or len(value))):
            continue
        slug = url_slug(str(value), field.max_length or 50, sender._meta.model_name)
        setattr(instance, field.attname, _unused(sender, field, slug, instance, using or "default"))
