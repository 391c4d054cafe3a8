"""The versioned REST API, mounted at /api/v1/."""

from csp.decorators import csp_update
from django.urls import path, re_path
from drf_spectacular.views import (
    SpectacularJSONAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.routers import DefaultRouter
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle

from bottlenecks import api as bottlenecks_api
from citations import api as citations_api
from notes import api as notes_api
from rlscaling.api import NotFoundView

app_name = "api"

router = DefaultRouter()
router.register("papers", citations_api.PaperViewSet, basename="paper")
router.register("citations", citations_api.CitationViewSet, basename="citation")
router.register("citation-roles", citations_api.CitationRoleViewSet, basename="citationrole")
router.register(
    "citation-polarities", citations_api.CitationPolarityViewSet, basename="citationpolarity"
)
router.register("tags", citations_api.TagViewSet, basename="tag")
router.register("notes", notes_api.ResearchNoteViewSet, basename="researchnote")
router.register("community-posts", notes_api.CommunityPostViewSet, basename="communitypost")
router.register("questions", notes_api.QuestionViewSet, basename="question")
router.register("dimensions", bottlenecks_api.DimensionViewSet, basename="dimension")
router.register("loop-stages", bottlenecks_api.LoopStageViewSet, basename="loopstage")
router.register("layers", bottlenecks_api.LayerViewSet, basename="layer")
router.register("analyses", bottlenecks_api.AnalysisViewSet, basename="analysis")


class ObtainTokenView(ObtainAuthToken):
    """Trade an active account's username and password for its API token."""

    throttle_classes = [AnonRateThrottle, ScopedRateThrottle]
    throttle_scope = "token"

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            # django-axes marks the request when this username and address are locked out.
            if getattr(request, "axes_locked_out", False):
                raise Throttled(
                    detail="Too many failed attempts for this account from this address; "
                    "try again later."
                ) from None
            raise


# Swagger UI and Redoc come from drf-spectacular-sidecar's static files; their own inline
# styles (and Redoc's web worker) need a little more than the site-wide policy allows.
docs_policy = csp_update(
    {"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"], "img-src": ["data:"]}
)

urlpatterns = [
    path("schema/", SpectacularJSONAPIView.as_view(), name="schema"),
    path(
        "docs/",
        docs_policy(SpectacularSwaggerSplitView.as_view(url_name="api:schema")),
        name="docs",
    ),
    path(
        "redoc/",
        docs_policy(
            SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html")
        ),
        name="redoc",
    ),
    path("auth/token/", ObtainTokenView.as_view(), name="token"),
    path(
        "papers/<slug:slug>/citations/",
        citations_api.PaperCitationsView.as_view(),
        name="paper-citations",
    ),
    *router.urls,
    # Anything else under /api/v1/ gets the API's JSON 404, not the site's HTML page.
    re_path(r"^.*/$", NotFoundView.as_view(), name="not-found"),
]
