"""The dry run: match records to papers by identifiers, and say what applying would do."""

import dataclasses
import re

from django.db.models import Q

from citations.identifiers import merged_arxiv_versions
from citations.identity import identifiers_of, papers_with_identifiers
from citations.importers.records import normalised_title
from citations.importers.wording import counts_in_words, plural
from citations.models import Author, CitationSource, Paper

# Edges an import may classify further; an editor's (or an author's) classification stays.
IMPORTED = set(CitationSource.imported())

PLACEHOLDER_PREFIX = "arXiv:"  # the title of a paper known only by its arXiv id, until filled
FILLABLE_FIELDS = (
    "abstract",
    "institution",
    "url",
    "venue",
    "publication_type",
    "arxiv_category",
)


# Record fields written to a Paper column, and their limits (the column's max_length).
FITTED_FIELDS = ("title", "institution", "venue", "arxiv_category", "url")


def fit_to_columns(record):
    """Make `record` fit the database, saying what was changed: {field: note}. A text longer
    than its column is cut (a 639-character title to 500); a URL that long is left out, as a
    cut one would lead nowhere; an author's name is cut to the authors' column. Never silent:
    the notes go into the dry run's report for the record."""
    without_preprint_venue(record)
    notes = {}
    for name in FITTED_FIELDS:
        value, limit = getattr(record, name), Paper._meta.get_field(name).max_length
        if len(value) <= limit:
            continue
        label = Paper._meta.get_field(name).verbose_name
        if name == "url":
            setattr(record, name, "")
            notes[name] = f"{label} of {len(value)} characters left out (at most {limit})"
        else:
            setattr(record, name, value[:limit])
            notes[name] = f"{label} cut from {len(value)} to {limit} characters"
    limit = Author._meta.get_field("name").max_length
    long_names = [name for name in record.authors if len(name) > limit]
    if long_names:
        record.authors = [name[:limit] for name in record.authors]
        notes["authors"] = (
            f"{len(long_names)} author name(s) cut to {limit} characters "
            f"(the longest had {max(map(len, long_names))})"
        )
    return notes


# A "venue" that only restates that the paper is an arXiv preprint (Google Scholar's
# "arXiv preprint arXiv:1707.06347", "CoRR", "arXiv e-prints"): the arXiv id says it already.
PREPRINT_VENUE = re.compile(r"^\s*(arxiv|corr)\b.*$|^\s*preprint\b", re.IGNORECASE)


def without_preprint_venue(record):
    """Leave out a venue that is only the arXiv id, saying so: it is never a paper's venue,
    and must not take the place of an editor's (or of none)."""
    if record.venue and PREPRINT_VENUE.match(record.venue):
        record.notes.append(f"venue {record.venue!r} only names arXiv: left out")
        record.venue = ""


@dataclasses.dataclass
class PaperStep:
    """What applying does for one paper of the file (its records in the file merged)."""

    action: str  # create, update, merge, skip
    record: object
    reason: str
    paper: Paper | None = None  # the existing paper it lands on
    merge_from: list = dataclasses.field(default_factory=list)  # papers merged into `paper`
    changes: dict = dataclasses.field(default_factory=dict)  # field -> new value
    new_identifiers: list = dataclasses.field(default_factory=list)  # (scheme, value)
    duplicates: list = dataclasses.field(default_factory=list)  # `where` of merged records
    cuts: list = dataclasses.field(default_factory=list)  # what had to change to fit, in words
    before: dict = dataclasses.field(default_factory=dict)  # field -> the paper's value now

    def line(self):
        label = f"{self.action:<7} {self.record.where}: {self.record.title or '(no title)'!r}"
        reason = "; ".join([self.reason, *self.cuts]) if self.reason else "; ".join(self.cuts)
        changed = [
            f"        {field}: {shown(self.before.get(field))} → {shown(value)}"
            for field, value in sorted(self.changes.items())
        ]
        return "\n".join([f"{label} ({reason})", *changed])

    def changed(self):
        """{field: {"from": the paper's value, "to": the record's}}, for the JSON report."""
        return {
            field: {"from": plain(self.before.get(field)), "to": plain(value)}
            for field, value in sorted(self.changes.items())
        }


def plain(value):
    """A value as JSON holds it (a date as ISO 8601)."""
    return value.isoformat() if hasattr(value, "isoformat") else value


def shown(value):
    """A value in the dry run's text: quoted, a long one cut, a list joined."""
    if isinstance(value, list | tuple):
        value = "; ".join(map(str, value))
    text = str(plain(value)) if value not in (None, "") else ""
    return repr(text if len(text) <= 80 else text[:77] + "...")


@dataclasses.dataclass
class EdgeStep:
    action: str  # create, pending, skip
    citing: PaperStep | None
    cited: PaperStep | None
    reference: object
    source: str
    reason: str
    owner: PaperStep | None = None  # for pending edges: the end that is here

    def line(self):
        def name(step):
            return repr(step.record.title) if step else "(not here yet)"

        return f"{self.action:<7} edge {name(self.citing)} → {name(self.cited)} ({self.reason})"


@dataclasses.dataclass
class Plan:
    papers: list
    edges: list
    publish: bool = False

    def counts(self):
        counts = {}
        for step in [*self.papers, *self.edges]:
            key = step.action if isinstance(step, PaperStep) else f"edge {step.action}"
            counts[key] = counts.get(key, 0) + 1
        return counts

    def report(self, applied=False):
        """The dry run's text (or, `applied`, what was done): a summary, then a line a step."""
        papers, edges = plural(len(self.papers), "paper"), plural(len(self.edges), "edge")
        lines = [f"{papers}, {edges}: {counts_in_words(self.counts(), applied)}"]
        lines += [step.line() for step in self.papers]
        for step in self.papers:
            lines += [
                f"        (duplicate in the file: {where}, merged)" for where in step.duplicates
            ]
        lines += [step.line() for step in self.edges]
        return "\n".join(lines)

    def as_dict(self):
        return {
            "counts": self.counts(),
            "papers": [
                {
                    "action": s.action,
                    "record": s.record.where,
                    "title": s.record.title,
                    "reason": s.reason,
                    "paper": s.paper.slug if s.paper else None,
                    "merge_from": [p.slug for p in s.merge_from],
                    "changes": sorted(s.changes),
                    "changed": s.changed(),
                    "identifiers": dict(s.record.identifiers),
                    "duplicates_in_file": s.duplicates,
                    "cut": s.cuts,
                }
                for s in self.papers
            ],
            "edges": [
                {
                    "action": e.action,
                    "citing": e.citing.record.title if e.citing else None,
                    "cited": e.cited.record.title if e.cited else None,
                    "reason": e.reason,
                }
                for e in self.edges
            ],
        }

    def apply(self):
        from citations.importers.apply import apply_plan

        return apply_plan(self)


def merge_duplicates(records):
    """Records naming the same paper (a shared identifier; or, without identifiers, the same
    title) merged into the first of them. Returns [(record, [wheres of merged duplicates])]."""
    parent = list(range(len(records)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen = {}
    for i, record in enumerate(records):
        keys = [(s, v) for s, v in record.identifiers.items()] or [("title", record.title_key)]
        for key in keys:
            if key in seen:
                parent[find(i)] = find(seen[key])
            else:
                seen[key] = i
    groups = {}
    for i in range(len(records)):
        groups.setdefault(find(i), []).append(i)
    merged = []
    for members in sorted(groups.values()):
        first = records[members[0]]
        for other in members[1:]:
            first.absorb(records[other])
        first.authors = list(dict.fromkeys(first.authors))  # a name listed twice is one author
        merged.append((first, [records[i].where for i in members[1:]]))
    return merged


def match_papers(record):
    """Existing papers the record names: by identifier, else by the same title (and year)."""
    papers = list(papers_with_identifiers(record.identifiers).order_by("pk"))
    if papers or not record.title:
        return papers, "identifiers"
    paper = title_match(record, Paper.objects.filter(title__iexact=record.title).order_by("pk"))
    return ([paper], "title") if paper else ([], "")


def title_match(record, candidates):
    """The first of `candidates` (papers with the record's title, any case) that is the same
    paper: same normalised title and year, and no identifier of the same kind differing."""
    for paper in candidates:
        # A placeholder date's year is no year to compare (citations/dates.py).
        same_year = not (paper.known_publication_year and record.year) or (
            paper.known_publication_year == record.year
        )
        if normalised_title(paper.title) == record.title_key and same_year:
            # Only when no identifier of the same kind says they are different papers.
            theirs = dict(identifiers_of(paper))
            if all(theirs.get(s, v) == v for s, v in record.identifiers.items()):
                return paper
    return None


def changes_for(paper, record):
    """What the record adds to an existing paper: empty fields filled, never editors' text
    replaced; authors only when the paper has none."""
    changes = {}
    if paper.title.startswith(PLACEHOLDER_PREFIX) and record.title:
        changes["title"] = record.title
    for field in FILLABLE_FIELDS:
        value = getattr(record, field)
        if value and not getattr(paper, field):
            changes[field] = value
    changes |= date_changes(paper, record)
    versions = merged_arxiv_versions(paper.arxiv_versions, record.arxiv_versions)
    if versions != merged_arxiv_versions(paper.arxiv_versions):
        changes["arxiv_versions"] = versions
    current = paper.author_names
    if record.authors and fuller_author_list(record.authors, current):
        changes["authors"] = list(record.authors)
        if not paper.byline:
            changes["byline"] = record.authors[0]
    # Imports make drafts; a draft named as a file's own paper (not only as the other end of
    # an edge) joins the research index, whichever file came first.
    if record.in_research_index and not paper.in_research_index and paper.status == "draft":
        changes["in_research_index"] = True
    return changes


# How much of a date each precision knows: a source's date replaces a paper's only when it
# knows more, and agrees with what the paper's date already knows.
KNOWN_PARTS = {"unknown": 0, "": 0, "year": 1, "month": 2, "day": 3}


def date_changes(paper, record):
    """The record's date where it is better than the paper's: none or a placeholder filled, a
    year refined to its month or day; never a known date replaced by a vaguer or another one."""
    if record.publication_date is None:
        return {}
    known = KNOWN_PARTS.get(paper.date_precision, 0) if paper.publication_date else 0
    offered = KNOWN_PARTS[record.date_precision or "day"]
    if offered <= known:
        return {}
    mine = paper.publication_date_parts[:known]
    theirs = [record.publication_date.year, record.publication_date.month]
    theirs.append(record.publication_date.day)
    if mine != theirs[:known]:
        return {}  # it contradicts what the editor knows: the editor's date stays
    return {
        "publication_date": record.publication_date,
        "date_precision": record.date_precision or "day",
    }


def fuller_author_list(new, current):
    """True when `new` lists more authors and keeps every current one, in order: a truncated
    list ("et al.") is completed, an editor's different list is never replaced."""
    if len(new) <= len(current):
        return False
    remaining = iter(new)
    return all(name in remaining for name in current)


def new_identifiers_for(paper, record, others=()):
    have = identifiers_of(paper)
    for other in others:
        have |= identifiers_of(other)
    return [(s, v) for s, v in record.identifiers.items() if (s, v) not in have]


def make_plan(records, publish=False):
    """The dry run for `records` (from one or more files): nothing is written."""
    steps = []
    for record, duplicates in merge_duplicates(records):
        cuts = fit_to_columns(record)
        papers, matched_by = match_papers(record)
        steps.append(paper_step(record, papers, matched_by, publish, duplicates, cuts))
    return Plan(papers=steps, edges=plan_edges(steps), publish=publish)


def paper_step(record, papers, matched_by, publish=False, duplicates=(), cuts=None):
    """What applying does for a record, given the existing papers it names (see match_papers)
    and what fit_to_columns changed in it: create one, update or merge them, or skip."""
    if not papers:
        reason = "new paper, " + ("published" if publish else "draft")
        if not record.title:
            record.title = f"{PLACEHOLDER_PREFIX}{record.identifiers.get('arxiv', '')}"
            reason += "; only its arXiv id is known: import its metadata to fill it in"
        step = PaperStep("create", record, reason)
    else:
        keep, *others = papers
        step = PaperStep("update", record, "", paper=keep, merge_from=others)
        step.changes = changes_for(keep, record)
        step.before = values_before(keep, step.changes)
        step.new_identifiers = new_identifiers_for(keep, record, others)
        if others:
            step.action = "merge"
            step.reason = "names papers " + ", ".join(p.slug for p in papers) + ": merged"
            step.reason += f" into {keep.slug}"
        elif step.changes or step.new_identifiers:
            added = sorted(step.changes) + [s for s, _ in step.new_identifiers]
            step.reason = f"matches {keep.slug} by {matched_by}; adds " + ", ".join(added)
        else:
            step.action = "skip"
            step.reason = f"matches {keep.slug} by {matched_by}; nothing new"
    step.duplicates = list(duplicates)
    # Only what is written is reported: a new paper's every field, an existing one's changes.
    cuts = cuts or {}
    written = cuts if step.action == "create" else {}
    if step.action in ("update", "merge"):
        written = {name: note for name, note in cuts.items() if name in step.changes}
    # What the parser left out is said whatever the action.
    step.cuts = list(written.values()) + list(record.notes)
    return step


def values_before(paper, changes):
    """The paper's current value of each field the record changes."""
    return {
        field: paper.author_names if field == "authors" else getattr(paper, field)
        for field in changes
    }


def plan_edges(steps):
    """Edges the records declare: between papers of the file or already here; pending when the
    other paper is not here yet."""
    by_identifier = {}
    for step in steps:
        for scheme, value in step.record.identifiers.items():
            by_identifier.setdefault((scheme, value), step)
    wanted = {}
    for step in steps:
        for reference in step.record.references:
            other = next(
                (by_identifier[k] for k in reference.identifiers.items() if k in by_identifier),
                None,
            )
            if other is None:
                paper = papers_with_identifiers(reference.identifiers).order_by("pk").first()
                other = paper and PaperStep("skip", existing_record(paper), "", paper=paper)
            ends = (step, other) if reference.direction == "cites" else (other, step)
            key = (id(step), reference.direction, tuple(sorted(reference.identifiers.items())))
            wanted.setdefault(key, (ends, reference, step))
    edges, planned = [], set()
    existing = existing_edges(steps)
    for (citing, cited), reference, owner in wanted.values():
        pair = (id(citing), id(cited)) if citing and cited else None
        if pair in planned:
            continue  # declared from both ends (a reference here, a citation there)
        if pair:
            planned.add(pair)
        source = "semantic_scholar" if owner.record.source == "s2" else owner.record.source
        if citing is None or cited is None:
            if owner.paper and pending_exists(owner.paper, reference):
                edges.append(EdgeStep("skip", citing, cited, reference, source, "already waiting"))
                continue
            edges.append(
                EdgeStep(
                    "pending",
                    citing,
                    cited,
                    reference,
                    source,
                    "waits for the other paper",
                    owner=owner,
                )
            )
        elif citing is cited or (citing.paper and citing.paper == cited.paper):
            reason = "a paper citing itself"
            edges.append(EdgeStep("skip", citing, cited, reference, source, reason))
        elif citing.paper and cited.paper and (citing.paper.pk, cited.paper.pk) in existing:
            edge = existing[(citing.paper.pk, cited.paper.pk)]
            if reference.role and edge["role"] is None and edge["source"] in IMPORTED:
                reason = f"classifies an unclassified imported edge ({reference.role})"
                edges.append(EdgeStep("update", citing, cited, reference, source, reason))
            else:
                edges.append(EdgeStep("skip", citing, cited, reference, source, "already here"))
        else:
            edges.append(EdgeStep("create", citing, cited, reference, source, "new edge"))
    return edges


def existing_edges(steps):
    from citations.models import Citation

    pks = [s.paper.pk for s in steps if s.paper]
    if not pks:
        return {}
    edges = Citation.objects.filter(Q(citing_paper__in=pks) | Q(cited_paper__in=pks)).values(
        "citing_paper", "cited_paper", "role", "source"
    )
    return {(e["citing_paper"], e["cited_paper"]): e for e in edges}


def existing_record(paper):
    from citations.importers.records import PaperRecord

    return PaperRecord(where=f"paper {paper.slug}", source="site", title=paper.title)


def pending_exists(paper, reference):
    from citations.identity import PendingCitation

    q = Q()
    for scheme, value in reference.identifiers.items():
        q |= Q(scheme=scheme, value=value)
    return PendingCitation.objects.filter(q, paper=paper, direction=reference.direction).exists()
