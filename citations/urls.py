from django.urls import path

from . import views
from .identity import redirect_old_slugs

app_name = "citations"

urlpatterns = [
    path("research/", views.research_index, name="research-index"),
    # A renamed or merged paper's old slug answers 301 to its current address.
    path("papers/<slug:slug>/", redirect_old_slugs(views.paper_detail), name="paper-detail"),
    path("papers/<slug:slug>.bib", redirect_old_slugs(views.paper_bibtex), name="paper-bibtex"),
]
