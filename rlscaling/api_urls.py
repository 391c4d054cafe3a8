"""The versioned REST API, mounted at /api/v1/."""

from csp.decorators import csp_update
from django.http import HttpResponse
from django.urls import path, re_path
from drf_spectacular.views import (
    SpectacularJSONAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from apikit.auth import ObtainTokenView
from apikit.changelog import ChangelogView
from apikit.errors import NotFoundView
from apikit.params import StrictQueryParametersMixin
from apikit.schema import BuiltOnceSchemaGenerator
from bottlenecks import api as bottlenecks_api
from citations.api import imports as imports_api
from citations.api import lookup as lookup_api
from citations.api import views as citations_api
from citations.identity import redirect_old_slugs
from discovery import api as discovery_api
from evidence import api as claims_api
from notes import api as notes_api
from results import api as results_api
from tags import api as tags_api

app_name = "api"

router = DefaultRouter()
router.register("papers", citations_api.PaperViewSet, basename="paper")
router.register("citations", citations_api.CitationViewSet, basename="citation")
router.register("citation-roles", citations_api.CitationRoleViewSet, basename="citationrole")
router.register(
    "citation-polarities", citations_api.CitationPolarityViewSet, basename="citationpolarity"
)
router.register("tags", tags_api.TagViewSet, basename="tag")
router.register("notes", notes_api.ResearchNoteViewSet, basename="researchnote")
router.register("community-posts", notes_api.CommunityPostViewSet, basename="communitypost")
router.register("questions", notes_api.QuestionViewSet, basename="question")
router.register("dimensions", bottlenecks_api.DimensionViewSet, basename="dimension")
router.register("loop-stages", bottlenecks_api.LoopStageViewSet, basename="loopstage")
router.register("layers", bottlenecks_api.LayerViewSet, basename="layer")
router.register("analyses", bottlenecks_api.AnalysisViewSet, basename="analysis")
router.register("claims", claims_api.ClaimViewSet, basename="claim")
router.register("benchmarks", results_api.BenchmarkViewSet, basename="benchmark")
router.register("series", results_api.SeriesViewSet, basename="series")
router.register("results", results_api.ResultViewSet, basename="result")


class DocsPageMixin:
    """The docs pages are HTML templates: OPTIONS answers with what they allow, not with DRF's
    metadata (which their template renderer cannot draw)."""

    def options(self, request, *args, **kwargs):
        return HttpResponse(status=200, headers={"Allow": "GET, HEAD, OPTIONS"})


class SwaggerView(DocsPageMixin, SpectacularSwaggerSplitView):
    cache_query_parameters = ("script",)  # ?script= serves the initialiser (rlscaling/caching)


class RedocView(DocsPageMixin, SpectacularRedocView):
    pass


# Swagger UI and Redoc come from drf-spectacular-sidecar's static files; their own inline
# styles (and Redoc's web worker) need a little more than the site-wide policy allows.
docs_policy = csp_update(
    {"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"], "img-src": ["data:"]}
)


class SchemaView(StrictQueryParametersMixin, SpectacularJSONAPIView):
    cache_query_parameters = ("lang",)
    generator_class = BuiltOnceSchemaGenerator


urlpatterns = [
    path("schema/", SchemaView.as_view(), name="schema"),
    path(
        "docs/",
        docs_policy(SwaggerView.as_view(url_name="api:schema")),
        name="docs",
    ),
    path(
        "redoc/",
        docs_policy(RedocView.as_view(url_name="api:schema", template_name="api/redoc.html")),
        name="redoc",
    ),
    path("auth/token/", ObtainTokenView.as_view(), name="token"),
    path("changelog/", ChangelogView.as_view(), name="changelog"),
    path(
        "papers/<slug:slug>/citations/",
        redirect_old_slugs(citations_api.PaperCitationsView.as_view()),
        name="paper-citations",
    ),
    path(
        "papers/<slug:slug>/timeline/",
        redirect_old_slugs(citations_api.PaperTimelineView.as_view()),
        name="paper-timeline",
    ),
    path(
        "papers/<slug:slug>/neighbours/",
        redirect_old_slugs(discovery_api.PaperNeighboursView.as_view()),
        name="paper-neighbours",
    ),
    path(
        "papers/<slug:slug>/graph/",
        redirect_old_slugs(discovery_api.PaperGraphView.as_view()),
        name="paper-graph",
    ),
    path("papers/batch", lookup_api.BatchView.as_view(), name="paper-batch"),
    path("papers/batch/", lookup_api.BatchView.as_view(schema=None)),
    re_path(
        r"^papers/(?P<identifier>(?i:arxiv|doi):[\s\S]+)/$",
        lookup_api.PaperAliasView.as_view(),
        name="paper-alias",
    ),
    path("imports/", imports_api.ImportListView.as_view(), name="imports"),
    path("imports/<int:pk>/", imports_api.ImportDetailView.as_view(), name="import-detail"),
    path("results/import/", results_api.ResultsImportView.as_view(), name="results-import"),
    path(
        "results/import/<int:pk>/",
        results_api.ResultsImportRunView.as_view(),
        name="results-import-run",
    ),
    *router.urls,
    # Anything else under /api/v1/ gets the API's JSON 404, not the site's HTML page.
    # [\s\S], not ".": a path with an encoded newline (%0A) is an API path too.
    re_path(r"^[\s\S]*/$", NotFoundView.as_view(), name="not-found"),
]
