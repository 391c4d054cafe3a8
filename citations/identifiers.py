"""arXiv identifiers and DOIs: one normal form each, used by the model, the admin, the API,
importers and the demo loader alike."""

import re

from django.core.exceptions import ValidationError

ARXIV_ID = re.compile(
    r"^(?:(?P<new>\d{4}\.\d{4,5})|(?P<old>[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7}))(?:v\d+)?$"
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
    return match.group("new") or match.group("old")


def normalise_doi(value):
    """The DOI without a resolver prefix."""
    value = _strip_prefix((value or "").strip(), DOI_PREFIXES)
    if not DOI.match(value) or len(value) > 200:
        raise ValidationError(
            "Not a DOI: expected e.g. 10.48550/arXiv.2510.13786.", code="invalid_doi"
        )
    return value


def arxiv_id_from_doi(doi):
    """The arXiv id that arXiv's DataCite DOI ``10.48550/arXiv.<id>`` names, else ''."""
    prefix = "10.48550/arxiv."
    doi = (doi or "").lower()
    if doi.startswith(prefix):
        try:
            return normalise_arxiv_id(doi[len(prefix) :])
        except ValidationError:
            return ""
    return ""
