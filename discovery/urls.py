from django.urls import path

from citations.identity import redirect_old_slugs
from discovery import authors, views

app_name = "discovery"

urlpatterns = [
    path("authors/", authors.author_list, name="author-list"),
    path("authors/<slug:slug>/", authors.author_detail, name="author-detail"),
    path("papers/<slug:slug>/graph/", redirect_old_slugs(views.paper_graph), name="paper-graph"),
    path(
        "papers/<slug:slug>/graph.json",
        redirect_old_slugs(views.paper_graph_json),
        name="paper-graph-json",
    ),
    path(
        "papers/<slug:slug>/graph.graphml",
        redirect_old_slugs(views.paper_graph_graphml),
        name="paper-graph-graphml",
    ),
]
