"""arXiv identifiers and DOIs: one normal form each, used by the model, the admin, the API,
importers and the demo loader alike."""

import re

from django.core.exceptions import ValidationError
from django.db import models

ARXIV_ID = re.compile(
    r"^(?:(?P<new>\d{4}\.\d{4,5})"
    r"|(?P<archive>[a-z]+(?:-[a-z]+)*)(?:\.(?P<subject_class>[a-z]{2}))?/(?P<number>\d{7}))"
    r"(?:v\d+)?$",
    re.IGNORECASE,
)
DOI = re.compile(r"^10\.\d{4,9}/[^\s\x00]+$")
ARXIV_PREFIXES = (
    "https://arxiv.org/abs/",
    "http://arxiv.org/abs/",
    "https://arxiv.org/pdf/",
    "http://arxiv.org/pdf/",
    "arxiv.org/abs/",
    "arxiv.org/pdf/",
    "arxiv:",
)
DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi.org/", "doi:")


def _strip_prefix(value, prefixes):
    for prefix in prefixes:
        if value.lower().startswith(prefix):
            return value[len(prefix) :]
    return value


def normalise_arxiv_id(value):
    """The id without a version suffix; a ValidationError if it is not an arXiv id."""
    value = _strip_prefix((value or "").strip(), ARXIV_PREFIXES)
    value = value.removesuffix(".pdf")
    match = ARXIV_ID.match(value)
    if not match:
        raise ValidationError(
            "Not an arXiv identifier: expected e.g. 2510.13786 or hep-th/9901001.",
            code="invalid_arxiv_id",
        )
    if match.group("new"):
        return match.group("new")
    # Old-style ids: the archive in lower case, its subject class in upper (math.AG/0101001).
    subject_class = match.group("subject_class")
    archive = match.group("archive").lower() + (
        f".{subject_class.upper()}" if subject_class else ""
    )
    return f"{archive}/{match.group('number')}"


ARXIV_VERSION = re.compile(r"v(?P<version>\d+)(?:\.pdf)?$", re.IGNORECASE)


def arxiv_versions_named(value):
    """The versions a typed arXiv id implies: `2510.13786v3` -> ["v1", "v2", "v3"] (a version
    exists only after the ones before it); [] without a version suffix or for a non-id."""
    value = value.strip() if isinstance(value, str) else ""
    match = ARXIV_VERSION.search(value)
    if not match or not ARXIV_ID.match(_strip_prefix(value, ARXIV_PREFIXES).removesuffix(".pdf")):
        return []
    return [f"v{n}" for n in range(1, min(int(match.group("version")), 99) + 1)]


def merged_arxiv_versions(*lists):
    """The versions of all the lists, once each, in version order: ["v1", "v2", "v10"]."""
    return sorted({v for versions in lists for v in versions or []}, key=lambda v: int(v[1:]))


def normalise_doi(value):
    """The DOI without a resolver prefix, in lower case: DOIs are case-insensitive (DOI
    Handbook 2.4), so one spelling each makes the unique constraint and lookups exact."""
    value = _strip_prefix((value or "").strip(), DOI_PREFIXES)
    if not DOI.match(value) or len(value) > 200:
        raise ValidationError(
            "Not a DOI: expected e.g. 10.48550/arXiv.2510.13786.", code="invalid_doi"
        )
    return value.lower()


ARXIV_DOI_PREFIX = "10.48550/arxiv."


def arxiv_id_from_doi(doi):
    """The arXiv id that arXiv's DataCite DOI ``10.48550/arXiv.<id>`` names, else ''."""
    doi = (doi or "").strip()
    if doi.lower().startswith(ARXIV_DOI_PREFIX):
        try:
            return normalise_arxiv_id(doi[len(ARXIV_DOI_PREFIX) :])
        except ValidationError:
            return ""
    return ""


class IdentifierField(models.CharField):
    """A text column holding one kind of identifier in its normal form. Model validation
    (`full_clean()`: the admin's forms, importers, the demo loader) normalises what was typed
    (`arXiv:2510.13786v2`, a resolver URL, ...) before the length and uniqueness checks, and
    refuses what is not an identifier; forms accept the longer typed forms."""

    normalise = None  # set by subclasses: str -> normal form, or ValidationError
    input_max_length = 300

    def clean(self, value, model_instance):
        if value not in self.empty_values:
            value = type(self).normalise(value)
        return super().clean(value, model_instance)

    def formfield(self, **kwargs):
        return super().formfield(**{"max_length": self.input_max_length, **kwargs})


class ArxivIdField(IdentifierField):
    normalise = staticmethod(normalise_arxiv_id)


class DoiField(IdentifierField):
    """A DOI, stored in lower case however it is saved (full_clean() or not), so lookups are
    exact matches on the unique index instead of UPPER() over every paper."""

    normalise = staticmethod(normalise_doi)

    def pre_save(self, model_instance, add):
        value = super().pre_save(model_instance, add)
        if value and value != value.lower():
            value = value.lower()
            setattr(model_instance, self.attname, value)
        return value
