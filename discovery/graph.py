"""A paper's citation neighbourhood as a graph: the paper, its most cited references and
citers, and its most similar papers (a few dozen nodes at most, all read from the stored
lists of discovery/neighbours.py), laid out on the server with
networkx (a spring layout with a fixed seed, so the same graph is drawn the same way every
time) and drawn as SVG by discovery/templates/discovery/graph.html. Only public edges and
published papers: a draft is never a node, an edge or a count.

Node size is the paper's stored citing count, colour its publication year (known dates only;
an unknown date is drawn in a neutral colour), edges are coloured by polarity and dashed by
role. The same graph is offered as JSON (the API's too) and GraphML."""

import io
import math

import networkx as nx

from citations.models import Citation, Paper, citation_vocabularies
from discovery.models import Neighbour, NeighboursComputed, Relation
from discovery.neighbours import GRAPH_KEPT

GRAPH_SIMILAR = 20
GRAPH_REFERENCES = GRAPH_CITERS = GRAPH_KEPT
LAYOUT_SEED = 7
WIDTH, HEIGHT, MARGIN = 800, 560, 36
MIN_RADIUS, MAX_RADIUS = 5.0, 22.0
# Oldest to newest: a sequential scale readable on the light and the dark theme (each node
# has a theme-coloured outline).
YEAR_COLOURS = ("#5b3f8c", "#3b6ea8", "#23918c", "#5aae61", "#d9a31a")
UNKNOWN_YEAR_COLOUR = "#9a9a9a"
# Edge dash pattern per role, in the vocabulary's order; an edge without a role is dotted.
ROLE_DASHES = ("", "8 4", "3 3", "10 3 2 3", "1 5")
NO_ROLE_DASH = "1 2"
POLARITY_CLASSES = {"supporting": "supporting", "contrasting": "contrasting", "neutral": "neutral"}


class Node:
    def __init__(self, paper, citing_count):
        self.paper = paper
        self.pk = paper.pk
        self.relations = []  # "this paper", "cites it", "cited by it", similar's why
        self.citing_count = citing_count
        date = paper.known_publication_date
        self.year = date.year if date else None
        self.x = self.y = 0.0
        self.radius = MIN_RADIUS
        self.colour = UNKNOWN_YEAR_COLOUR

    @property
    def label(self):
        year = f", {self.year}" if self.year else ""
        cited = f", cited by {self.citing_count}" if self.citing_count else ""
        return f"{self.paper.title}{year}{cited}"


class Edge:
    def __init__(self, source, target, kind, citation=None, dash="", polarity_class=""):
        self.source, self.target, self.kind = source, target, kind
        self.citation = citation
        self.dash = dash
        self.polarity_class = polarity_class
        self.x1 = self.y1 = self.x2 = self.y2 = 0.0

    @property
    def role(self):
        return self.citation.role if self.citation else None

    @property
    def polarity(self):
        return self.citation.polarity if self.citation else None


class NeighbourhoodGraph:
    """Built by `for_paper()`; `nodes` (the paper first), `edges`, and the legend's rows."""

    width, height = WIDTH, HEIGHT

    def __init__(self, paper):
        self.paper = paper
        self.nodes = []
        self.edges = []
        self.roles = []  # [(role, dash)] drawn
        self.polarities = []  # [(polarity, css class)] drawn
        self.years = []  # [(label, colour)]
        self.has_unknown_year = False
        self.has_unclassified = False
        self.computed = True  # False: never refreshed, the page says so

    @classmethod
    def for_paper(cls, paper):
        graph = cls(paper)
        graph._collect()
        graph._layout()
        return graph

    def _collect(self):
        """The nodes from the stored lists (discovery/neighbours.py: written by the task
        queue, never computed here), read in one query; a paper unpublished since the last
        refresh is left out."""
        paper = self.paper
        edges = Citation.objects.public().order_by()
        drawn = {Relation.SIMILAR: [], Relation.REFERENCE: [], Relation.CITER: []}
        for row in Neighbour.objects.shown_for(paper).filter(relation__in=list(drawn)):
            drawn[row.relation].append(row)
        if not any(drawn.values()):
            self.computed = NeighboursComputed.objects.filter(paper=paper).exists()
        similar = drawn[Relation.SIMILAR][:GRAPH_SIMILAR]
        references = [row.other_id for row in drawn[Relation.REFERENCE][:GRAPH_REFERENCES]]
        citers = [row.other_id for row in drawn[Relation.CITER][:GRAPH_CITERS]]
        ids = {paper.pk, *references, *citers, *(row.other_id for row in similar)}
        papers = {
            found.pk: found
            for found in Paper.objects.published()
            .filter(pk__in=ids)
            .select_related("citation_count")
            .only(
                "pk",
                "slug",
                "title",
                "publication_date",
                "date_precision",
                "status",
                "citation_count__total",
            )
        }
        papers.setdefault(paper.pk, paper)  # an editor's preview of a draft: the centre only

        def node_for(pk):
            count = getattr(getattr(papers[pk], "citation_count", None), "total", 0)
            return Node(papers[pk], count or 0)

        nodes = {paper.pk: node_for(paper.pk)}
        nodes[paper.pk].relations.append("this paper")
        for pk, relation in [(pk, "cited by it") for pk in references] + [
            (pk, "cites it") for pk in citers
        ]:
            if pk in papers:
                nodes.setdefault(pk, node_for(pk)).relations.append(relation)
        for row in similar:
            if row.other_id in papers:
                node = nodes.setdefault(row.other_id, node_for(row.other_id))
                node.relations.append(f"similar: {row.why}")
        self.nodes = [
            nodes[paper.pk],
            *sorted((node for pk, node in nodes.items() if pk != paper.pk), key=lambda n: n.pk),
        ]

        roles, polarities = citation_vocabularies()
        dashes = {role.pk: ROLE_DASHES[i % len(ROLE_DASHES)] for i, role in enumerate(roles)}
        among = (
            edges.filter(citing_paper__in=list(nodes), cited_paper__in=list(nodes))
            .select_related("role", "polarity")
            .order_by("citing_paper_id", "cited_paper_id")
        )
        linked = set()
        for citation in among:
            polarity = citation.polarity
            css = POLARITY_CLASSES.get(polarity.slug, "other") if polarity else "unclassified"
            if polarity is None or citation.role_id is None:
                self.has_unclassified = True
            self.edges.append(
                Edge(
                    nodes[citation.citing_paper_id],
                    nodes[citation.cited_paper_id],
                    "citation",
                    citation,
                    dashes.get(citation.role_id, NO_ROLE_DASH),
                    css,
                )
            )
            linked.add(frozenset((citation.citing_paper_id, citation.cited_paper_id)))
        for row in similar:
            if row.other_id in nodes and frozenset((paper.pk, row.other_id)) not in linked:
                self.edges.append(Edge(nodes[paper.pk], nodes[row.other_id], "similar"))
        drawn_roles = {edge.citation.role_id for edge in self.edges if edge.citation}
        drawn_polarities = {edge.citation.polarity_id for edge in self.edges if edge.citation}
        self.roles = [(role, dashes[role.pk]) for role in roles if role.pk in drawn_roles]
        self.polarities = [
            (polarity, POLARITY_CLASSES.get(polarity.slug, "other"))
            for polarity in polarities
            if polarity.pk in drawn_polarities
        ]

    def _layout(self):
        graph = nx.Graph()
        graph.add_nodes_from(node.pk for node in self.nodes)
        graph.add_edges_from((edge.source.pk, edge.target.pk) for edge in self.edges)
        if len(self.nodes) == 1:
            positions = {self.nodes[0].pk: (0.0, 0.0)}
        else:
            positions = nx.spring_layout(graph, seed=LAYOUT_SEED, iterations=100)
        xs = [float(x) for x, _ in positions.values()]
        ys = [float(y) for _, y in positions.values()]
        span_x = (max(xs) - min(xs)) or 1.0
        span_y = (max(ys) - min(ys)) or 1.0
        inner_w = WIDTH - 2 * (MARGIN + MAX_RADIUS)
        inner_h = HEIGHT - 2 * (MARGIN + MAX_RADIUS)
        most_cited = max(node.citing_count for node in self.nodes) or 1
        years = sorted({node.year for node in self.nodes if node.year})
        bins = year_bins(years)
        for node in self.nodes:
            x, y = positions[node.pk]
            if len(self.nodes) == 1:
                node.x, node.y = WIDTH / 2, HEIGHT / 2
            else:
                node.x = round(MARGIN + MAX_RADIUS + (float(x) - min(xs)) / span_x * inner_w, 1)
                node.y = round(MARGIN + MAX_RADIUS + (float(y) - min(ys)) / span_y * inner_h, 1)
            share = math.sqrt(node.citing_count / most_cited)
            node.radius = round(MIN_RADIUS + (MAX_RADIUS - MIN_RADIUS) * share, 1)
            if node.year is None:
                self.has_unknown_year = True
            else:
                node.colour = next(
                    colour for _, low, high, colour in bins if low <= node.year <= high
                )
        self.years = [(label, colour) for label, _, _, colour in bins]
        for edge in self.edges:
            edge.x1, edge.y1, edge.x2, edge.y2 = trimmed(edge.source, edge.target)

    # -- outputs ---------------------------------------------------------------------------

    def as_data(self):
        """The graph as JSON data: what the API answers and the JSON download holds."""
        return {
            "paper": self.paper.slug,
            "width": WIDTH,
            "height": HEIGHT,
            "nodes": [
                {
                    "slug": node.paper.slug,
                    "title": node.paper.title,
                    "url": node.paper.get_absolute_url(),
                    "year": node.year,
                    "cited_by_count": node.citing_count,
                    "relations": node.relations,
                    "x": node.x,
                    "y": node.y,
                }
                for node in self.nodes
            ],
            "edges": [
                {
                    "source": edge.source.paper.slug,
                    "target": edge.target.paper.slug,
                    "kind": edge.kind,
                    "role": edge.role.slug if edge.role else None,
                    "polarity": edge.polarity.slug if edge.polarity else None,
                }
                for edge in self.edges
            ],
        }

    def as_graphml(self):
        graph = nx.DiGraph(paper=self.paper.slug)
        for node in self.nodes:
            graph.add_node(
                node.paper.slug,
                title=node.paper.title,
                year=node.year or 0,
                cited_by_count=node.citing_count,
                relations="; ".join(node.relations),
                x=node.x,
                y=node.y,
            )
        for edge in self.edges:
            graph.add_edge(
                edge.source.paper.slug,
                edge.target.paper.slug,
                kind=edge.kind,
                role=edge.role.slug if edge.role else "",
                polarity=edge.polarity.slug if edge.polarity else "",
            )
        out = io.BytesIO()
        nx.write_graphml(graph, out, encoding="utf-8")
        return out.getvalue()


def year_bins(years):
    """[(label, first year, last year, colour)]: one bin per year for up to five years, else
    five bins of equal span."""
    if not years:
        return []
    first, last = years[0], years[-1]
    count = len(YEAR_COLOURS)
    if last - first + 1 <= count:
        spans = [(year, year) for year in range(first, last + 1)]
    else:
        width = (last - first + 1) / count
        spans = [
            (first + math.ceil(i * width), first + math.ceil((i + 1) * width) - 1)
            for i in range(count)
        ]
    # Spread the colours over the bins so few years still run from oldest to newest.
    step = (count - 1) / max(len(spans) - 1, 1)
    return [
        (str(low) if low == high else f"{low}–{high}", low, high, YEAR_COLOURS[round(i * step)])
        for i, (low, high) in enumerate(spans)
    ]


def trimmed(source, target):
    """The segment from `source` to `target` between their circles' edges (the arrow head
    then touches the target's outline)."""
    dx, dy = target.x - source.x, target.y - source.y
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    return (
        round(source.x + ux * source.radius, 1),
        round(source.y + uy * source.radius, 1),
        round(target.x - ux * (target.radius + 2), 1),
        round(target.y - uy * (target.radius + 2), 1),
    )
