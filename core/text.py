"""Editorial text as XML, BibTeX and JSON can carry it.

`clean_text()` removes what a paste from a PDF or a hostile client can put in a string but no
output format takes: C0 control characters other than tab, newline and carriage return (a form
feed or vertical tab becomes a space, so words stay apart), DEL, lone UTF-16 surrogates (which
cannot even be encoded as UTF-8 for PostgreSQL) and the noncharacters U+FFFE and U+FFFF. It
runs on every CharField and TextField of every editorial model before each save
(`publishing.editors.clean_editorial_text`, a pre_save receiver), so the admin, the API,
importers and load_demo store the same thing; the XML outputs (the feed) clean again what bulk
writes may have stored.
"""

import re
from urllib.parse import urlsplit, urlunsplit

from django.core.validators import ProhibitNullCharactersValidator
from django.db import models
from django.forms.utils import pretty_name
from django.utils.encoding import iri_to_uri
from django.utils.text import capfirst

# Vertical tab and form feed separate words; the other controls are noise.
SEPARATORS = re.compile(r"[\x0b\x0c]")
UNWANTED = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def clean_text(value):
    if not isinstance(value, str):
        return value
    return UNWANTED.sub("", SEPARATORS.sub(" ", value))


def name_null_character_refusal(field, label):
    """Django's and DRF's text fields refuse a null character with "Null characters are not
    allowed.", which does not say where: the refusal of `field` (a form or serializer field)
    names it instead."""
    message = (
        f"{capfirst(str(label))} contains a null character (invisible, often pasted from a "
        "PDF), which cannot be stored: retype the text or paste it without formatting."
    )
    field.validators = [
        ProhibitNullCharactersValidator(message=message)
        if isinstance(validator, ProhibitNullCharactersValidator)
        else validator
        for validator in field.validators
    ]
    return field


def name_null_character_refusals(fields):
    """Name the null-character refusal of every field in `fields` (a form's {name: field})."""
    for name, field in fields.items():
        name_null_character_refusal(field, field.label or pretty_name(name))
    return fields


class NamedRefusalsForm:
    """A form mixin: its fields' null-character refusals name the field (a plain form's
    fields are not made by an admin, which names them in publishing/admin_site.py)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        name_null_character_refusals(self.fields)


def ascii_url(value):
    """A URL as a URI (what the API's `format: uri` promises): an internationalised host in
    IDNA form, anything else outside ASCII, spaces and braces percent-encoded."""
    if not value:
        return value
    try:
        parts = urlsplit(value)
        host = parts.hostname or ""
        if host and not host.isascii():
            ascii_host = host.encode("idna").decode("ascii")
            parts = parts._replace(netloc=parts.netloc.replace(host, ascii_host))
        return iri_to_uri(urlunsplit(parts))
    except (ValueError, UnicodeError):
        return iri_to_uri(value)


def clean_data(value):
    """`clean_text` over strings inside lists, tuples and dicts (feed items, JSON fields)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (list, tuple)):
        return type(value)(clean_data(item) for item in value)
    if isinstance(value, dict):
        return {clean_data(key): clean_data(item) for key, item in value.items()}
    return value


def clean_instance_text(instance):
    for field in instance._meta.concrete_fields:
        if isinstance(field, (models.CharField, models.TextField)):
            value = getattr(instance, field.attname)
            cleaned = clean_text(value)
            if isinstance(field, models.URLField):
                cleaned = ascii_url(cleaned)
            if cleaned is not value and cleaned != value:
                setattr(instance, field.attname, cleaned)
        elif isinstance(field, models.JSONField):
            setattr(instance, field.attname, clean_data(getattr(instance, field.attname)))
