from django.urls import path

from . import views

app_name = "citations"

urlpatterns = [
    path("research/", views.research_index, name="research-index"),
    path("papers/<slug:slug>/", views.paper_detail, name="paper-detail"),
    path("papers/<slug:slug>.bib", views.paper_bibtex, name="paper-bibtex"),
]
