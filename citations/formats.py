"""A paper in the formats other tools read: schema.org JSON-LD (the hub page's structured data)
and BibTeX (the .bib download)."""

import re

from django.conf import settings
from django.utils.text import slugify


def scholarly_article(paper):
    """schema.org ScholarlyArticle data for the hub's JSON-LD block."""
    url = f"{settings.SITE_URL}{paper.get_absolute_url()}"
    authors = [{"@type": "Person", "name": name} for name in paper.author_names]
    if not authors and paper.byline:
        authors = [{"@type": "Organization", "name": paper.byline}]
    data = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "@id": url,
        "url": url,
        "mainEntityOfPage": url,
        "headline": paper.title[:110],
        "name": paper.title,
        "author": authors,
        "description": paper.summary,
        "abstract": paper.abstract,
        "keywords": [tag.name for tag in paper.tags.all()],
        "sameAs": [link for link in (paper.arxiv_url, paper.doi_url, paper.url) if link],
        "identifier": [
            {"@type": "PropertyValue", "propertyID": scheme, "value": value}
            for scheme, value in (("arXiv", paper.arxiv_id), ("DOI", paper.doi))
            if value
        ],
    }
    if paper.publication_date:
        data["datePublished"] = paper.publication_date.isoformat()
    if paper.institution:
        data["sourceOrganization"] = {"@type": "Organization", "name": paper.institution}
    return {key: value for key, value in data.items() if value not in ("", [], None)}


BIBTEX_SPECIAL = re.compile(r"([\\{}&%$#_^~])")
BIBTEX_REPLACEMENTS = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}


def bibtex_escape(text):
    return BIBTEX_SPECIAL.sub(
        lambda match: BIBTEX_REPLACEMENTS.get(match.group(1), "\\" + match.group(1)), text
    )


# Characters that would end or nest the braced value, or break the line, percent-encoded as a
# URL may carry them; a URL or DOI link then cannot close its field and add others.
BIBTEX_URL_UNSAFE = {
    "{": "%7B",
    "}": "%7D",
    "\\": "%5C",
    '"': "%22",
    " ": "%20",
    "\n": "%0A",
    "\r": "%0D",
    "\t": "%09",
}


def bibtex_url(url):
    return "".join(BIBTEX_URL_UNSAFE.get(character, character) for character in url)


def bibtex_name(name):
    """A name in BibTeX's "Last, First" order; a one-word name stays as it is."""
    first, _, last = name.rpartition(" ")
    return f"{last}, {first}" if first else name


def bibtex_entry(paper):
    names = paper.author_names
    if names:
        author = " and ".join(bibtex_escape(bibtex_name(name)) for name in names)
        key_name = names[0].rpartition(" ")[2]
    else:
        # An organisation as author: double braces keep BibTeX from splitting the name.
        author = "{" + bibtex_escape(paper.byline or paper.institution) + "}"
        key_name = paper.byline or paper.institution or "anon"
    year = paper.publication_date.year if paper.publication_date else ""
    title_word = next((w for w in slugify(paper.title).split("-") if len(w) > 3), "paper")
    key = re.sub(r"[^a-z0-9]", "", slugify(key_name)) + str(year) + title_word

    entry_type = "misc" if paper.arxiv_id or not paper.institution else "techreport"
    fields = [
        ("title", "{" + bibtex_escape(paper.title) + "}"),
        ("author", author if author != "{}" else ""),
        ("institution", bibtex_escape(paper.institution) if entry_type == "techreport" else ""),
        ("year", str(year)),
        ("month", paper.publication_date.strftime("%b").lower() if paper.publication_date else ""),
        ("eprint", paper.arxiv_id),
        ("archivePrefix", "arXiv" if paper.arxiv_id else ""),
        ("doi", bibtex_escape(paper.doi)),
        ("url", bibtex_url(paper.url or paper.arxiv_url or paper.doi_url)),
    ]
    lines = [f"@{entry_type}{{{key},"]
    for name, value in fields:
        if value:
            # `month` takes BibTeX's bare three-letter macros; everything else is braced.
            lines.append(f"  {name} = {value}," if name == "month" else f"  {name} = {{{value}}},")
    lines.append("}")
    return "\n".join(lines) + "\n"
