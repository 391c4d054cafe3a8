"""The public API changelog and deprecation policy: one list, shown at /about/api/ (HTML) and
/api/v1/changelog/ (JSON). Add an entry for every change a client could notice, newest first,
and bump SPECTACULAR_SETTINGS["VERSION"] to the newest entry's version."""

from django.shortcuts import render
from django.views.decorators.http import require_safe
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apikit.params import StrictQueryParametersMixin
from pagecache.caching import reads_query

# Each change is (kind, text): kind is "added", "changed", "deprecated" or "removed".
CHANGELOG = [
    {
        "version": "1.8.0",
        "date": "2026-12-07",
        "changes": [
            (
                "changed",
                "`/api/v1/results/?group_by=` (every grouping) needs `benchmark=<slug>`, "
                "`paper=<slug>` or `series=<slug>`: counting every point of the corpus took "
                "up to half a second at 200,000 points, for anyone to ask. Without one the "
                "answer is a 400 saying so. `/api/v1/benchmarks/` and `/api/v1/series/` list "
                "what there is to narrow by.",
            ),
        ],
    },
    {
        "version": "1.7.0",
        "date": "2026-12-07",
        "changes": [
            (
                "changed",
                "`/api/v1/citations/?group_by=role` (and `polarity`, `is_representative`) "
                "needs `cited=<slug>` or `citing=<slug>`, as `group_by=cited` and `citing` "
                "already did: grouping every edge of the corpus took seconds at a million "
                "citations, for anyone to ask. Without one the answer is a 400 saying so.",
            ),
            (
                "added",
                "Writes on `/api/v1/benchmarks/`, `/api/v1/series/` and `/api/v1/results/` "
                "(POST, PUT, PATCH, DELETE) with a token, as on papers: the model permissions, "
                "contributors write drafts only (403 for publishing or for a published run's "
                "points), the model's own validation (a 400 naming the field; nothing written), "
                "`version` or `If-Match` against stale edits (a point: `If-Match`). A new "
                "series records who entered it. Before, these answered 405.",
            ),
            (
                "added",
                "`layer=` on `/api/v1/results/` and `/api/v1/series/`: runs whose paper is on "
                "the layer or whose points carry a published claim on it.",
            ),
            (
                "added",
                "`reported_on_precision` on /claims/ (`day`, `month`, `year`, `unknown`): "
                "`reported_on` is a fact only as far as it says, and null when it is `unknown`.",
            ),
        ],
    },
    {
        "version": "1.6.0",
        "date": "2026-12-06",
        "changes": [
            (
                "added",
                "`POST /api/v1/results/import/`: reported results from a CSV (the import "
                "template, docs/results.md) as a `text/csv` body or a multipart `file`. A dry "
                "run by default (200: each row's outcome); `dry_run=false` applies it (201 with "
                "the run; 202 for more than 2,000 rows, poll `/api/v1/results/import/{id}/`). A "
                "bad row is a 400 naming its line and column in `errors.rows`, and nothing is "
                "written; without the publish permission an import may not add to published "
                "series (403). Editors and contributors with a token.",
            ),
            (
                "added",
                "`cursor=` on /results/: follow `next`; a walk sees every row once while rows "
                "are added between pages. The first page (no `page=`) already links by cursor.",
            ),
            (
                "deprecated",
                "`page=` on /results/: still answered, by page number, with `Deprecation` and "
                "`Sunset` (2027-06-07) headers; use the `next` (cursor) links instead.",
            ),
            (
                "added",
                "Import runs (`/api/v1/imports/`) carry `format_name`, the format by its name "
                "(“BibTeX”), and `summary`, what the run did or would do in sentences "
                "(“Created 4 papers and updated 1.”); a guessed `format` is filled in by the dry "
                "run, and `report` and `dry_run` open with the same sentences.",
            ),
            (
                "added",
                "`ris` in the `format` of `POST /api/v1/imports/`: RIS files as Zotero, EndNote "
                "and Mendeley export them (guessed from a first `TY  -` line when `format` is "
                "left out). A bad record is a 400 naming the record, its line and the tag.",
            ),
            (
                "changed",
                "BibTeX exports carry the paper's `abstract`, and a BibTeX `@misc` or "
                "`@unpublished` entry with an arXiv id is imported as a preprint: a paper "
                "exported and imported again in BibTeX, CSL-JSON or RIS keeps its fields.",
            ),
        ],
    },
    {
        "version": "1.5.0",
        "date": "2026-12-06",
        "changes": [
            (
                "changed",
                "Refusals name what they are about: a paper holding an identifier, slug or "
                "edge already is named by its title (not its slug), and a null character in a "
                "text field is refused with a message naming the field.",
            ),
            (
                "changed",
                "A `group_by` answer lists at most the 100 largest groups, largest first, and "
                "says so in the new `truncated` field and in `basis`; `total` and every share "
                "still count all the matching rows.",
            ),
            (
                "added",
                "`group_by=` on /results/: the public points counted by `benchmark`, `series`, "
                "`paper`, `task_family`, `model_size`, `reward_type` or `location_kind`.",
            ),
        ],
    },
    {
        "version": "1.4.0",
        "date": "2026-12-06",
        "changes": [
            (
                "added",
                "`results` on each claim: ids of the public results that carry its figure "
                "(`/api/v1/results/{id}/`), and `tolerance`: how far (in %) another paper's "
                "comparable result may be and still agree with them.",
            ),
            (
                "added",
                "Every operation in the schema has a `summary`; the schema names the data's "
                "licence (CC BY 4.0) and a relative server (`/`).",
            ),
            (
                "changed",
                "`/api/v1/citations/?group_by=cited` needs `citing=<slug>` and `group_by=citing` "
                "needs `cited=<slug>` (one group per paper of every edge was unbounded); without "
                "it the answer is a 400 saying so. The most cited papers overall: "
                "`/api/v1/papers/?ordering=-cited_by_count`.",
            ),
        ],
    },
    {
        "version": "1.3.0",
        "date": "2026-12-05",
        "changes": [
            (
                "added",
                "`/api/v1/benchmarks/`, `/api/v1/series/` (each with its stored `fits`: the "
                "ScaleRL sigmoid and a power law with 90% intervals, or the reason refused) and "
                "`/api/v1/results/` (reported points with their location in the paper and RL "
                "compute normalised to GPU-hours or FLOPs). Read-only; public rows only.",
            ),
        ],
    },
    {
        "version": "1.2.0",
        "date": "2026-12-05",
        "changes": [
            (
                "changed",
                "A research note's `figures` are the figures of its published claims (the "
                "notes' own figures became claims, each kept): the same `value`, `label` and "
                "`order` per figure, where `label` is the claim's unit and `order` the figure's "
                "place on the note counted from 1 (it was the editors' sort key, e.g. 10, 20). "
                "A claim that is not public adds no figure.",
            ),
            (
                "added",
                "`claim` on each of a note's `figures`: the slug of the claim it is the figure "
                "of (`/api/v1/claims/{slug}/`).",
            ),
        ],
    },
    {
        "version": "1.1.0",
        "date": "2026-12-03",
        "changes": [
            (
                "added",
                "Sparse fieldsets on every list and detail: `fields=slug,title` keeps only "
                "those fields, `omit=abstract` leaves fields out; an unknown name is a 400 "
                "listing the valid ones.",
            ),
            (
                "added",
                "`group_by=` on /papers/ (year, tag, layer, in_research_index, "
                "is_canonical_reference) and /citations/ (role, polarity, cited, citing, "
                "is_representative): counts, shares and the basis of the shares instead of "
                "the rows. `/citations/?cited=<slug>&group_by=role` is a hub's role bar.",
            ),
            (
                "added",
                "`/api/v1/papers/{slug}/timeline/`: a paper's public citing papers per quarter, "
                "by role and by polarity, with those dated only to a year (`year_only`) and "
                "those without a known date (`undated`) counted apart.",
            ),
            (
                "added",
                '`POST /api/v1/papers/batch` with `{"ids": [...]}`: up to 500 slugs, arXiv '
                "ids and DOIs (bare or `arxiv:`/`doi:` prefixed) answered in request order, "
                "`null` for an identifier naming no paper you may see.",
            ),
            (
                "added",
                "Identifier aliases in the path: `/api/v1/papers/arxiv:<id>/` and "
                "`/api/v1/papers/doi:<doi>/` answer 302 to the paper's own address.",
            ),
            (
                "added",
                "CORS: anonymous GET, HEAD and OPTIONS from any origin (no credentials).",
            ),
            (
                "added",
                "`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix "
                "seconds) on every throttled answer; `Retry-After` on every 429.",
            ),
            (
                "changed",
                "A query parameter an endpoint does not read is a 400 naming the parameters "
                "it reads and the closest match, where it used to be ignored silently. The "
                "site's HTML pages still ignore parameters they do not read (`utm_*`).",
            ),
        ],
    },
    {
        "version": "1.0.0",
        "date": "2026-01-01",
        "changes": [
            (
                "added",
                "Papers, citations, research notes, community posts, questions, the "
                "bottleneck framework and claims; ETags and conditional requests; optimistic "
                "concurrency on writes (`version`, `If-Match`); token authentication.",
            ),
        ],
    },
]

POLICY = [
    "Within /api/v1/ changes are additive: new endpoints, fields, parameters and values of "
    "enumerations may appear at any time; clients should ignore fields they do not know.",
    "A field, parameter or endpoint is removed or changes meaning only in a new major version "
    "(/api/v2/), never within /api/v1/.",
    "Before removal an element is deprecated: announced here, marked `deprecated` in the "
    "OpenAPI schema, and its answers carry `Deprecation` and `Sunset` headers, for at least six "
    "months.",
    "Once /api/v2/ is published, /api/v1/ keeps answering for at least twelve months.",
    "Fixes that close a security hole or stop drafts leaking may change behaviour at once; "
    "they are listed here as soon as they ship.",
]


class ChangeSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["added", "changed", "deprecated", "removed"])
    text = serializers.CharField()


class ReleaseSerializer(serializers.Serializer):
    version = serializers.CharField()
    date = serializers.DateField()
    changes = ChangeSerializer(many=True)


class ChangelogSerializer(serializers.Serializer):
    policy = serializers.ListField(child=serializers.CharField())
    releases = ReleaseSerializer(many=True)


def releases():
    return [
        {**release, "changes": [{"kind": k, "text": t} for k, t in release["changes"]]}
        for release in CHANGELOG
    ]


class ChangelogView(StrictQueryParametersMixin, APIView):
    """The API's changelog, newest release first, and its deprecation policy (also at
    /about/api/)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="The API's changelog and deprecation policy", responses=ChangelogSerializer
    )
    def get(self, request):
        return Response({"policy": POLICY, "releases": releases()})


@reads_query()
@require_safe
def about_api(request):
    """The changelog and deprecation policy for people."""
    return render(request, "api/about.html", {"policy": POLICY, "releases": releases()})
