"""Load the demo content (rlscaling/demo/*.toml) into the database, idempotently.

Rows are matched on their natural key (a slug, or the pair of paper slugs of a citation) and
saved only when a value differs, so a second run writes nothing: no new versions, no history.
"""

import datetime
import tomllib
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from bottlenecks.models import Analysis, AnalysisStep, Dimension, Layer, LoopStage
from citations.models import Author, Authorship, Citation, CitationPolarity, CitationRole, Paper
from notes.models import CommunityPost, GuideSection, Question, ReportedFigure, ResearchNote
from rlscaling.publishing import Status

DEMO_DIR = Path(__file__).resolve().parent / "demo"


class DemoLoader:
    def __init__(self, directory=DEMO_DIR):
        self.directory = Path(directory)
        self.changed = 0

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
        return self.changed

    # -- helpers ---------------------------------------------------------------------------

    def upsert(self, model, lookup, values):
        """Create the row, or update only the fields whose values differ."""
        obj = model.objects.filter(**lookup).first()
        if obj is None:
            obj = model(**lookup, **values)
            obj.save()
            self.changed += 1
            return obj
        changed = [field for field, value in values.items() if getattr(obj, field) != value]
        if changed:
            for field in changed:
                setattr(obj, field, values[field])
            obj.save()
            self.changed += 1
        return obj

    def set_related(self, manager, objects):
        if set(manager.all()) != set(objects):
            manager.set(objects)
            self.changed += 1

    def set_tags(self, obj, names):
        if {tag.name.lower() for tag in obj.tags.all()} != {name.lower() for name in names}:
            obj.tags.set(names, clear=True)
            self.changed += 1

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
        for step in row.get("steps", []):
            self.upsert(
                AnalysisStep,
                {"analysis": analysis, "order": step["order"]},
                {"title": step["title"], "body": step.get("body", "")},
            )

    def load_papers(self, rows):
        layers = {layer.slug: layer for layer in Layer.objects.all()}
        for row in rows:
            text_fields = ["title", "byline", "institution", "arxiv_id", "doi", "url"]
            values = {field: row.get(field, "") for field in text_fields}
            values |= {
                "abstract": row.get("abstract", ""),
                "summary": row.get("summary", ""),
                "publication_date": row.get("publication_date"),
                "is_canonical_reference": row.get("is_canonical_reference", False),
                "in_research_index": row.get("in_research_index", False),
            }
            values |= self.publishing(row, published_on=row.get("publication_date"))
            paper = self.upsert(Paper, {"slug": row["slug"]}, values)
            self.set_authors(paper, row.get("authors", []))
            self.set_related(paper.layers, [layers[slug] for slug in row.get("layers", [])])
            self.set_tags(paper, row.get("tags", []))

    def set_authors(self, paper, names):
        if paper.author_names == names:
            return
        paper.authorships.all().delete()
        for position, name in enumerate(names):
            author, _ = Author.objects.get_or_create(name=name)
            Authorship.objects.create(paper=paper, author=author, position=position)
        self.changed += 1

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
        for row in data["citations"]:
            self.upsert(
                Citation,
                {"citing_paper": papers[row["citing"]], "cited_paper": papers[row["cited"]]},
                {
                    "role": roles.get(row.get("role", "")),
                    "polarity": polarities.get(row.get("polarity", "")),
                    "context": row.get("context", ""),
                    "is_representative": row.get("is_representative", False),
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
            self.set_related(note.papers, [papers[slug] for slug in row.get("papers", [])])
            self.set_related(note.layers, [layers[slug] for slug in row.get("layers", [])])
            self.set_tags(note, row.get("tags", []))
            for figure in row.get("figures", []):
                self.upsert(
                    ReportedFigure,
                    {"note": note, "order": figure["order"]},
                    {"value": figure["value"], "label": figure["label"]},
                )
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
