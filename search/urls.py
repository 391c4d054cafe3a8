from django.urls import path

from search import views

app_name = "search"

urlpatterns = [
    path("", views.search, name="search"),
    path("suggest/", views.suggest, name="suggest"),
    path("feed.atom", views.search_feed, name="feed"),
]
