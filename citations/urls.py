from django.urls import path, register_converter

from citations.corrections import views as corrections_views
from citations.exports import downloads as exports
from citations.identity import redirect_old_slugs


class ExportExtension:
    regex = "bib|json|ris"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(ExportExtension, "export")

app_name = "citations"

# The research index and the paper hub show notes and claims too, so their views live above
# the apps (web/papers.py); rlscaling/urls.py adds them to this namespace.

urlpatterns = [
    path("research/papers.<export:extension>", exports.research_export, name="research-export"),
    path(
        "papers/<slug:slug>.bib",
        redirect_old_slugs(exports.paper_export),
        {"extension": "bib"},
        name="paper-bibtex",
    ),
    path(
        "papers/<slug:slug>.json",
        redirect_old_slugs(exports.paper_export),
        {"extension": "json"},
        name="paper-csl",
    ),
    path(
        "papers/<slug:slug>.ris",
        redirect_old_slugs(exports.paper_export),
        {"extension": "ris"},
        name="paper-ris",
    ),
    path(
        "papers/<slug:slug>.jsonld",
        redirect_old_slugs(exports.paper_export),
        {"extension": "jsonld"},
        name="paper-jsonld",
    ),
    path(
        "papers/<slug:slug>/citing.<export:extension>",
        redirect_old_slugs(exports.hub_export),
        name="hub-export",
    ),
    path("tags/<slug:slug>/papers.<export:extension>", exports.tag_export, name="tag-export"),
    path(
        "bottlenecks/<slug:slug>/papers.<export:extension>",
        exports.layer_export,
        name="layer-export",
    ),
    path(
        "citations/<int:pk>/suggest/",
        corrections_views.suggest_correction,
        name="suggest-correction",
    ),
]
