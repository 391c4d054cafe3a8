"""Load the demo content (web/demo/*.toml) into the database without undoing editors' work.

Rows are matched on their natural key (a slug, or the pair of paper slugs of a citation).
By default the loader only adds what is missing: a demo row that exists is left exactly as it
is, with its tags, layers, authors and steps (an editor may have changed any of them),
and a row whose history shows it existed (an editor deleted it or changed its key) is not
brought back. So an empty database gets the whole set, and running it again writes nothing.
`reset=True` puts every demo row back to its demo values (and re-creates deleted ones); rows
that are not part of the demo are never touched. `preview()` says what a load would change.
"""

import datetime
import tomllib
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from bottlenecks.models import Analysis, AnalysisStep, Dimension, Layer, LoopStage
from citations.dates import DatePrecision, known_date
from citations.models import (
    Author,
    Authorship,
    Citation,
    CitationPolarity,
    CitationRole,
    CitationSource,
    Paper,
)
from discovery.bulk import refresh_all as refresh_all_neighbours
from evidence.models import (
    Claim,
    DiscriminatingTest,
    FailureSignal,
    SignalLayer,
    TestOutcome,
    placeholder_error,
)
from notes.models import CommunityPost, GuideSection, Question, ResearchNote
from publishing.models import Status
from results.demo import load_results
from tags.models import Tag

DEMO_DIR = Path(__file__).resolve().parent / "demo"


def pick(rows_by_slug, slugs):
    """The rows with these slugs that exist (an editor may have deleted some)."""
    return [rows_by_slug[slug] for slug in slugs if slug in rows_by_slug]


def check_reported_on(row, papers):
    """A claim's `reported_on` is the source's date: never the placeholder of a paper whose
    date is not known (which would show that placeholder on every claim card as a fact). The
    rule is the claim's own (`Claim.placeholder_papers`), as in the admin."""
    claim = Claim(reported_on=row.get("reported_on"))
    chosen = [papers[slug] for slug in row.get("papers", []) if slug in papers]
    placeholders = claim.placeholder_papers(chosen)
    if placeholders:
        reason = placeholder_error(claim.reported_on, placeholders)
        raise ValueError(f"Claim {row['slug']!r}: {reason}")


class _Rollback(Exception):
    pass


class DemoLoader:
    def __init__(self, directory=DEMO_DIR, reset=False):
        self.directory = Path(directory)
        self.reset = reset
        self.added = []  # labels of the rows created
        self.overwritten = {}  # label -> the fields (or relations) set back to the demo values
        self.not_restored = []  # labels of demo rows editors deleted or re-keyed
        self._created = set()
        self._has_history = {}

    @property
    def changed(self):
        return len(self.added) + len(self.overwritten)

    def preview(self):
        """Run the load in a transaction that is rolled back: what `load()` would change."""
        try:
            with transaction.atomic():
                self.load()
                raise _Rollback
        except _Rollback:
            pass
        return self

    def read(self, name):
        with open(self.directory / name, "rb") as handle:
            return tomllib.load(handle)

    @transaction.atomic
    def load(self):
        framework = self.read("framework.toml")
        papers = self.read("papers.toml")
        citations = self.read("citations.toml")
        notes = self.read("notes.toml")
        self.load_framework(framework)
        self.load_papers(papers["papers"])
        self.load_citations(citations)
        self.load_notes(notes)
        self.load_evidence(self.read("evidence.toml"))
        self.load_tags(self.read("tags.toml"))
        claims = {claim.slug: claim for claim in Claim.objects.all()}
        load_results(self, self.read("results.toml"), claims)
        refresh_all_neighbours()  # the hubs' similar papers, prior and derivative works
        return self.changed

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def label(model, lookup):
        key = " / ".join(str(getattr(value, "slug", value)) for value in lookup.values())
        return f"{model._meta.verbose_name} {key}"

    def upsert(self, model, lookup, values, created_with=None):
        """Create a missing row; on reset, also set back the fields whose values differ.
        None when the row is missing because an editor deleted it (or changed its key).
        Rows go through model validation, as the admin's do: identifiers are normalised and
        bad values refused. `created_with`: attributes a new row is saved with besides its
        fields."""
        obj = model.objects.filter(**lookup).first()
        if obj is None:
            if not self.reset and self.removed_by_editor(model, lookup):
                self.not_restored.append(self.label(model, lookup))
                return None
            obj = model(**lookup, **values)
            for name, value in (created_with or {}).items():
                setattr(obj, name, value)
            obj.full_clean()
            obj.save()
            self._created.add((model, obj.pk))
            self.added.append(self.label(model, lookup))
            return obj
        if self.reset:
            stored = {field: getattr(obj, field) for field in values}
            for field, value in values.items():
                setattr(obj, field, value)
            obj.full_clean()  # normalised before comparing, so a second reset changes nothing
            changed = [field for field in values if getattr(obj, field) != stored[field]]
            if changed:
                obj.save()
                self.record(obj, changed)
        return obj

    def removed_by_editor(self, model, lookup):
        history = getattr(model, "history", None)
        if history is None:
            return False
        if model not in self._has_history:  # an empty database: one query per table
            self._has_history[model] = history.exists()
        return self._has_history[model] and history.filter(**lookup).exists()

    def owns_parts(self, obj):
        """Relations and child rows are written with their row: when it was just created, or on
        reset; an existing row keeps the ones editors gave it."""
        return obj is not None and (self.reset or (type(obj), obj.pk) in self._created)

    def record(self, obj, fields):
        label = f"{obj._meta.verbose_name} {getattr(obj, 'slug', obj)}"
        if (type(obj), obj.pk) not in self._created:
            self.overwritten.setdefault(label, []).extend(fields)

    def set_related(self, obj, name, objects):
        manager = getattr(obj, name)
        if set(manager.all()) != set(objects):
            manager.set(objects)
            self.record(obj, [name])

    def set_tags(self, obj, names):
        if {tag.name.lower() for tag in obj.tags.all()} != {name.lower() for name in names}:
            obj.tags.set(names, clear=True)
            self.record(obj, ["tags"])

    @staticmethod
    def publishing(row, published_on=None):
        status = row.get("status", Status.PUBLISHED)
        values = {"status": status}
        date = row.get("published_at", published_on)
        if isinstance(date, datetime.datetime):
            values["published_at"] = date if timezone.is_aware(date) else timezone.make_aware(date)
        elif isinstance(date, datetime.date):
            values["published_at"] = datetime.datetime(
                date.year, date.month, date.day, 12, tzinfo=datetime.UTC
            )
        return values

    # -- tables ----------------------------------------------------------------------------

    def load_framework(self, data):
        for row in data["sections"]:
            values = {field: row.get(field, "") for field in ["number", "eyebrow", "intro"]}
            values |= {"heading": row["heading"], "footnote": row.get("footnote", "")}
            self.upsert(GuideSection, {"key": row["key"]}, values | {"order": row["order"]})
        for model, rows in [(Dimension, data["dimensions"]), (LoopStage, data["loop_stages"])]:
            for row in rows:
                self.upsert(
                    model,
                    {"slug": row["slug"]},
                    {
                        "name": row["name"],
                        "description": row.get("description", ""),
                        "order": row["order"],
                        **self.publishing(row),
                    },
                )
        for row in data["layers"]:
            self.upsert(
                Layer,
                {"slug": row["slug"]},
                {
                    "name": row["name"],
                    "description": row.get("description", ""),
                    "failure_signal": row["failure_signal"],
                    "diagnostic_question": row["diagnostic_question"],
                    "order": row["order"],
                    **self.publishing(row),
                },
            )
        row = data["analysis"]
        analysis = self.upsert(
            Analysis,
            {"slug": row["slug"]},
            {field: row.get(field, "") for field in ["title", "eyebrow", "number", "dek", "body"]}
            | self.publishing(row),
        )
        for step in row.get("steps", []) if self.owns_parts(analysis) else []:
            self.upsert(
                AnalysisStep,
                {"analysis": analysis, "order": step["order"]},
                {"title": step["title"], "body": step.get("body", "")},
            )

    def load_papers(self, rows):
        layers = {layer.slug: layer for layer in Layer.objects.all()}
        for row in rows:
            text_fields = ["title", "byline", "institution", "arxiv_id", "doi", "url", "code_url"]
            values = {field: row.get(field, "") for field in text_fields}
            values |= {
                "abstract": row.get("abstract", ""),
                "summary": row.get("summary", ""),
                "publication_date": row.get("publication_date"),
                "date_precision": row.get("date_precision", "day"),
                "is_canonical_reference": row.get("is_canonical_reference", False),
                "in_research_index": row.get("in_research_index", False),
            }
            # A placeholder date (precision "unknown") is no date: not the site's either.
            known = known_date(row.get("publication_date"), values["date_precision"])
            values |= self.publishing(row, published_on=known)
            authors = row.get("authors", [])
            # Its cite key is assigned on its first save, from the first author added next.
            first_author = {"cite_key_author": authors[0]} if authors else None
            paper = self.upsert(Paper, {"slug": row["slug"]}, values, created_with=first_author)
            if self.owns_parts(paper):
                self.set_authors(paper, authors)
                self.set_related(paper, "layers", pick(layers, row.get("layers", [])))
                self.set_tags(paper, row.get("tags", []))

    def set_authors(self, paper, names):
        if paper.author_names == names:
            return
        paper.authorships.all().delete()
        for position, name in enumerate(names):
            author, _ = Author.objects.get_or_create(name=name)
            Authorship.objects.create(paper=paper, author=author, position=position)
        paper.forget_authorships()
        self.record(paper, ["authors"])

    def load_citations(self, data):
        for model, rows in [(CitationRole, data["roles"]), (CitationPolarity, data["polarities"])]:
            for row in rows:
                self.upsert(
                    model,
                    {"slug": row["slug"]},
                    {
                        "name": row["name"],
                        "description": row.get("description", ""),
                        "order": row.get("order", 0),
                    },
                )
        papers = {paper.slug: paper for paper in Paper.objects.all()}
        roles = {role.slug: role for role in CitationRole.objects.all()}
        polarities = {polarity.slug: polarity for polarity in CitationPolarity.objects.all()}
        rows = data["citations"]
        if self.reset:  # flags cleared before others are set: a hub has at most 6 at any time
            rows = sorted(rows, key=lambda row: row.get("is_representative", False))
        for row in rows:
            if row["citing"] not in papers or row["cited"] not in papers:
                continue  # an editor deleted one of the papers
            role = roles.get(row.get("role", ""))
            polarity = polarities.get(row.get("polarity", ""))
            self.upsert(
                Citation,
                {"citing_paper": papers[row["citing"]], "cited_paper": papers[row["cited"]]},
                {
                    "role": role,
                    "polarity": polarity,
                    # The seed's classifications are Pith's, undated; an edge it leaves
                    # unclassified has no classifier.
                    "source": CitationSource.PITH if role or polarity else CitationSource.NONE,
                    "classified_at": None,
                    "confidence": None,
                    "context": row.get("context", ""),
                    "is_representative": row.get("is_representative", False),
                    "representative_reason": row.get("representative_reason", ""),
                    **self.publishing(row, published_on=datetime.date(2026, 11, 1)),
                },
            )

    def load_notes(self, data):
        papers = {paper.slug: paper for paper in Paper.objects.all()}
        layers = {layer.slug: layer for layer in Layer.objects.all()}
        for row in data["notes"]:
            text_fields = ["title", "dek", "body", "why_it_matters", "caveat"]
            values = {field: row.get(field, "") for field in text_fields}
            values["is_featured"] = row.get("is_featured", False)
            note = self.upsert(ResearchNote, {"slug": row["slug"]}, values | self.publishing(row))
            if not self.owns_parts(note):
                continue
            self.set_related(note, "papers", pick(papers, row.get("papers", [])))
            self.set_related(note, "layers", pick(layers, row.get("layers", [])))
            self.set_tags(note, row.get("tags", []))
        for row in data["community_posts"]:
            fields = ["title", "author", "source", "url", "summary"]
            values = {field: row.get(field, "") for field in fields}
            values |= {"year": row.get("year"), "order": row.get("order", 0)}
            self.upsert(CommunityPost, {"slug": row["slug"]}, values | self.publishing(row))
        for row in data["questions"]:
            self.upsert(
                Question,
                {"kind": row["kind"], "question": row["question"]},
                {"answer": row["answer"], "order": row["order"], **self.publishing(row)},
            )

    def load_tags(self, data):
        """Display names and descriptions of the tags the demo rows carry (created with their
        rows): written while an editor has set neither, or on reset."""
        for row in data["tags"]:
            tag = Tag.objects.filter(name__iexact=row["name"]).first()
            if tag is None or not (self.reset or (not tag.display_name and not tag.description)):
                continue
            values = {"display_name": row["display_name"], "description": row["description"]}
            changed = [field for field, value in values.items() if getattr(tag, field) != value]
            if changed:
                for field in changed:
                    setattr(tag, field, values[field])
                tag.save(update_fields=changed)
                if self.reset:
                    self.record(tag, changed)

    def load_evidence(self, data):
        """Claims, failure signals (with their layer weights) and discriminating tests."""
        papers = {paper.slug: paper for paper in Paper.objects.all()}
        layers = {layer.slug: layer for layer in Layer.objects.all()}
        notes = {note.slug: note for note in ResearchNote.objects.all()}
        text_fields = ["figure", "unit", "direction", "model_size", "task_family"]
        text_fields += ["reward_type", "budget", "setup", "reproduced_by", "reproduction_url"]
        for row in data["claims"]:
            check_reported_on(row, papers)
            values = {field: row.get(field, "") for field in text_fields}
            values |= {
                "statement": row["statement"],
                "model_name": row.get("model_name", ""),
                "reported_on": row.get("reported_on"),
                "reported_on_precision": row.get("reported_on_precision", DatePrecision.DAY),
                "setup_count": row.get("setup_count"),
                "contested_by": row.get("contested_by", ""),
                "evidence_status": row["evidence_status"],
                "last_reviewed": row.get("last_reviewed"),
                "review_due": row.get("review_due"),
            }
            claim = self.upsert(Claim, {"slug": row["slug"]}, values | self.publishing(row))
            if not self.owns_parts(claim):
                continue
            self.set_related(claim, "layers", pick(layers, row.get("layers", [])))
            self.set_related(claim, "papers", pick(papers, row.get("papers", [])))
            self.set_related(claim, "notes", pick(notes, row.get("notes", [])))
        claims = {claim.slug: claim for claim in Claim.objects.all()}
        for row in data["signals"]:
            signal = self.upsert(
                FailureSignal,
                {"slug": row["slug"]},
                {
                    "text": row["text"],
                    "order": row["order"],
                    "why": " ".join(row.get("why", "").split()),
                    **self.publishing(row),
                },
            )
            if signal is not None and not signal.why and row.get("why"):
                # Written while an editor has not: a database loaded before signals had a why.
                signal.why = " ".join(row["why"].split())
                signal.save()
            if not self.owns_parts(signal):
                continue
            weights = dict.fromkeys(row.get("supporting", []), SignalLayer.Strength.SUPPORTING)
            weights |= dict.fromkeys(row.get("primary", []), SignalLayer.Strength.PRIMARY)
            weights = {slug: strength for slug, strength in weights.items() if slug in layers}
            stored = {link.layer.slug: link.strength for link in signal.links.all()}
            if stored != weights:
                signal.links.all().delete()
                for slug, strength in weights.items():
                    SignalLayer.objects.create(signal=signal, layer=layers[slug], strength=strength)
                self.record(signal, ["layers"])
        signals = {signal.slug: signal for signal in FailureSignal.objects.all()}
        for row in data["tests"]:
            test = self.upsert(
                DiscriminatingTest,
                {"slug": row["slug"]},
                {
                    "title": row["title"],
                    "procedure": row["procedure"],
                    "interpretation": row["interpretation"],
                    "cost": row["cost"],
                    **self.publishing(row),
                },
            )
            if not self.owns_parts(test):
                continue
            self.set_related(test, "layers", pick(layers, row["layers"]))
            self.set_related(test, "claims", pick(claims, row.get("claims", [])))
            self.set_related(test, "papers", pick(papers, row.get("papers", [])))
            self.set_related(test, "signals", pick(signals, row.get("signals", [])))
            outcomes = [
                (layers[o["layer"]].pk if o.get("layer") else None, o["if"], o["then"])
                for o in row.get("outcomes", [])
                if not o.get("layer") or o["layer"] in layers
            ]
            stored = [(o.layer_id, o.observation, o.action) for o in test.outcomes.all()]
            if stored != outcomes:
                test.outcomes.all().delete()
                for order, (layer_id, observation, action) in enumerate(outcomes):
                    TestOutcome.objects.create(
                        test=test,
                        layer_id=layer_id,
                        observation=observation,
                        action=action,
                        order=order,
                    )
                self.record(test, ["outcomes"])
