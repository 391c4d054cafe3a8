"""The hub's role × polarity matrix: how many citing papers stand in each pair of a citation
role and a polarity ("not classified" included on both axes), laid out for a server-rendered
SVG (citations/includes/role_polarity_matrix.html) and the table that says the same in text."""

import math
import textwrap

from django.utils.http import urlencode

NOT_CLASSIFIED = "Not classified"
SHADES = 4  # non-empty cells are shaded 1..SHADES by their share of the largest cell


class MatrixCell:
    def __init__(self, row, column, count, top, x, y):
        self.role, self.polarity = row, column
        self.count = count
        self.shade = math.ceil(SHADES * count / top) if count and top else 0
        self.x, self.y = x, y
        self.cx, self.cy = (
            x + RolePolarityMatrix.CELL_WIDTH / 2,
            y + RolePolarityMatrix.CELL_HEIGHT / 2,
        )

    @property
    def query(self):
        """The explorer's filter for this cell: a role or "unclassified", and a polarity or
        "none" (no polarity)."""
        role_slug, polarity_slug = self.role["slug"], self.polarity["slug"]
        params = {"role": role_slug} if role_slug else {"unclassified": "on"}
        params["polarity"] = polarity_slug or "none"
        return urlencode(params)

    @property
    def label(self):
        papers = "citing paper" if self.count == 1 else "citing papers"
        return f"{self.count} {papers}: {self.role['name']}, {self.polarity['name']}"


class RolePolarityMatrix:
    """Rows are the citation roles, columns the polarities, each in vocabulary order with a
    last "not classified" one; `summary` a CitationSummary with its pairs counted."""

    LABEL_WIDTH, HEAD_HEIGHT = 112, 40
    CELL_WIDTH, CELL_HEIGHT = 74, 38
    LINE = 12  # label line height, in the SVG's units

    def __init__(self, summary, roles, polarities):
        pairs = summary.pairs or {}
        top = max(pairs.values(), default=0)

        def axis(terms):
            found = [{"slug": slug, "name": name} for slug, name in terms]
            return [*found, {"slug": None, "name": NOT_CLASSIFIED}]

        self.columns = axis(polarities)
        self.rows = []
        for index, column in enumerate(self.columns):
            column["x"] = self.LABEL_WIDTH + index * self.CELL_WIDTH + self.CELL_WIDTH / 2
            column["lines"] = self._lines(column["name"], 11)
        for index, role in enumerate(axis(roles)):
            y = self.HEAD_HEIGHT + index * self.CELL_HEIGHT
            role["y"], role["lines"] = y + self.CELL_HEIGHT / 2, self._lines(role["name"], 16)
            role["cells"] = [
                MatrixCell(
                    role,
                    column,
                    pairs.get((role["slug"], column["slug"]), 0),
                    top,
                    self.LABEL_WIDTH + number * self.CELL_WIDTH,
                    y,
                )
                for number, column in enumerate(self.columns)
            ]
            self.rows.append(role)
        self.width = self.LABEL_WIDTH + len(self.columns) * self.CELL_WIDTH
        self.height = self.HEAD_HEIGHT + len(self.rows) * self.CELL_HEIGHT

    def _lines(self, name, width):
        """A label in lines of about `width` characters, each with its offset from the middle."""
        lines = textwrap.wrap(name, width) or [name]
        first = -(len(lines) - 1) * self.LINE / 2
        return [{"text": text, "dy": first + n * self.LINE} for n, text in enumerate(lines)]
