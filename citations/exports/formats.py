"""Papers in the formats other tools read: schema.org JSON-LD (the hub page's structured data),
BibTeX (in bibtexparser's layout), CSL-JSON (Zotero, Pandoc, citeproc) and RIS (in rispy's layout).

Every export of a paper names it by its stored cite key (`Paper.cite_key`, assigned once:
citations/cite_keys.py), unique across the site, so files exported from different pages, or at
different times, combine without duplicate or changed keys."""

import functools
import re

from anyascii import anyascii
from bibtexparser.middlewares.names import NameParts
from django.conf import settings
from django.urls import reverse
from django.utils.text import slugify
from rispy.config import LIST_TYPE_TAGS, TAG_KEY_MAPPING
from rispy.utils import invert_dictionary

CITO = "http://purl.org/spar/cito/"
# Our citation roles and polarities as CiTO (Citation Typing Ontology) characterisations; the
# table is published on /about/data/. A role or polarity editors add later maps to cito:cites
# until it is listed here.
CITO_ROLES = {
    "background": "cito:obtainsBackgroundFrom",
    "method": "cito:usesMethodIn",
    "comparison": "cito:usesConclusionsFrom",
    "extension": "cito:extends",
}
CITO_POLARITIES = {
    "supporting": "cito:supports",
    "contrasting": "cito:disputes",
    "neutral": "cito:citesForInformation",
}
CITO_FALLBACK = "cito:cites"
# The most edges each way one JSON-LD document (`.jsonld`) carries (a hub can have tens of
# thousands of citing papers): the newest ones. The whole graph is in the public dump.
JSON_LD_CITATION_LIMIT = 200
# The same in the JSON-LD block of the paper's page, which links the document as alternate:
# the page weighs the same for a hub of 40 or 40,000 citing papers.
PAGE_JSON_LD_CITATION_LIMIT = 30


def cito_terms(role, polarity):
    """The CiTO characterisations of one edge, from its role's and its polarity's slugs
    (cito:cites when neither is known or mapped)."""
    terms = [CITO_ROLES.get(role), CITO_POLARITIES.get(polarity)]
    return [term for term in terms if term] or [CITO_FALLBACK]


def paper_url(paper):
    return page_url(paper.slug)


def page_url(slug):
    """The absolute URL of the paper page with this slug."""
    from citations.models import Paper

    return f"{settings.SITE_URL}{Paper.url_for_slug(slug)}"


# What the JSON-LD says of one edge: read as values, not as model instances (a hub's block
# lists up to 2 x JSON_LD_CITATION_LIMIT edges, each with two papers).
EDGE_FIELDS = (
    "citing_paper__slug",
    "citing_paper__title",
    "cited_paper__slug",
    "cited_paper__title",
    "role__slug",
    "polarity__slug",
)


def json_ld_citation(edge, terms, url):
    """One edge (a dict of EDGE_FIELDS) as a CiTO citation: who cites whom, how (its CiTO
    `terms`), and the two papers' titles; `url` makes a page URL of a slug."""
    return {
        "@type": "cito:Citation",
        "cito:hasCitingEntity": {
            "@id": url(edge["citing_paper__slug"]),
            "name": edge["citing_paper__title"],
        },
        "cito:hasCitedEntity": {
            "@id": url(edge["cited_paper__slug"]),
            "name": edge["cited_paper__title"],
        },
        "cito:hasCitationCharacterization": [{"@id": term} for term in terms],
    }


def typed_citations(paper, limit=JSON_LD_CITATION_LIMIT):
    """The JSON-LD of the paper's public edges both ways, the newest `limit` each: schema.org's
    `citation` (by definition the works this paper cites, never those citing it), the CiTO
    properties from this paper to the papers it cites and, under `@reverse`, those from its
    citing papers and one cito:Citation node per edge (a node whose citing or cited entity is
    this paper)."""
    made = list(
        paper.public_citations_made().newest_first("cited_paper").values(*EDGE_FIELDS)[:limit]
    )
    received = list(paper.citing_citations().values(*EDGE_FIELDS)[:limit])
    url = functools.cache(page_url)  # the paper itself is on one end of every edge
    forward, backward = {}, {}
    for edges, properties, far_end, this_end in (
        (made, forward, "cited_paper__slug", "cito:hasCitingEntity"),
        (received, backward, "citing_paper__slug", "cito:hasCitedEntity"),
    ):
        for edge in edges:
            terms = cito_terms(edge["role__slug"], edge["polarity__slug"])
            backward.setdefault(this_end, []).append(json_ld_citation(edge, terms, url))
            for term in terms:
                properties.setdefault(term, []).append({"@id": url(edge[far_end])})
    cited = [
        {"@type": "ScholarlyArticle", "@id": url(edge["cited_paper__slug"]), "name": title}
        for edge in made
        for title in [edge["cited_paper__title"]]
    ]
    data = {"citation": cited, **forward}
    if backward:
        data["@reverse"] = backward
    return data


def scholarly_article(
    paper, citation_summary=None, with_citations=True, citation_limit=JSON_LD_CITATION_LIMIT
):
    """schema.org ScholarlyArticle data for the hub's JSON-LD block, with its typed citations
    in CiTO terms (the newest `citation_limit` each way). With the paper's `citation_summary`,
    the description ends with its figures, each with its basis."""
    url = paper_url(paper)
    authors = [{"@type": "Person", "name": name} for name in paper.author_names]
    if not authors and paper.byline:
        authors = [{"@type": "Organization", "name": paper.byline}]
    data = {
        "@context": ["https://schema.org", {"cito": CITO}],
        "@type": "ScholarlyArticle",
        "@id": url,
        "url": url,
        "mainEntityOfPage": url,
        "headline": paper.title[:110],
        "name": paper.title,
        "author": authors,
        "description": paper.summary,
        "abstract": paper.abstract,
        "keywords": [tag.label for tag in paper.tags.all()],
        "isPartOf": {"@type": "Periodical", "name": paper.venue} if paper.venue else None,
        "sameAs": [link for link in (paper.arxiv_url, paper.doi_url, paper.url) if link],
        "identifier": [
            {"@type": "PropertyValue", "propertyID": scheme, "value": value}
            for scheme, value in (("arXiv", paper.arxiv_id), ("DOI", paper.doi))
            if value
        ],
    }
    if citation_summary is not None and citation_summary.total:
        data["description"] = f"{paper.summary} {citation_summary.headline}".strip()
    if paper.publication_date_iso:
        data["datePublished"] = paper.publication_date_iso
    if paper.updated_at:
        data["dateModified"] = paper.updated_at.isoformat()
    data["image"] = f"{settings.SITE_URL}{reverse('paper-card', kwargs={'slug': paper.slug})}"
    # The site publishes this page (the paper's own publisher is its venue, `isPartOf`).
    data["publisher"] = {
        "@type": "Organization",
        "name": settings.SITE_NAME,
        "url": f"{settings.SITE_URL}/",
    }
    if paper.institution:
        data["sourceOrganization"] = {"@type": "Organization", "name": paper.institution}
    if with_citations:
        data.update(typed_citations(paper, citation_limit))
    return {key: value for key, value in data.items() if value not in ("", [], None)}


BIBTEX_SPECIAL = re.compile(r"([\\{}&%$#_^~])")
# `\^{}` and `\~{}` are accents over nothing (citation-js reads them as "undefined" with an
# accent): the characters themselves have commands of their own.
BIBTEX_REPLACEMENTS = {
    "\\": r"\textbackslash{}",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
# BibTeX counts braces even after a backslash: `\{` alone leaves a value unbalanced, and
# pybtex and bibtex-tidy reject it. Unbalanced braces are written as commands instead.
UNBALANCED_BRACES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}


def balanced(text):
    depth = 0
    for character in text:
        depth += {"{": 1, "}": -1}.get(character, 0)
        if depth < 0:
            return False
    return depth == 0


def bibtex_escape(text):
    if not BIBTEX_SPECIAL.search(text):
        return text  # nearly every title and name: no character-by-character walk
    replacements = BIBTEX_REPLACEMENTS
    if not balanced(text):
        replacements = {**BIBTEX_REPLACEMENTS, **UNBALANCED_BRACES}
    return BIBTEX_SPECIAL.sub(
        lambda match: replacements.get(match.group(1), "\\" + match.group(1)), text
    )


# Characters that would end or nest the braced value, or break the line, percent-encoded as a
# URL may carry them; a URL or DOI link then cannot close its field and add others.
BIBTEX_URL_UNSAFE = str.maketrans(
    {
        "{": "%7B",
        "}": "%7D",
        "\\": "%5C",
        '"': "%22",
        " ": "%20",
        "\n": "%0A",
        "\r": "%0D",
        "\t": "%09",
    }
)


def bibtex_url(url):
    return url.translate(BIBTEX_URL_UNSAFE)


# -- names ------------------------------------------------------------------------------------

# Name suffixes BibTeX calls the "Jr" part; written after the last name ("King, Jr., Martin").
NAME_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}


def name_parts(name):
    """A display name ("Martin Luther King Jr.", "Jan van der Berg") split into BibTeX's parts:
    first names, the "von" particle (lower-case words before the last name), last name and
    suffix. A name already written "Last, First" keeps that split; one word is a last name."""
    words = name.split()
    if len(words) == 2 and "," not in name:
        # Most names ("Ada Lovelace"): what the rules below make of two words without a comma.
        return NameParts(first=words[:1], von=[], last=words[1:], jr=[])
    name = " ".join(words)
    head, _, tail = name.rpartition(",")
    if head and "," not in head and tail.strip().lower() in NAME_SUFFIXES:
        # "Robert Smith, Jr.": a display name with its suffix, not "Last, First".
        parts = name_parts(head)
        return NameParts(first=parts.first, von=parts.von, last=parts.last, jr=[tail.strip()])
    if "," in name:
        last, _, rest = name.partition(",")
        rest = [part.strip() for part in rest.split(",")]
        jr, first = (rest[0], rest[1]) if len(rest) > 1 else ("", rest[0])
        return NameParts(first=first.split(), von=[], last=last.split(), jr=jr.split())
    words = name.split()
    jr = []
    if len(words) > 2 and words[-1].lower() in NAME_SUFFIXES:
        jr = [words.pop()]
    if len(words) < 2:
        return NameParts(first=[], von=[], last=words, jr=jr)
    # BibTeX's rule: the von part runs from the first lower-case word after the first word to
    # the last lower-case word before the last one.
    lower = [i for i, word in enumerate(words[1:-1], start=1) if word[:1].islower()]
    if lower:
        start, end = lower[0], lower[-1] + 1
        return NameParts(first=words[:start], von=words[start:end], last=words[end:], jr=jr)
    return NameParts(first=words[:-1], von=[], last=words[-1:], jr=jr)


# What makes a name need escaping word by word: a BibTeX special character, or a word "and"
# (a word of name_parts is whitespace- or comma-delimited). Nearly no name has either.
NAME_NEEDS_ESCAPING = re.compile(r"[\\{}&%$#_^~]|(?<![^\s,])and(?![^\s,])")


def bibtex_name(name):
    """A name in BibTeX's "von Last, Jr, First" order, each part escaped; the word "and" is
    braced so that it cannot split the author list."""
    parts = name_parts(name)
    if not NAME_NEEDS_ESCAPING.search(name.lower()):
        # Every word is written as it is: the layout below without a per-word pass.
        von_last = " ".join(parts.von + parts.last)
        jr, first = " ".join(parts.jr), " ".join(parts.first)
        return ", ".join(part for part in (von_last, jr, first) if part)

    def escaped(words):
        return " ".join(
            ("{" + word + "}") if word.lower() == "and" else bibtex_escape(word) for word in words
        )

    # NameParts.merge_last_name_first's layout; an escaped word never ends in a lone backslash.
    von_last = " ".join(part for part in (escaped(parts.von), escaped(parts.last)) if part)
    return ", ".join(part for part in (von_last, escaped(parts.jr), escaped(parts.first)) if part)


# -- cite keys --------------------------------------------------------------------------------


# Greek and Cyrillic letters in Latin (ELOT 743 and ISO 9 simplified), for cite keys: an author
# written in those scripts keys by their name, not "anon".
def ascii_key_part(text):
    """`text` as a cite key part: lower-case ASCII letters and digits, any script transliterated
    (anyascii: "Παπαδόπουλος" papadopoylos, "王小明" wangxiaoming), accents dropped."""
    return slugify(anyascii(text).lower())


def base_cite_key(first_author, organisation, year, title):
    """<last name of the first author (or the organisation)><year><first long title word>,
    in ASCII lower case, e.g. khatri2025scaling."""
    if first_author:
        name = " ".join(name_parts(first_author).last) or first_author
    else:
        name = organisation or "anon"
    name = re.sub(r"[^a-z0-9]", "", ascii_key_part(name)) or "anon"
    words = ascii_key_part(title).split("-")
    title_word = next((word for word in words if len(word) > 3), "paper").replace("_", "")
    return f"{name}{year or ''}{title_word}"


def key_suffix(index):
    """The suffix of the index-th paper sharing a key: none, then b, c, ..., z, 27, 28, ..."""
    if index == 0:
        return ""
    return chr(ord("a") + index) if index < 26 else str(index + 1)


def cite_key(paper):
    """The paper's cite key, the same in every export, unique across the site and stable."""
    return paper.cite_key


# What the formats below read of a paper, beside its authors: a list download loads only these.
EXPORT_FIELDS = (
    "slug",
    "cite_key",
    "title",
    "byline",
    "institution",
    "publication_date",
    "date_precision",
    "publication_type",
    "venue",
    "arxiv_id",
    "arxiv_category",
    "doi",
    "url",
    "abstract",
)


# -- BibTeX -----------------------------------------------------------------------------------


def entry_kind(paper):
    """What the exports call the paper: "article", "conference", "report", "preprint" or
    "misc", from its publication type, venue and identifiers. An article or conference paper
    needs its venue (BibTeX's required journal or booktitle), a report its institution."""
    kind = paper.publication_type
    if kind in ("article", "conference") and paper.venue:
        return kind
    if kind == "report" and (paper.institution or paper.byline):
        return "report"
    if paper.arxiv_id and kind in ("", "preprint", "article", "conference"):
        return "preprint"
    if not kind and paper.institution:
        return "report"
    return "misc"


BIBTEX_TYPES = {
    "article": "article",
    "conference": "inproceedings",
    "report": "techreport",
    "preprint": "misc",
    "misc": "misc",
}


def report_institution(paper):
    """A report's institution: the paper's, else its byline only when the byline is an
    organisation (no authors listed), never the first author's name."""
    if paper.institution:
        return paper.institution
    return "" if paper.author_names else paper.byline


def bibtex_fields(paper):
    kind = entry_kind(paper)
    names = paper.author_names
    if names:
        author = " and ".join(bibtex_name(name) for name in names)
    elif paper.byline or paper.institution:
        # An organisation as author: double braces keep BibTeX from splitting the name.
        author = "{" + bibtex_escape(paper.byline or paper.institution) + "}"
    else:
        author = ""
    parts = paper.publication_date_parts
    venue = bibtex_escape(paper.venue)
    return [
        ("title", "{" + bibtex_escape(paper.title) + "}"),
        ("author", author),
        ("journal", venue if kind == "article" else ""),
        ("booktitle", venue if kind == "conference" else ""),
        ("institution", bibtex_escape(report_institution(paper)) if kind == "report" else ""),
        ("year", str(parts[0]) if parts else ""),
        ("month", paper.publication_date.strftime("%b").lower() if len(parts) > 1 else ""),
        # biblatex's full date, where the day is known (BibTeX has no day field).
        ("date", paper.publication_date_iso if len(parts) == 3 else ""),
        ("eprint", paper.arxiv_id),
        ("archivePrefix", "arXiv" if paper.arxiv_id else ""),
        ("primaryClass", bibtex_escape(paper.arxiv_category) if paper.arxiv_id else ""),
        # Verbatim in biblatex (like url): escaping would change the DOI it links to.
        ("doi", bibtex_url(paper.doi)),
        ("url", bibtex_url(paper.url or paper.arxiv_url or paper.doi_url)),
        # As reference managers write it; on one line, a blank line being a paragraph to LaTeX.
        ("abstract", bibtex_escape(" ".join(paper.abstract.split()))),
    ]


def bibtex_entry_text(paper):
    """One entry as bibtexparser's writer lays it out (two-space indent, a trailing comma; no
    middleware: the values are escaped above), joined directly: building its Entry and Field
    objects and walking them in its writer was a third of a 1,000-entry file's time (decision
    0020). The tests compare the two byte for byte."""
    lines = ["@", BIBTEX_TYPES[entry_kind(paper)], "{", cite_key(paper), ",\n"]
    for name, value in bibtex_fields(paper):
        if value:
            # `month` takes BibTeX's bare three-letter macros; everything else is braced.
            braced = value if name == "month" else "{" + value + "}"
            lines += ("  ", name, " = ", braced, ",\n")
    lines.append("}\n")
    return "".join(lines)


def bibtex_entries(papers):
    """The papers (authors prefetched) as one BibTeX file, one entry each, keys unique (the
    stored cite keys), entries separated by a blank line."""
    return "\n".join(bibtex_entry_text(paper) for paper in papers)


def bibtex_entry(paper):
    return bibtex_entries([paper])


# -- CSL-JSON ---------------------------------------------------------------------------------

CSL_TYPES = {
    "article": "article-journal",
    "conference": "paper-conference",
    "report": "report",
    "preprint": "article",  # CSL's type for preprints and working papers
    "misc": "article",
}


def csl_name(name):
    parts = name_parts(name)
    if not parts.first and not parts.von and not parts.jr:
        return {"literal": " ".join(parts.last)}
    person = {"family": " ".join(parts.last), "given": " ".join(parts.first)}
    if parts.von:
        person["non-dropping-particle"] = " ".join(parts.von)
    if parts.jr:
        person["suffix"] = " ".join(parts.jr)
    return person


def csl_item(paper):
    """The paper as a CSL-JSON item (CSL 1.0.2 types and variables)."""
    kind = entry_kind(paper)
    names = paper.author_names
    authors = [csl_name(name) for name in names]
    if not authors and (paper.byline or paper.institution):
        authors = [{"literal": paper.byline or paper.institution}]
    parts = paper.publication_date_parts
    item = {
        "id": cite_key(paper),
        "type": CSL_TYPES[kind],
        "title": paper.title,
        "author": authors,
        "issued": {"date-parts": [parts]} if parts else None,
        "container-title": paper.venue if kind in ("article", "conference") else "",
        "publisher": report_institution(paper) if kind == "report" else "",
        "DOI": paper.doi,
        "URL": paper.url or paper.arxiv_url or paper.doi_url,
        "number": f"arXiv:{paper.arxiv_id}" if kind == "preprint" else "",
        "archive": "arXiv" if paper.arxiv_id else "",
        # A preprint's `number` carries the id already: with both, APA prints it twice.
        "archive_location": paper.arxiv_id if kind != "preprint" else "",
        "abstract": paper.abstract,
    }
    return {key: value for key, value in item.items() if value not in ("", [], None)}


def csl_items(papers):
    return [csl_item(paper) for paper in papers]


# -- RIS --------------------------------------------------------------------------------------

RIS_TYPES = {
    "article": "JOUR",
    "conference": "CPAPER",
    "report": "RPRT",
    "preprint": "UNPB",
    "misc": "GEN",
}


def ris_name(name):
    """A name in RIS's order: "von Last, First, Suffix" (BibTeX puts the suffix second)."""
    parts = name_parts(name)
    last = " ".join([*parts.von, *parts.last])
    return ", ".join(part for part in (last, " ".join(parts.first), " ".join(parts.jr)) if part)


# rispy's own tables: the tag of each of its keys, and the tags written once per list item.
RIS_TAGS = invert_dictionary(TAG_KEY_MAPPING)


def ris_record(paper):
    kind = entry_kind(paper)
    names = paper.author_names
    authors = [ris_name(name) for name in names]
    if not authors and (paper.byline or paper.institution):
        authors = [paper.byline or paper.institution]
    parts = paper.publication_date_parts
    record = {
        "type_of_reference": RIS_TYPES[kind],
        "id": cite_key(paper),
        "title": paper.title,
        "authors": authors,
        "year": str(parts[0]) if parts else "",
        "date": "/".join(f"{part:02d}" for part in parts) if parts else "",
        "secondary_title": paper.venue if kind in ("article", "conference") else "",
        "publisher": report_institution(paper) if kind == "report" else "",
        "doi": paper.doi,
        "urls": list(
            dict.fromkeys(link for link in (paper.url, paper.arxiv_url, paper.doi_url) if link)
        ),
        "abstract": " ".join(paper.abstract.split()),
        "notes": [f"arXiv:{paper.arxiv_id}"] if paper.arxiv_id else [],
    }
    # RIS is line-based: a value never carries a line break into the next tag.
    return {
        key: (
            [" ".join(v.split()) for v in value]
            if isinstance(value, list)
            else " ".join(value.split())
        )
        for key, value in record.items()
        if value not in ("", [], None)
    }


def ris_record_text(record):
    """One record (a dict of ris_record) as rispy's writer lays it out, starting with its
    `TY  -` line (rispy's default numbers the records) and joined directly: its generator
    of lines per record was a third of a 1,000-record file's time (decision 0020). The tests
    compare the two byte for byte."""
    lines = [f"TY  - {record['type_of_reference']}"]
    for key, value in record.items():
        tag = RIS_TAGS[key]
        if tag in LIST_TYPE_TAGS:
            lines += [f"{tag}  - {item}" for item in value]
        elif key != "type_of_reference":
            lines.append(f"{tag}  - {value}")
    lines.append("ER  - ")
    return "\n".join(lines)


def ris_records(papers):
    """The papers as one RIS file, records separated by a blank line."""
    records = [ris_record_text(ris_record(paper)) for paper in papers]
    return "\n\n".join(records) + "\n" if records else ""
