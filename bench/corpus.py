"""A reproducible synthetic corpus of papers and citation edges, for scale tests and benchmarks.

`generate_corpus` (the management command) is the way in; this module holds the logic.

Everything random comes from `random.Random` seeded with the `seed` option, so one seed gives
the same titles, authors, dates and edges on every machine and every database. The shape is
skewed the way a citation index is: a few hub papers (canonical references, each cited by a
share of the whole corpus), a Zipf-like tail for the rest, most edges *background* and
*neutral*, some unclassified (no role, no polarity), and a share of drafts.

Rows are written in bulk, never one `save()` per row: PostgreSQL gets `COPY ... FROM STDIN`
(psycopg 3), other databases `bulk_create` in batches. Because `save()` is skipped, the
publishing fields (status, published_at, version, created_at, updated_at) are set here, and no
simple-history records are written for corpus rows: they have no edit history, and a million
"created" history rows would only double the load time. Editing a corpus row in the admin
records history from then on as usual.
"""

import bisect
import datetime
import itertools
import math
import random
import re
import time

from django.db import connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from bottlenecks.models import Layer
from citations.bulkwrite import allocate_ids, write_rows
from citations.cite_keys import base_key, free_keys
from citations.models import (
    Author,
    Authorship,
    Citation,
    CitationCount,
    CitationPolarity,
    CitationRole,
    CitationSource,
    CitingTimelineCount,
    DatePrecision,
    Paper,
    TaggedPaper,
    recount_citations,
    recount_paper_facets,
)
from citations.models.authors import free_author_slugs
from discovery.bulk import refresh_all as refresh_all_neighbours
from discovery.models import Neighbour, NeighboursComputed
from publishing.models import Status
from tags.counts import recount_tags
from tags.models import Tag

PREFIX_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# The window publication dates fall in, fixed so a seed gives the same dates on any day.
FIRST_YEAR, LAST_DATE = 2015, datetime.date(2026, 10, 31)

DRAFT_SHARE = 0.03
RESEARCH_INDEX_SHARE = 0.35
ORGANISATION_REPORT_SHARE = 0.08
ARXIV_SHARE = 0.7
DOI_SHARE = 0.25
# Share of all edges that go to the hub papers, split 1 : 1/2 : 1/3 ... between them.
HUB_SHARE = 0.07
# Exponent of the Zipf-like in-degree of the papers that are not hubs.
TAIL_EXPONENT = 0.75
REPRESENTATIVE_PER_PAPER = 3
CONTEXT_SHARE = 0.05
DRAFT_CITATION_SHARE = 0.01

ROLES = [
    ("background", "Background", 52),
    ("method", "Method", 16),
    ("comparison", "Comparison / result", 10),
    ("extension", "Extension", 6),
    (None, None, 16),
]
POLARITIES = [
    ("neutral", "Neutral", 62),
    ("supporting", "Supporting", 22),
    ("contrasting", "Contrasting", 8),
    (None, None, 8),
]
# Used only when the database has no layers yet (corpus generated before `load_demo`).
DEFAULT_LAYERS = [
    ("compute", "Compute"),
    ("data", "Data"),
    ("environments", "Environments"),
    ("rollouts", "Rollouts"),
    ("rewards", "Rewards"),
    ("evaluation", "Evaluation"),
]

METHODS = [
    "GRPO", "PPO", "DAPO", "RLOO", "REINFORCE++", "VAPO", "GSPO", "CISPO", "DPO", "ReMax",
    "RLVR", "RLHF", "RLAIF", "On-Policy Distillation", "Dr. GRPO", "Online DPO",
]  # fmt: skip
NOUNS = [
    "Reward Models", "Verifiable Rewards", "Rollout Budgets", "Policy Entropy",
    "Off-Policy Corrections", "Long-Horizon Credit Assignment", "Reasoning Traces",
    "Process Supervision", "Curriculum Sampling", "Asynchronous Rollouts", "KL Regularisation",
    "Value Baselines", "Test-Time Compute", "Tool Use", "Reward Hacking", "Batch Size",
    "Sequence Packing", "Advantage Normalisation", "Group Sampling", "Environment Diversity",
    "Sandboxed Execution", "Partial Rollouts", "Length Penalties", "Exploration Bonuses",
    "Importance Sampling", "Replay Buffers", "Verifier Disagreement", "Data Mixtures",
    "Staleness", "Clipping", "Reference Policies", "Generation Throughput",
]  # fmt: skip
DOMAINS = [
    "Mathematical Reasoning", "Code Generation", "Software Engineering Agents",
    "Web Navigation", "Theorem Proving", "Multimodal Reasoning", "Long-Context Retrieval",
    "Scientific Discovery", "Competitive Programming", "Instruction Following",
    "Agentic Search", "Terminal Tasks", "Medical Question Answering", "Dialogue Agents",
    "Formal Verification", "Spreadsheet Tasks",
]  # fmt: skip
SCALES = [
    "LLMs", "Small Language Models", "Mixture-of-Experts Models", "Frontier Models",
    "7B Models", "Trillion-Parameter Models", "Reasoning Models", "Vision-Language Models",
]  # fmt: skip
ADJECTIVES = [
    "Scalable", "Stable", "Efficient", "Robust", "Sample-Efficient", "Compute-Optimal",
    "Predictable", "Asynchronous", "Decoupled", "Adaptive", "Minimal", "Simple", "Open",
    "Verifiable", "Hierarchical", "Token-Level",
]  # fmt: skip
TITLE_TEMPLATES = [
    "{adj} {method} for {domain}",
    "Scaling {noun} in {scale}",
    "When Does {noun} Help {method}?",
    "On the Role of {noun} in {method} for {scale}",
    "{name}: {adj} Reinforcement Learning for {domain}",
    "Beyond {noun}: {adj} {noun2} for {domain}",
    "{noun} Is All You Need for {domain}",
    "Revisiting {noun} in {method}",
    "Predictable Scaling of {noun} with {noun2}",
    "How Far Can {method} Go? {noun} at Scale",
    "Understanding {noun} under {noun2}",
    "A Study of {noun} for {adj} {method}",
    "{name}: {noun} and {noun2} in {scale}",
    "The Limits of {noun} in {domain}",
]
REPORT_TEMPLATES = ["{name} Technical Report", "{name}: {adj} Models for {domain}"]
NAME_SUFFIXES = ["", "", "", "-R1", "-Zero", "-2", "-Pro", "-Mini", "-RL", "-V", "++"]
ABSTRACT_SENTENCES = [
    "We study {noun_l} in {method} training for {domain_l}.",
    "Across runs at up to {size}B parameters, {noun_l} explains most of the gap in {domain_l}.",
    "We find that {noun_l} {trend} as {noun2_l} grows, and propose a simple correction.",
    "Our recipe matches {method} at {ratio}x less compute on {domain_l} benchmarks.",
    "Ablations isolate {noun_l} and {noun2_l} as the two levers that matter at scale.",
    "The results suggest that {noun_l} is a bottleneck before {noun2_l} is.",
    "We release code, environments and {count} training curves.",
]
TRENDS = ["saturates", "keeps improving", "degrades", "becomes unstable", "stays flat"]
CONTEXTS = [
    "We follow the setup of this work for {noun_l}.",
    "Prior work reports similar effects of {noun_l}.",
    "Unlike this work, we find {noun_l} does not transfer to {domain_l}.",
    "We compare against this baseline on {domain_l}.",
]

FIRST_NAMES = [
    "Ada", "Alexei", "Amara", "Ana", "Andrei", "Aria", "Arjun", "Ayumi", "Bao", "Beatriz", "Bilal",
    "Camila", "Carlos", "Chen", "Chiara", "Dara", "David", "Diego", "Elena", "Emeka", "Emil",
    "Fatima", "Felix", "Hana", "Hao", "Ines", "Isaac", "Ivan", "Jae", "Jana", "Javier", "Jia",
    "Jonas", "Julia", "Kai", "Kamal", "Karin", "Kenji", "Lara", "Lea", "Lei", "Leila", "Lin",
    "Lucas", "Maya", "Mei", "Mehmet", "Mina", "Nadia", "Naveen", "Nika", "Noah", "Omar", "Pavel",
    "Priya", "Qi", "Rafael", "Rania", "Ravi", "Rin", "Rosa", "Ruth", "Sana", "Santiago", "Sara",
    "Sebastian", "Shreya", "Sofia", "Sun", "Tariq", "Tomas", "Uma", "Victor", "Wei", "Xin", "Yara",
    "Yuki", "Yusuf", "Zara", "Zhen", "Zoe",
]  # fmt: skip
LAST_NAMES = [
    "Abbott", "Adeyemi", "Agarwal", "Alvarez", "Andersen", "Bai", "Banerjee", "Becker", "Bianchi",
    "Brandt", "Cao", "Carvalho", "Chandra", "Chen", "Costa", "Dai", "Das", "Demir", "Dubois",
    "Eriksen", "Fang", "Farouk", "Fischer", "Fujita", "Garcia", "Gao", "Gupta", "Haddad", "Hansen",
    "Hayashi", "He", "Hoffmann", "Huang", "Ibrahim", "Ito", "Jansen", "Jiang", "Kapoor", "Kato",
    "Kaur", "Khan", "Kim", "Kowalski", "Kumar", "Larsen", "Lee", "Li", "Lin", "Liu", "Lopez", "Ma",
    "Mehta", "Meyer", "Moreau", "Nakamura", "Nguyen", "Novak", "Okafor", "Olsen", "Ortiz", "Park",
    "Patel", "Petrov", "Qian", "Rahman", "Reddy", "Rossi", "Sato", "Schmidt", "Shah", "Silva",
    "Singh", "Song", "Suzuki", "Tan", "Tanaka", "Torres", "Wagner", "Wang", "Watanabe", "Weber",
    "Wu", "Xu", "Yamamoto", "Yang", "Ye", "Yilmaz", "Zhang", "Zhao", "Zhou", "Zhu",
]  # fmt: skip
ORGANISATIONS = [
    "Northwind AI", "Helix Labs", "Quanta Research", "Meridian AI", "Lumen Systems",
    "Cobalt Intelligence", "Aster Labs", "Tidal Compute", "Polaris AI", "Ember Research",
    "Granite AI", "Kestrel Labs", "Orbit Foundation Models", "Fathom AI", "Lattice Research",
]  # fmt: skip
INSTITUTIONS = [
    "Northbridge University", "Institute for Learning Systems", "Eastlake Institute of Technology",
    "University of Westmoor", "Lakeshore University", "Centre for Machine Reasoning",
    "Southfield Polytechnic", "Highland University", "Riverside Institute of Science",
    "Coastal University of Technology", *ORGANISATIONS,
]  # fmt: skip
TAGS = [
    "grpo", "ppo", "rlvr", "rlhf", "dpo", "reasoning", "scaling-laws", "systems", "agents",
    "coding", "math", "reward-modeling", "reward-hacking", "exploration", "entropy",
    "off-policy", "curriculum", "long-context", "multimodal", "tool-use", "web-agents",
    "theorem-proving", "evaluation", "benchmarks", "process-supervision", "distillation",
    "on-policy-distillation", "mixture-of-experts", "inference", "async-rl", "rollouts",
    "credit-assignment", "test-time-compute", "kl-regularization", "environments", "data",
    "safety", "alignment", "technical-report", "infrastructure",
]  # fmt: skip


def zipf_cum_weights(n, exponent=1.0):
    return list(itertools.accumulate(1 / (rank + 1) ** exponent for rank in range(n)))


class CorpusGenerator:
    """Generate `papers` papers and `citations` edges (plus authors, tags and layers)."""

    def __init__(
        self,
        papers,
        citations,
        seed=0,
        hubs=3,
        prefix="synthetic",
        hub_share=HUB_SHARE,
        batch_size=5000,
        log=None,
    ):
        if papers < 1:
            raise ValueError("papers must be at least 1.")
        if not 0 <= citations <= papers * (papers - 1):
            raise ValueError(f"citations must be between 0 and {papers * (papers - 1)}.")
        if not 0 <= hubs <= papers:
            raise ValueError("hubs must be between 0 and the number of papers.")
        if not 0 <= hub_share <= 1:
            raise ValueError("hub share must be between 0 and 1.")
        if not PREFIX_PATTERN.match(prefix):
            raise ValueError("prefix must be lowercase letters, digits and single hyphens.")
        self.n_papers, self.n_citations, self.n_hubs = papers, citations, hubs
        self.seed, self.prefix, self.batch_size = seed, prefix, batch_size
        self.hub_share = hub_share
        self.log = log or (lambda message: None)
        self.now = timezone.now()
        self.started = time.monotonic()
        self.postgres = connection.vendor == "postgresql"

    # -- entry points ----------------------------------------------------------------------

    def existing(self):
        return Paper.objects.filter(slug__startswith=f"{self.prefix}-")

    def delete_existing(self):
        """Delete the papers carrying this prefix and everything hanging off them, in SQL."""
        paper_ids = f"SELECT id FROM {Paper._meta.db_table} WHERE slug LIKE %s"
        pattern = [f"{self.prefix}-%"]
        statements = [
            (
                f"DELETE FROM {TaggedPaper._meta.db_table} "
                f"WHERE content_object_id IN ({paper_ids})",
                pattern,
            ),
            (
                f"DELETE FROM {Paper.layers.through._meta.db_table} "
                f"WHERE paper_id IN ({paper_ids})",
                pattern,
            ),
            (
                f"DELETE FROM {Authorship._meta.db_table} WHERE paper_id IN ({paper_ids})",
                pattern,
            ),
            (
                f"DELETE FROM {CitationCount._meta.db_table} WHERE paper_id IN ({paper_ids})",
                pattern,
            ),
            (
                f"DELETE FROM {CitingTimelineCount._meta.db_table} WHERE paper_id IN ({paper_ids})",
                pattern,
            ),
            (
                f"DELETE FROM {Citation._meta.db_table} WHERE citing_paper_id IN ({paper_ids}) "
                f"OR cited_paper_id IN ({paper_ids})",
                pattern * 2,
            ),
            (f"DELETE FROM {Paper._meta.db_table} WHERE slug LIKE %s", pattern),
        ]
        with transaction.atomic(), connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
        self.progress(f"deleted the existing {self.prefix}-* corpus")

    def generate(self):
        """Build the corpus in memory, then write it in one transaction."""
        layer_ids, role_ids, polarity_ids, tag_ids = self.vocabularies()
        papers = self.build_papers()
        self.progress(f"built {len(papers):,} papers in memory")
        degrees = self.in_degrees()
        edges, representative = self.build_edges(degrees)
        self.progress(f"built {len(edges):,} citation edges in memory")
        with transaction.atomic():
            paper_ids = self.allocate_ids(Paper, len(papers))
            author_ids = self.write_authors(papers)
            self.write_papers(papers, paper_ids)
            self.write_authorships(papers, paper_ids, author_ids)
            self.write_tags(papers, paper_ids, tag_ids)
            self.write_layers(papers, paper_ids, layer_ids)
            self.write_citations(papers, paper_ids, edges, representative, role_ids, polarity_ids)
            if self.postgres:
                # Statistics first: planned blind over a million fresh rows, the recount's
                # grouped queries ran for over 20 minutes at 1M citations.
                with connection.cursor() as cursor:
                    cursor.execute(f"ANALYZE {Citation._meta.db_table}, {Paper._meta.db_table}")
            recount_citations(paper_ids)  # the stored counts (citations/stats/counts.py)
            self.progress("counted the citing papers of each paper")
            recount_tags()  # the stored public counts of each tag (tags/counts.py)
            recount_paper_facets()  # years, tags and layers (citations/stats/facet_counts.py)
            # The stored similar papers, prior and derivative works and graph ends that the
            # task queue would have written after these edges (discovery/bulk.py): every
            # published paper, in bulk.
            refresh_all_neighbours(self.neighbours_progress)
            self.progress("committing (the database checks the deferred foreign keys now)")
        self.progress("committed")
        if self.postgres:
            # Fresh statistics for the planner; VACUUM also sets the visibility map that
            # index-only scans need (it cannot run inside a transaction, e.g. in tests).
            command = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
            tables = [
                Paper,
                Citation,
                CitationCount,
                CitingTimelineCount,
                Authorship,
                Author,
                TaggedPaper,
                Neighbour,
                NeighboursComputed,
            ]
            tables.append(Paper.layers.through)
            with connection.cursor() as cursor:
                for model in tables:
                    cursor.execute(f"{command} {model._meta.db_table}")
            self.progress(f"{command} done")
        return {"papers": len(papers), "citations": len(edges)}

    def progress(self, message):
        self.log(f"[{time.monotonic() - self.started:7.1f}s] {message}")

    def neighbours_progress(self, done, total):
        self.progress(f"neighbours: {done:,}/{total:,} papers")

    # -- vocabularies (few rows: ORM, get or create) ---------------------------------------

    def vocabularies(self):
        if not Layer.objects.exists():
            for order, (slug, name) in enumerate(DEFAULT_LAYERS):
                Layer.objects.create(
                    slug=slug,
                    name=name,
                    order=order,
                    failure_signal="(synthetic)",
                    diagnostic_question="(synthetic)",
                    status=Status.PUBLISHED,
                )
        layer_ids = list(Layer.objects.order_by("order", "id").values_list("id", flat=True))
        role_ids = self.ensure_terms(CitationRole, ROLES)
        polarity_ids = self.ensure_terms(CitationPolarity, POLARITIES)
        existing = {name.lower(): pk for pk, name in Tag.objects.values_list("id", "name")}
        slugs = set(Tag.objects.values_list("slug", flat=True))
        missing = [name for name in TAGS if name not in existing and slugify(name) not in slugs]
        Tag.objects.bulk_create([Tag(name=name, slug=slugify(name)) for name in missing])
        by_name = {name.lower(): pk for pk, name in Tag.objects.values_list("id", "name")}
        by_slug = dict(Tag.objects.values_list("slug", "id"))
        tag_ids = [by_name.get(name, by_slug.get(slugify(name))) for name in TAGS]
        return layer_ids, role_ids, polarity_ids, tag_ids

    @staticmethod
    def ensure_terms(model, terms):
        """The ids of the terms, in the order of `terms`, created when missing (None stays)."""
        ids = []
        for order, (slug, name, _weight) in enumerate(terms):
            if slug is None:
                ids.append(None)
                continue
            term = (
                model.objects.filter(slug=slug).first() or model.objects.filter(name=name).first()
            )
            if term is None:
                term = model.objects.create(slug=slug, name=name, order=order)
            ids.append(term.pk)
        return ids

    # -- papers ----------------------------------------------------------------------------

    def build_papers(self):
        rng = random.Random(f"{self.seed}:papers")
        years = list(range(FIRST_YEAR, LAST_DATE.year + 1))
        # The field grows: each year publishes ~35% more than the one before.
        year_weights = list(itertools.accumulate(1.35**k for k in range(len(years))))
        author_pool = self.author_pool(rng, max(50, self.n_papers // 2))
        author_weights = zipf_cum_weights(len(author_pool), 0.9)
        tag_weights = zipf_cum_weights(len(TAGS), 0.8)
        arxiv_taken = set(Paper.objects.exclude(arxiv_id="").values_list("arxiv_id", flat=True))
        arxiv_next = {}
        papers = []
        for index in range(self.n_papers):
            year = rng.choices(years, cum_weights=year_weights)[0]
            last = LAST_DATE if year == LAST_DATE.year else datetime.date(year, 12, 31)
            first = datetime.date(year, 1, 1)
            date = first + datetime.timedelta(days=rng.randrange((last - first).days + 1))
            is_report = rng.random() < ORGANISATION_REPORT_SHARE
            words = self.title_words(rng)
            if is_report:
                title = rng.choice(REPORT_TEMPLATES).format(**words)
                organisation = rng.choice(ORGANISATIONS)
                authors, byline, institution = [], organisation, organisation
            else:
                count = rng.choices(range(1, 11), weights=[8, 14, 18, 16, 12, 9, 7, 6, 5, 5])[0]
                picks = rng.choices(range(len(author_pool)), cum_weights=author_weights, k=count)
                authors = [author_pool[pick] for pick in dict.fromkeys(picks)]
                title = rng.choice(TITLE_TEMPLATES).format(**words)
                byline = authors[0]
                institution = rng.choice(INSTITUTIONS) if rng.random() < 0.8 else ""
            slug_title = slugify(title)[:150].strip("-")
            draft = rng.random() < DRAFT_SHARE
            published_at = None
            if not draft:
                delay = datetime.timedelta(days=rng.randrange(15), hours=rng.randrange(24))
                published_at = datetime.datetime.combine(date, datetime.time(6), datetime.UTC)
                published_at += delay
            arxiv_id = ""
            if rng.random() < ARXIV_SHARE:
                arxiv_id = self.next_arxiv_id(date, arxiv_next, arxiv_taken)
            doi = f"10.5555/{self.prefix}.{index + 1}" if rng.random() < DOI_SHARE else ""
            tag_picks = rng.choices(range(len(TAGS)), cum_weights=tag_weights, k=rng.randint(1, 4))
            papers.append(
                {
                    "title": title,
                    "slug": f"{self.prefix}-{slug_title}-{index + 1}",
                    "byline": byline,
                    "institution": institution,
                    "publication_date": date,
                    "arxiv_id": arxiv_id,
                    "doi": doi,
                    "url": f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else "",
                    "abstract": self.abstract(rng, words),
                    "summary": self.sentence(rng, ABSTRACT_SENTENCES, words),
                    "is_canonical_reference": False,
                    "in_research_index": rng.random() < RESEARCH_INDEX_SHARE,
                    "status": Status.DRAFT if draft else Status.PUBLISHED,
                    "published_at": published_at,
                    "authors": authors,
                    "tags": list(dict.fromkeys(tag_picks)),
                    "layers": rng.sample(range(6), rng.choices([0, 1, 2], weights=[3, 5, 2])[0]),
                    # Kept for the citing sentences of its edges.
                    "words": {"noun_l": words["noun_l"], "domain_l": words["domain_l"]},
                }
            )
        self.mark_hubs(rng, papers)
        return papers

    def mark_hubs(self, rng, papers):
        """Hubs are published papers among the oldest third, so most of the corpus follows."""
        by_age = sorted(range(len(papers)), key=lambda i: (papers[i]["publication_date"], i))
        candidates = by_age[: max(self.n_hubs, len(papers) // 3)]
        self.hubs = rng.sample(candidates, self.n_hubs)
        for index in self.hubs:
            paper = papers[index]
            paper["is_canonical_reference"] = paper["in_research_index"] = True
            if paper["published_at"] is None:
                paper["status"] = Status.PUBLISHED
                paper["published_at"] = datetime.datetime.combine(
                    paper["publication_date"], datetime.time(12), datetime.UTC
                )

    @staticmethod
    def author_pool(rng, size):
        names = {}
        plain = len(FIRST_NAMES) * len(LAST_NAMES)
        while len(names) < size:
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            if len(names) < plain // 2 or rng.random() < 0.5:
                name = f"{first} {last}"
            else:
                name = f"{first} {chr(65 + rng.randrange(26))}. {last}"
            names[name] = None
        return list(names)

    @staticmethod
    def title_words(rng):
        noun, noun2 = rng.sample(NOUNS, 2)
        domain = rng.choice(DOMAINS)
        name = "".join(rng.choice("ABCDEFGHKLMPRSTVXZ") for _ in range(rng.randint(2, 4)))
        return {
            "adj": rng.choice(ADJECTIVES),
            "method": rng.choice(METHODS),
            "noun": noun,
            "noun2": noun2,
            "noun_l": noun.lower(),
            "noun2_l": noun2.lower(),
            "domain": domain,
            "domain_l": domain.lower(),
            "scale": rng.choice(SCALES),
            "name": name + rng.choice(NAME_SUFFIXES),
        }

    @staticmethod
    def sentence(rng, templates, words):
        return rng.choice(templates).format(
            **words,
            size=rng.choice([1, 3, 7, 14, 32, 70, 235]),
            trend=rng.choice(TRENDS),
            ratio=rng.choice([1.5, 2, 3, 4, 10]),
            count=rng.randrange(20, 2000),
        )

    def abstract(self, rng, words):
        return " ".join(
            self.sentence(rng, ABSTRACT_SENTENCES, words) for _ in range(rng.randint(2, 4))
        )

    @staticmethod
    def next_arxiv_id(date, counters, taken):
        """A new-style arXiv id (YYMM.NNNNN) from the paper's month, never one already used."""
        month = f"{date.year % 100:02d}{date.month:02d}"
        number = counters.get(month, 50000)
        while number < 100000 and f"{month}.{number:05d}" in taken:
            number += 1
        if number >= 100000:
            return ""
        counters[month] = number + 1
        return f"{month}.{number:05d}"

    # -- citation edges --------------------------------------------------------------------

    def in_degrees(self):
        """How many papers cite each paper: [(paper index, count)], summing to the total.

        Hubs take `hub_share` of all edges (1 : 1/2 : 1/3 ...); the other papers share the rest
        on a Zipf-like curve, capped below the smallest hub so the hubs stay on top.
        """
        n, total = self.n_papers, self.n_citations
        if total == 0:
            return []
        rng = random.Random(f"{self.seed}:degrees")
        hub_weights = [1 / (k + 1) for k in range(self.n_hubs)]
        hub_degrees = [
            min(n - 1, round(total * self.hub_share * w / sum(hub_weights))) for w in hub_weights
        ]
        hubs = set(self.hubs)
        others = [index for index in range(n) if index not in hubs]
        rest = total - sum(hub_degrees)
        if rest > len(others) * (n - 1):
            hub_degrees = [n - 1] * self.n_hubs
            rest = total - sum(hub_degrees)
        cap = n - 1
        if hub_degrees and min(hub_degrees) > 1 and len(others) * (min(hub_degrees) - 1) >= rest:
            cap = min(hub_degrees) - 1
        rng.shuffle(others)
        degrees = list(zip(self.hubs, hub_degrees, strict=True))
        degrees += zip(others, self.capped_zipf(len(others), rest, cap), strict=True)
        return [(index, degree) for index, degree in degrees if degree]

    @staticmethod
    def capped_zipf(count, total, cap):
        """Integers on a decreasing Zipf curve, each at most `cap`, summing to `total`."""
        if count == 0:
            return []
        weights = [1 / (rank + 1) ** TAIL_EXPONENT for rank in range(count)]
        suffix = list(itertools.accumulate(reversed(weights)))[::-1]
        capped = 0  # The first `capped` ranks get `cap`; the rest share what is left.
        while capped < count and (total - capped * cap) * weights[capped] / suffix[capped] > cap:
            capped += 1
        left = total - capped * cap
        shares = [cap] * capped + [left * weight / suffix[capped] for weight in weights[capped:]]
        values = [math.floor(share) for share in shares]
        shortfall = total - sum(values)
        by_remainder = sorted(range(count), key=lambda i: (values[i] - shares[i], i))
        for index in by_remainder[:shortfall]:
            values[index] += 1
        return values

    def build_edges(self, degrees):
        """Distinct (citing, cited) pairs without self-citations, encoded citing * n + cited,
        in a shuffled order (so one hub's rows are spread over the table, as in real data)."""
        rng = random.Random(f"{self.seed}:edges")
        n = self.n_papers
        edges, representative = [], set()
        for cited, degree in degrees:
            citing = rng.sample(range(n - 1), degree)
            codes = [(other + (other >= cited)) * n + cited for other in citing]
            edges.extend(codes)
            if degree >= 10:
                representative.update(codes[:REPRESENTATIVE_PER_PAPER])
        rng.shuffle(edges)
        return edges, representative

    # -- writing ---------------------------------------------------------------------------

    def allocate_ids(self, model, count):
        return allocate_ids(model, count)

    def write(self, model, fields, rows, total, label):
        step = max(10_000, total // 10)
        reported = [0]

        def report(written, done=False):
            if done:
                self.progress(f"{label}: {written:,} written")
            elif written // step > reported[0]:
                reported[0] = written // step
                self.progress(f"{label}: {written:,}/{total:,}")

        return write_rows(model, fields, rows, batch_size=self.batch_size, report=report)

    def write_authors(self, papers):
        names = list(dict.fromkeys(name for paper in papers for name in paper["authors"]))
        known = {}
        for start in range(0, len(names), 5000):
            chunk = names[start : start + 5000]
            known.update(Author.objects.filter(name__in=chunk).values_list("name", "id"))
        new = [name for name in names if name not in known]
        ids = self.allocate_ids(Author, len(new))
        rows = zip(ids, new, free_author_slugs(new), strict=True)  # COPY skips Author.save()
        self.write(Author, ["id", "name", "slug"], rows, len(new), "authors")
        return known | dict(zip(new, ids, strict=True))

    def write_papers(self, papers, paper_ids):
        fields = [
            "id", "title", "slug", "byline", "institution", "publication_date", "arxiv_id",
            "doi", "url", "abstract", "summary", "is_canonical_reference", "in_research_index",
            "status", "published_at",
        ]  # fmt: skip
        values = fields[1:]
        # Their cite keys, in bulk: the keys their bases could take are read in batches, and
        # each paper gets the first free one in creation order (citations/cite_keys.py).
        keys = free_keys([cite_key_base(paper) for paper in papers])
        rows = (
            (pk, *(paper[field] for field in values), self.now, self.now, 1, key)
            for pk, paper, key in zip(paper_ids, papers, keys, strict=True)
        )
        fields += ["created_at", "updated_at", "version", "cite_key"]
        self.write(Paper, fields, rows, len(papers), "papers")

    def write_authorships(self, papers, paper_ids, author_ids):
        rows = (
            (pk, author_ids[name], position)
            for pk, paper in zip(paper_ids, papers, strict=True)
            for position, name in enumerate(paper["authors"])
        )
        total = sum(len(paper["authors"]) for paper in papers)
        self.write(Authorship, ["paper", "author", "position"], rows, total, "authorships")

    def write_tags(self, papers, paper_ids, tag_ids):
        rows = (
            (tag_ids[tag], pk)
            for pk, paper in zip(paper_ids, papers, strict=True)
            for tag in paper["tags"]
        )
        total = sum(len(paper["tags"]) for paper in papers)
        self.write(TaggedPaper, ["tag", "content_object"], rows, total, "tags")

    def write_layers(self, papers, paper_ids, layer_ids):
        through = Paper.layers.through
        rows = (
            (pk, layer_ids[layer])
            for pk, paper in zip(paper_ids, papers, strict=True)
            for layer in paper["layers"]
            if layer < len(layer_ids)
        )
        total = sum(layer < len(layer_ids) for paper in papers for layer in paper["layers"])
        self.write(through, ["paper", "layer"], rows, total, "paper layers")

    def write_citations(self, papers, paper_ids, edges, representative, role_ids, polarity_ids):
        rng = random.Random(f"{self.seed}:classification")
        n = self.n_papers
        role_weights = list(itertools.accumulate(weight for *_, weight in ROLES))
        polarity_weights = list(itertools.accumulate(weight for *_, weight in POLARITIES))
        role_total, polarity_total = role_weights[-1], polarity_weights[-1]
        fields = [
            "citing_paper", "cited_paper", "role", "polarity", "context", "is_representative",
            "status", "published_at", "created_at", "updated_at", "version", "source",
            "classified_at",
        ]  # fmt: skip

        def rows():
            for code in edges:
                citing, cited = divmod(code, n)
                role = bisect.bisect(role_weights, rng.random() * role_total)
                if role_ids[role] is None and rng.random() < 0.8:
                    polarity = len(POLARITIES) - 1  # unclassified edges mostly stay so
                else:
                    polarity = bisect.bisect(polarity_weights, rng.random() * polarity_total)
                context = ""
                if rng.random() < CONTEXT_SHARE:
                    context = self.sentence(rng, CONTEXTS, papers[citing]["words"])
                draft = rng.random() < DRAFT_CITATION_SHARE
                citing_paper = papers[citing]
                published_at = citing_paper["published_at"] or datetime.datetime.combine(
                    citing_paper["publication_date"], datetime.time(12), datetime.UTC
                )
                yield (
                    paper_ids[citing],
                    paper_ids[cited],
                    role_ids[role],
                    polarity_ids[polarity],
                    context,
                    code in representative,
                    Status.DRAFT if draft else Status.PUBLISHED,
                    None if draft else published_at,
                    self.now,
                    self.now,
                    1,
                    CitationSource.EDITOR,
                    self.now if role_ids[role] or polarity_ids[polarity] else None,
                )

        self.write(Citation, fields, rows(), len(edges), "citations")


def cite_key_base(paper):
    """The base cite key of a generated paper (citations/cite_keys.py); its date is known to
    the day."""
    first_author = paper["authors"][0] if paper["authors"] else None
    return base_key(
        first_author,
        paper["byline"],
        paper["institution"],
        paper["publication_date"],
        DatePrecision.DAY,
        paper["title"],
    )
